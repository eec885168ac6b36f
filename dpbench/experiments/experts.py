"""Experiment ``experts``: prediction with expert advice, private and not (algorithms.md §4).

Learners ``rwm``, ``private_rwm``, ``private_rwm_tight``, ``private_mw_001``, ``ftl``,
``sv_experts`` on the oblivious sequences of :mod:`dpbench.problems.experts`, over grids of
T, ε and k. One row per (cell, repetition, checkpoint t) with ``regret`` (realized, from
the played actions), ``expected_regret`` (from the played distributions p_t: exact, lower
variance), ``loss`` (average loss of the actions) and ``eta``. Option ``checkpoints``
(default 1): number of log-spaced checkpoints t ≤ T recorded per run.

Theory (:mod:`dpbench.theory.experts`): the theory check fits the log–log slope of the
mean expected regret in T on each curve's decaying part (−½ for the Hedge family, −1 for
``sv_experts`` on realizable sequences, 0 for ``ftl`` on the trap) and counts cells whose
90%-quantile exceeds the proven bound ``η + ln k/(ηT)`` (000 Thm 11.1, at the cell's η;
realized regret adds the Azuma term ``sqrt(2 ln(1/β)/T)``).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.analysis import bound_violations, learning_regime, loglog_slope, summarise, theory_row
from dpbench.experiment import Experiment, Figure, base_row, data_rng, make_learner, mech_rng
from dpbench.grid import Cell
from dpbench.registry import register_experiment

#: failure probability of the high-probability bounds (quantile used by the bound check).
BETA = 0.1
#: memory budget of the loss-sequence cache (entries of uint8 codes).
CACHE_ENTRIES = 3 * 10**8

EXPONENT_T = {
    "rwm": -0.5,
    "private_rwm": -0.5,
    "private_rwm_tight": -0.5,
    "private_mw_001": -0.5,
    "linear_learner": -0.5,
    "ftl": math.nan,
    "sv_experts": -1.0,
}


class LossCache:
    """Loss sequences shared by consecutive cells of a shard (same problem, T, rep):
    cells are sorted by (problem, T, learner), so every learner and ε of a (problem, T)
    reuse one draw per repetition. Bounded by total entries, least recently used first."""

    def __init__(self, max_entries: int = CACHE_ENTRIES):
        self.max_entries = max_entries
        self._items: OrderedDict = OrderedDict()

    def get(self, key, make):
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = make()
        self._items[key] = value
        while len(self._items) > 1 and sum(v.codes.size for v in self._items.values()) > self.max_entries:
            self._items.popitem(last=False)
        return value


_losses = LossCache()


def run_experts_cell(cell: Cell, target, root_seed: int) -> list[dict]:
    """Experts cell: per repetition draw the oblivious sequence (data stream), run the
    learner (mech stream), one row per checkpoint. Learners that cannot run a horizon
    (e.g. ``private_mw_001`` whose δ(T) exceeds the target) give ``skipped`` rows."""
    learner = make_learner(cell)
    T = cell.size
    k = target.k if hasattr(target, "k") else target.d
    reason = learner.supports(target)
    if reason is None and hasattr(learner, "supports_horizon"):
        reason = learner.supports_horizon(T, k)
    n_checkpoints = int(dict(cell.options).get("checkpoints", 1))
    rows = []
    for rep in range(cell.repetitions):
        base = base_row(cell, rep, root_seed, learner)
        base.update(target.columns())
        if reason is not None:
            base.update(status="skipped", reason=reason, t=T)
            rows.append(base)
            continue
        losses = _losses.get((cell.problem_id, root_seed, T, rep), lambda: target.losses(T, rng=data_rng(cell, rep, root_seed)))
        start = time.perf_counter()
        trace = learner.run(losses, rng=mech_rng(cell, rep, root_seed), n_checkpoints=n_checkpoints)
        seconds = time.perf_counter() - start
        regret, expected = trace.regret, trace.expected_regret
        for j, t in enumerate(trace.t):
            row = dict(base)
            row.update(
                t=int(t),
                regret=float(regret[j]),
                expected_regret=float(expected[j]),
                loss=float(trace.alg_loss[j] / t),
                fit_seconds=seconds,
                **trace.diagnostics,
            )
            rows.append(row)
    return rows


def regret_bound(learner: str, row: pd.Series, metric: str = "expected_regret") -> float:
    """The proven bound for one cell (NaN where there is none)."""
    T, k = float(row["T"]), int(row["k"])
    if learner == "sv_experts":
        return float(theory.regret_sv_experts(T, row["epsilon"], k, BETA)) if row["kind"] == "realizable" else math.nan
    eta = row.get("eta")
    if eta is None or not np.isfinite(eta):
        return math.nan
    bound = float(theory.regret_hedge(T, eta, k))
    if metric == "regret":
        bound += math.sqrt(2 * math.log(1 / BETA) / T)
    return bound


def theory_curve(learner: str, T: np.ndarray, row: pd.Series) -> np.ndarray | None:
    """Theoretical average regret of ``learner`` at horizons T for the panel's ε, k."""
    from dpbench import registry

    k, eps, delta = int(row["k"]), float(row["epsilon"]), float(row["delta"])
    if learner == "ftl":
        return None
    if learner == "sv_experts":
        return theory.regret_sv_experts(T, eps, k, BETA) if row["kind"] == "realizable" else None
    cls = registry.learner(learner)
    inst = cls.from_cell(epsilon=eps, delta=delta, params={})
    etas = np.array([inst.eta(int(t), k) for t in T])
    return theory.regret_hedge(T, etas, k)


