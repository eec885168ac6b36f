"""Experiment ``halfspaces_online``: online learning of large-margin halfspaces
(algorithms.md §5; 004 §4).

Problems ``halfspace`` and ``dl_as_halfspace``; learners ``perceptron``, ``winnow``,
``confident_winnow``, ``dp_winnow``, ``dp_winnow_tight``; size axis ``T``. Each
repetition runs one stream of length T and records cumulative ``mistakes`` and
``updates`` at log-spaced checkpoints ``t`` (one row per checkpoint; ``options:
checkpoints_per_decade``, default 5). Private rows report the composed (ε, δ) of their
calibration in ``eps_reported``/``delta_reported`` and the rate in ``eta``.

Theory (:mod:`dpbench.theory.winnow`): final mistakes against ``ln N`` (Winnow family,
exponent 1) and ``N`` (perceptron bound, exponent 1), against ρ (exponent −2), the
private learners against ε (Thm 4.5 shape, exponent −1) and the local slope of their
cumulative mistakes in t over the last decade (1 = linear, 0 = learned), with the round
from which the mistakes are sublinear; bound checks for the proven bounds (Winnow,
ConfidentWinnow, perceptron, and each DP run's calibrated bound).
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.analysis import bound_violations, loglog_slope, summarise, theory_row
from dpbench.experiment import Experiment, Figure, base_row, data_rng, make_learner, mech_rng
from dpbench.grid import Cell
from dpbench.problems.halfspace import log_checkpoints
from dpbench.registry import register_experiment

BETA = 0.1
EXPERIMENT_ID = "halfspaces_online"
PROBLEM_AXES = ("d", "s", "rho", "order", "domain", "monotone", "l", "p")


def run_online_cell(cell: Cell, target, root_seed: int) -> list[dict]:
    """One stream per repetition (data stream: problem + rep only, so every learner and ε
    sees the same examples; nested across T); one row per checkpoint."""
    learner = make_learner(cell)
    options = dict(cell.options)
    checkpoints = log_checkpoints(cell.size, per_decade=int(options.get("checkpoints_per_decade", 5)))
    reason = learner.supports(target)
    rows = []
    for rep in range(cell.repetitions):
        if reason is not None:
            row = base_row(cell, rep, root_seed, learner)
            row.update(target.columns(), status="skipped", reason=reason, t=cell.size)
            rows.append(row)
            continue
        stream = target.stream(cell.size, rng=data_rng(cell, rep, root_seed), checkpoints=checkpoints)
        start = time.perf_counter()
        trace = learner.run(stream, rng=mech_rng(cell, rep, root_seed))
        seconds = time.perf_counter() - start
        diag = trace.diagnostics
        for t, m, u in zip(trace.t, trace.mistakes, trace.updates):
            row = base_row(cell, rep, root_seed, learner)
            row.update(target.columns())
            row.update(t=int(t), mistakes=int(m), updates=int(u), eta=float(diag.get("eta", math.nan)), fit_seconds=seconds)
            if type(learner).private and math.isfinite(cell.epsilon):
                row.update(eps_reported=float(diag["epsilon"]), delta_reported=float(diag["delta"]))
            rows.append(row)
    return rows


# --------------------------------------------------------------------------- theory


def mistake_bound(learner: str, row: pd.Series) -> float:
    """The proven bound on total mistakes for one cell (NaN where there is none)."""
    N, rho = float(row["n_features"]), float(row["rho"])
    if learner == "winnow":
        return float(theory.winnow_mistake_bound(N, rho))
    if learner == "confident_winnow" or (learner.startswith("dp_winnow") and math.isinf(row["epsilon"])):
        return float(theory.confident_winnow_update_bound(N, rho))
    if learner == "perceptron":
        return float(theory.perceptron_mistake_bound(N, rho))
    if learner.startswith("dp_winnow"):
        from dpbench.learners.dp_winnow import calibrate

        p = calibrate(epsilon=float(row["epsilon"]), delta=float(row["delta"]), rho=rho, n_features=int(N), T=int(row["T"]), beta=BETA,
                      accountant="zcdp" if learner.endswith("tight") else "advanced")
        return float(theory.dp_winnow_calibrated_bound(p.M, p.threshold))
    return math.nan


def sweep_axis(axis: str, learner: str, values: pd.Series) -> tuple[pd.Series, str, float]:
    """``(x, unit, theoretical exponent)`` of final mistakes along a sweep: linear in N for
    the perceptron, linear in ln N for the Winnow family (``axis='d'``), ρ⁻² along ``'rho'``."""
    if axis == "d":
        return (values, "N", 1.0) if learner == "perceptron" else (np.log(values), "ln N", 1.0)
    return values, "ρ", -2.0


def final_rows(df: pd.DataFrame) -> pd.DataFrame:
    ok = df[df["status"] == "ok"]
    return ok[ok["t"] == ok["T"]]


def sweeps(final: pd.DataFrame, axis: str, problem: str = "halfspace") -> list[tuple[tuple, pd.DataFrame]]:
    """Groups of final rows that vary only along ``axis`` (≥ 3 values), keyed by the rest."""
    rows = final[final["problem"] == problem]
    others = [c for c in PROBLEM_AXES if c != axis and c in rows and rows[c].notna().any()] + ["T"]
    out = []
    for key, group in rows.groupby(others, dropna=False, sort=True):
        if group[axis].nunique() >= 3:
            out.append((key if isinstance(key, tuple) else (key,), group))
    return out


def sublinear_from(curve: pd.DataFrame, slope_max: float = 0.5) -> float:
    """Smallest checkpoint t from which cumulative mistakes grow with local log–log slope
    ≤ ``slope_max`` over the next factor 10 of t, up to the end of the run (NaN if never)."""
    t = curve["t"].to_numpy(float)
    m = np.maximum(curve["mean"].to_numpy(float), 0.5)
    ok = np.zeros(len(t), dtype=bool)
    for i in range(len(t)):
        j = np.searchsorted(t, 10 * t[i])
        if j >= len(t):
            ok[i] = np.log(m[-1] / m[i]) <= slope_max * np.log(t[-1] / t[i]) if t[-1] > t[i] else ok[i - 1] if i else False
        else:
            ok[i] = np.log(m[j] / m[i]) <= slope_max * np.log(t[j] / t[i])
    bad = np.flatnonzero(~ok)
    first = bad[-1] + 1 if len(bad) else 0
    return float(t[first]) if first < len(t) else math.nan


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    final = final_rows(df)
    E = EXPERIMENT_ID
    # final mistakes vs N (ln N for the multiplicative learners), vs rho
    for axis, xs in (("d", "n_features"), ("rho", "rho")):
        for key, group in sweeps(final, axis):
            for learner, g in group.groupby("learner"):
                if g["private"].any() and not np.isinf(g["epsilon"]).all():
                    continue
                s = summarise(g, [xs], "mistakes").sort_values(xs)
                x, label, exponent = sweep_axis(axis, learner, s[xs])
                slope, lo, hi, m = loglog_slope(x, s["mean"])
                cells, above = bound_violations(g, [xs, "problem_id"], lambda r, L=learner: mistake_bound(L, r), BETA, "mistakes")
                rows.append(theory_row(experiment=E, learner=learner, regime=f"{axis} sweep " + ", ".join(f"{c}={g.iloc[0][c]}" for c in ("d", "s", "rho", "order", "domain", "T") if c != axis),
                                       x=label, y="final mistakes", fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=exponent,
                                       n_points=m, bound_kind="bound", cells=cells, cells_above_bound=above))
    # private learners: vs epsilon, and over t (sublinearity)
    hs = final[final["problem"] == "halfspace"]
    for (learner, pid), g in hs[hs["private"]].groupby(["learner", "problem_id"]):
        finite = g[np.isfinite(g["epsilon"])]
        r0 = g.iloc[0]
        tag = f"N={int(r0['n_features'])}, rho={r0['rho']:g}, T={int(r0['T'])}"
        if finite["epsilon"].nunique() >= 3:
            s = summarise(finite, ["epsilon"], "mistakes").sort_values("epsilon")
            slope, lo, hi, m = loglog_slope(s["epsilon"], s["mean"])
            cells, above = bound_violations(g, ["epsilon", "T"], lambda r, L=learner: mistake_bound(L, r), BETA, "mistakes")
            rows.append(theory_row(experiment=E, learner=learner, regime=f"final mistakes vs epsilon ({tag})", x="epsilon", y="final mistakes",
                                   fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=-1.0, n_points=m,
                                   bound_kind="bound", cells=cells, cells_above_bound=above))
        ok = df[(df["status"] == "ok") & (df["problem_id"] == pid) & (df["learner"] == learner)]
        for eps, ge in ok.groupby("epsilon"):
            curve = summarise(ge, ["t"], "mistakes").sort_values("t")
            last = curve[curve["t"] >= curve["t"].max() / 10]
            slope, lo, hi, m = loglog_slope(last["t"], last["mean"])
            t_sub = sublinear_from(curve)
            rows.append(theory_row(experiment=E, learner=learner, regime=f"epsilon={eps:g}, last decade of t ({tag}); sublinear from t={t_sub:.3g}",
                                   x="t", y="cumulative mistakes", fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi,
                                   theory_exponent=0.0, n_points=m, bound_kind="shape"))
    # decision lists as halfspaces
    dl = final[final["problem"] == "dl_as_halfspace"]
    for learner, g in dl.groupby("learner"):
        if g["private"].any() and not np.isinf(g["epsilon"]).all():
            continue
        s = summarise(g, ["rho"], "mistakes").sort_values("rho")
        slope, lo, hi, m = loglog_slope(s["rho"], s["mean"])
        cells, above = bound_violations(g, ["problem_id"], lambda r, L=learner: mistake_bound(L, r), BETA, "mistakes")
        rows.append(theory_row(experiment=E, learner=learner, regime="dl_as_halfspace, rho = 1/(2^(l+1)-1)", x="rho", y="final mistakes",
                               fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=-2.0, n_points=m,
                               bound_kind="bound", cells=cells, cells_above_bound=above))
    return pd.DataFrame(rows)


def _figures():
    return {
        "mistakes_vs_t": Figure("dpbench.plotting.halfspaces_online:mistakes_vs_t", "Cumulative mistakes against round t, one panel per learner, colour = ε (grey: non-private), "
                                "on the small-N large-margin streams where the private learners can learn; means over repetitions with 95% "
                                "bands; dashed: the learner's mistake bound (non-private) or calibrated bound (private, in ε's colour); dotted: "
                                "t (every round a mistake) and the ln T/ε lower-bound shape."),
        "mistakes_vs_d": Figure("dpbench.plotting.halfspaces_online:mistakes_vs_d", "Final mistakes against the number of learner features N (log scale), per stream order; "
                                "dashed: Winnow's 2 ln N/ρ², ConfidentWinnow's 8 ln N/ρ² and the perceptron's N/ρ²; legend: fitted slope "
                                "(in ln N, or N for the perceptron) beside the theoretical exponent 1."),
        "mistakes_vs_rho": Figure("dpbench.plotting.halfspaces_online:mistakes_vs_rho", "Final mistakes against the margin ρ, log–log; dashed: the bounds (∝ ρ⁻²); legend: fitted "
                                  "slope beside −2."),
        "mistakes_vs_epsilon": Figure("dpbench.plotting.halfspaces_online:mistakes_vs_epsilon", "Private learners' final mistakes at t = T against ε, log–log, with the "
                                      "non-private ConfidentWinnow (ε = ∞) as a horizontal line, the horizon T as the trivial bound, and "
                                      "the Thm 4.5 shape (∝ 1/ε, dashed); legend: fitted slope beside −1."),
        "dl_as_halfspace": Figure("dpbench.plotting.halfspaces_online:dl_as_halfspace", "Online decision lists as margin-1/(2^(l+1)−1) halfspaces (Lemma 4.10): cumulative "
                                  "mistakes against t, one panel per list length l; dashed: the learners' mistake bounds."),
    }


EXPERIMENT = register_experiment(
    Experiment(
        id=EXPERIMENT_ID,
        problems=("halfspace", "dl_as_halfspace"),
        size="T",
        run_cell=run_online_cell,
        theory_check=theory_check,
        figures=_figures(),
        test_size=300,
    )
)