def fit_slope(curve: pd.DataFrame, x: str = "T"):
    curve = curve.sort_values(x)
    regime = learning_regime(curve[x], curve["mean"]) if len(curve) else np.array([], bool)
    return loglog_slope(curve[x][regime], curve["mean"][regime])


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    ok = df[(df["status"] == "ok") & (df["t"] == df["T"])]
    for (kind, k, learner, eps), group in ok.groupby(["kind", "k", "learner", "epsilon"], sort=True):
        curve = summarise(group, ["T"], "expected_regret")
        slope, lo, hi, m = fit_slope(curve)
        exponent = EXPONENT_T.get(learner, math.nan)
        if learner == "ftl" and kind == "ftl_trap":
            exponent = 0.0
            slope, lo, hi, m = loglog_slope(curve["T"], curve["mean"])
        if learner == "sv_experts" and kind != "realizable":
            exponent = math.nan
        for metric in ("expected_regret", "regret"):
            cells, above = bound_violations(group, ["T", "problem_id"], lambda r, m_=metric: regret_bound(learner, r, m_), BETA, metric=metric)
            rows.append(
                theory_row(
                    experiment="experts", learner=learner, regime=f"kind={kind},k={k},epsilon={eps:g}", x="T", y=metric,
                    fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=exponent, n_points=m,
                    bound_kind="bound" if cells else "none", cells=cells or None, cells_above_bound=above if cells else None,
                )
            )
    return pd.DataFrame(rows)


FIGURES = {
    "regret_vs_horizon": Figure(
        "dpbench.plotting.experts:regret_vs_T",
        "Average expected regret (from the played distributions) against the horizon T on the stochastic "
        "sequence, one panel per ε, log–log; means over repetitions with 95% bands; dashed: the bound "
        "η + ln k/(ηT) of 000 Thm 11.1 at each learner's calibrated η; legend: fitted slope on the decaying "
        "part beside the theoretical exponent −½.",
    ),
    "regret_vs_epsilon": Figure(
        "dpbench.plotting.experts:regret_vs_epsilon",
        "Average expected regret against ε at fixed T, log–log; dashed: theoretical bounds at the same T; "
        "non-private learners are horizontal lines.",
    ),
    "regret_vs_k": Figure(
        "dpbench.plotting.experts:regret_vs_k",
        "Average expected regret against the number of experts k at fixed T and ε; dashed: theoretical bounds.",
    ),
    "ftl_trap": Figure(
        "dpbench.plotting.experts:ftl_trap",
        "The FTL trap (losses (½,0),(0,1),(1,0),…): average realized regret against T; follow-the-leader stays "
        "at ½ (linear regret) while RWM and its private versions decay as T^(−½).",
    ),
    "realizable": Figure(
        "dpbench.plotting.experts:realizable",
        "Realizable sequences (one expert never loses): average regret against T; sv_experts (sparse vector) "
        "decays as 1/T, the private RWM calibrations as T^(−½); dashed: bounds.",
    ),
    "tight_accounting": Figure(
        "dpbench.plotting.experts:tight_accounting",
        "Left: the learning rate η bought by the tight (RDP/zCDP) accountant over the advanced-composition "
        "calibration of 000 Thm 11.2, against ε (ratio, for the T of the grid). Right: the resulting expected "
        "regret of private_rwm_tight vs private_rwm against T, same (ε, δ).",
    ),
}




EXPERIMENT = register_experiment(
    Experiment(
        id="experts",
        problems=("experts",),
        size="T",
        run_cell=run_experts_cell,
        theory_check=theory_check,
        figures=FIGURES,
        test_size=200,
    )
)


def theory_curve_eps(learner: str, eps: np.ndarray, row: pd.Series) -> np.ndarray | None:
    """Theoretical regret against ε at the row's T (bound at each ε's calibrated η)."""
    from dpbench import registry

    T, k, delta = int(row["T"]), int(row["k"]), float(row["delta"])
    cls = registry.learner(learner)
    if learner == "sv_experts":
        return None
    etas = np.array([cls.from_cell(epsilon=float(e), delta=delta, params={}).eta(T, k) for e in eps])
    return theory.regret_hedge(T, etas, k)


def theory_curve_k(learner: str, ks: np.ndarray, row: pd.Series) -> np.ndarray | None:
    """Theoretical regret against k at the row's T and ε."""
    from dpbench import registry

    if learner in ("ftl", "sv_experts"):
        return None
    T, eps, delta = int(row["T"]), float(row["epsilon"]), float(row["delta"])
    inst = registry.learner(learner).from_cell(epsilon=eps, delta=delta, params={})
    return np.array([float(theory.regret_hedge(T, inst.eta(T, max(int(round(k)), 2)), max(int(round(k)), 2))) for k in ks])
