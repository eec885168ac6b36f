"""Experiment ``experts``: prediction with expert advice, private and not ([DR14, §11.2]; [AFKT23]).

Learners ``rwm``, ``private_rwm``, ``private_rwm_tight``, ``private_mw_001``, ``ftl``,
``sv_experts`` on the oblivious sequences of :mod:`dpbench.problems.experts`, over grids of
T, ε and k. One row per (cell, repetition, checkpoint t) with ``regret`` (realized, from
the played actions), ``expected_regret`` (from the played distributions p_t: exact, lower
variance), ``loss`` (average loss of the actions) and ``eta``. Option ``checkpoints``
(default 1): number of log-spaced checkpoints t ≤ T recorded per run.

``private_mw_001`` runs only where dp-accounting's RDP accountant certifies the target
(ε, δ) for [NotesPAC, Thm 3]'s α = sqrt(ε/(12T)) (at δ = 1e-6: from ε ≈ 1.9 on, whatever T); its
other cells are ``skipped`` with the certified δ in ``reason`` (docs/findings.md).

Theory (:mod:`dpbench.theory.experts`, :func:`theory_check`): per curve and metric, the
log–log slope in T fitted on repetitions where the curve is clearly below uniform play's
regret, beside the local exponent of the bound at the recorded η ([DR14, Thm 11.1]:
deterministic for the expected regret, checked on the maximum over repetitions; + Azuma
w.p. 1 − β for the realized regret), ``sv_experts``' derived bound on realizable sequences
(:func:`dpbench.theory.sv_regret_bound`, w.p. ≥ 1 − p: checked on that quantile, against T
and against ε) and FTL's linear regret on the trap (exponent 0). Figures: :mod:`dpbench.plotting.experts`, from the
recorded ``eta`` column (no calibration is re-run).
"""

from __future__ import annotations

import time
from collections import OrderedDict

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.experiments.base import Experiment, Figure, base_row, data_rng, make_learner, mech_rng, shard_cache
from dpbench.foundation.cell import Cell
from dpbench.foundation.registry import register_experiment
from dpbench.theory_check.analysis import check_curve, curves, setting_label, slope_row, theory_row
from dpbench.theory_check.fit import fit_slope

#: failure probability of the high-probability bounds (quantile used by the bound check).
BETA = theory.EXPERTS_BETA
#: memory budget of the loss-sequence cache (entries of uint8 codes).
CACHE_ENTRIES = 3 * 10**8

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

    def clear(self) -> None:
        self._items.clear()


_losses = shard_cache(LossCache())  # emptied when the shard ends


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
    for rep in cell.reps:
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


def final_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Status-ok rows at the end of each run (``t = T``): one value per run and metric."""
    ok = df[df["status"] == "ok"]
    return ok[ok["t"] == ok["T"]]


def _ftl_trap_row(curve, metric: str) -> dict[str, object]:
    """FTL on the trap: its average regret is ½ at every T (linear regret), so the slope is
    fitted over the whole range (there is no decaying part) beside the exponent 0."""
    rows = curve.rows
    fit = fit_slope(rows["T"], rows[metric], rows["rep"])
    note = f"; linear regret: mean average regret {rows[metric].mean():.3f} (theory ½), whole range fitted (nothing decays)"
    return slope_row(fit, reps=int(rows["rep"].nunique()), exponent=0.0, note_suffix=note, experiment="experts", learner="ftl",
                     regime=setting_label(curve.key) or "all", x="T", y=metric, bound_kind="shape", claim="tight")


#: the note of every fair-coin row: what it checks (Cesa-Bianchi & Lugosi 2006, Thm 3.7)
COIN_NOTE = ("a lower-bound check of the instance, not a verdict on the learner: on fair coins no expert is better in "
             "expectation, so every learner's regret — uniform play's too — is the best-in-hindsight fluctuation "
             "√(ln k/(2T)) (Cesa-Bianchi & Lugosi 2006, Thm 3.7: the minimax lower bound, asymptotic in T and k)")

def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    """Per curve (learner × every varying setting: kind, k, ε, …) and metric
    (``expected_regret``, ``regret``): the log–log slope in T fitted on repetitions over the
    horizons where the curve is clearly below uniform play's regret
    (:func:`dpbench.theory.trivial_regret`; on ``ftl_trap``/``coin``, where that is ≈ 0,
    the decaying half of the curve), beside the local exponent of
    :func:`dpbench.theory.experts_rate_of` over the same range. Thm 11.1 is deterministic
    for the expected regret (checked on the maximum over repetitions); the realized regret's
    bound holds w.p. 1 − β (checked on that quantile); ``sv_experts``' bound on realizable
    sequences holds w.p. ≥ 1 − p (checked on that quantile, against T and against ε); FTL's ½
    is a shape. Each metric is fitted on its own values. A curve with one or two
    horizons (the ε and k sweeps) is ``too_few_points``; the ε sweeps (one T, ≥ 3 ε) get
    rows with x = ``epsilon`` (slope in ε beside the bound's local exponent: −1 for
    private_rwm below its cap, flattening where η reaches sqrt(ln k/T)); ``private_mw_001``'s
    skipped cells get a ``no_points`` row with the reason."""
    out = []
    final = final_rows(df)
    for curve in curves(final):
        for metric in ("expected_regret", "regret"):
            if curve.learner == "ftl" and curve.row["kind"] == "ftl_trap":
                out.append(_ftl_trap_row(curve, metric))
                continue
            rate = theory.experts_rate_of(curve.learner, curve.rows, metric=metric, beta=BETA)
            trivial = theory.trivial_regret_of(curve.row)
            coin = curve.row["kind"] == "coin"
            row = check_curve(
                curve, experiment="experts", x="T", y=metric, rate=rate.curve if rate else None,
                kind=rate.kind if rate else "none", trivial=trivial if np.isfinite(trivial) else None,
                holds_with=rate.holds_with if rate else 1.0,
                claim="lower" if coin else None,
            )
            if row is not None and coin:
                row["note"] = f"{row['note']}; {COIN_NOTE}"
            out.append(row)
    for T, at_T in final[final["private"] & np.isfinite(final["epsilon"])].groupby("T"):
        for curve in curves(at_T, exclude=("epsilon",)):  # the ε sweeps: one T, ≥ 3 ε
            if curve.rows["epsilon"].nunique() < 3:
                continue
            rate = theory.experts_rate_of(curve.learner, curve.rows, x="epsilon", beta=BETA)
            trivial = theory.trivial_regret_of(curve.row)
            row = check_curve(
                curve, experiment="experts", x="epsilon", y="expected_regret", rate=rate.curve if rate else None,
                kind=rate.kind if rate else "none", trivial=trivial if np.isfinite(trivial) else None,
                holds_with=rate.holds_with if rate else 1.0,
            )
            row["regime"] = f"T = {T:g}" + (f", {row['regime']}" if row["regime"] != "all" else "")
            out.append(row)
    for T, at_T in final[final["kind"] == "stochastic"].groupby("T"):
        for curve in curves(at_T, exclude=("k", "problem_id")):  # the k sweeps: one T, ≥ 3 k
            if curve.rows["k"].nunique() < 3:
                continue
            rate = theory.experts_rate_of(curve.learner, curve.rows, x="k", beta=BETA)
            row = check_curve(
                curve, experiment="experts", x="k", y="expected_regret", rate=rate.curve if rate else None,
                kind=rate.kind if rate else "none", trivial=_uniform_regret_along_k(curve.row), holds_with=rate.holds_with if rate else 1.0,
            )
            if row is not None:
                row["regime"] = f"T = {T:g}, regret vs k" + (f", {row['regime']}" if row["regime"] != "all" else "")
                out.append(row)
    skipped = df[df["status"] == "skipped"]
    for (learner, eps, delta, kind, k), group in skipped.groupby(["learner", "epsilon", "delta", "kind", "k"], sort=True):
        reason = str(group["reason"].iloc[0])
        out.append(
            theory_row(
                experiment="experts", learner=learner, regime=f"kind = {kind}, k = {k:g}, " + setting_label({"epsilon": eps, "delta": delta}),
                x="T", y="expected_regret", bound_kind="none", n_points=0, status="no_points",
                note=f"skipped at T = {sorted(int(t) for t in group['T'].unique())}: {reason}",
            )
        )
    return pd.DataFrame([r for r in out if r is not None])


def _uniform_regret_along_k(row):
    """Uniform play's regret on the stochastic gap instance as a function of k (gap·(1 − 1/k),
    :func:`dpbench.theory.trivial_regret_of` at each k): the level a curve in k must get below."""
    def at(ks):
        return np.array([theory.trivial_regret_of({**row.to_dict(), "k": float(k)}) for k in np.atleast_1d(ks)], dtype=float)
    return at


_CAPTION_COMMON = (
    "Lines are means over repetitions with 95% bootstrap bands over repetitions (none with fewer than 5); "
    "dashed, in the learner's colour: Dwork & Roth (2014) Thm 11.1's bound eta + ln k/(eta T) at the eta each run recorded "
    "(interpolated between grid points), the bound checked in results/theory/experts.csv; grey line: the regret of "
    "uniform play, gap (1 - 1/k) on stochastic sequences; triangles on the axis: where the bound drops below it "
    "(where the theory says learning starts); private_mw_001 runs only where the RDP accountant certifies "
    "the course notes' alpha = sqrt(eps/(12T)) (a legend entry names the epsilon at which it was skipped)."
)

FIGURES = {
    "regret_vs_horizon": Figure(
        "dpbench.plotting.experts:regret_vs_T",
        "Average expected regret (from the played distributions) against the horizon T on stochastic sequences, "
        "one panel per (k, epsilon) of every T sweep, log-log; non-private learners in every panel. " + _CAPTION_COMMON,
    ),
    "regret_vs_epsilon": Figure(
        "dpbench.plotting.experts:regret_vs_epsilon",
        "Average expected regret of the private learners against epsilon at the horizon T of the epsilon sweep, "
        "log-log; dotted: rwm's measured regret (non-private). " + _CAPTION_COMMON,
    ),
    "regret_vs_k": Figure(
        "dpbench.plotting.experts:regret_vs_k",
        "Average expected regret against the number of experts k at fixed T (private learners at the epsilon of the "
        "sweep); dashed: Thm 11.1 at the recorded eta; grey dotted: uniform play's regret gap (1 - 1/k), which "
        "grows with k.",
    ),
    "ftl_trap": Figure(
        "dpbench.plotting.experts:ftl_trap",
        "The FTL trap (losses (1/2, 0), (0, 1), (1, 0), ...): average expected regret against T. Follow-the-leader "
        "always picks the expert about to lose: its regret stays at 1/2 (dark dotted line: linear regret, drawn over "
        "its data); RWM and its private version decay under Thm 11.1's bound at their recorded eta (dashed). "
        "Uniform play has regret about 0 here, so no grey level is drawn.",
    ),
    "coin": Figure(
        "dpbench.plotting.experts:coin",
        "Fair coins (every expert's loss an independent fair coin): average expected regret against T, log-log. "
        "A lower-bound check of the instance, not a verdict on any learner (its theory-check rows are labelled "
        "sanity, claim lower, and are not counted): uniform play does as well here. "
        "No expert is better in expectation, so every learner's regret is the best-in-hindsight fluctuation and "
        "the order sqrt(ln k / T) of Thm 11.1's bound is attained (unlike the stochastic gap sequences, where the "
        "regret is the bound's ln k/(eta T) term and FTL is best). Dashed, in the learner's colour: Thm 11.1's "
        "bound eta + ln k/(eta T) at the recorded eta; grey: the minimax lower bound sqrt(ln k/(2T)) "
        "(Cesa-Bianchi & Lugosi 2006, Thm 3.7, asymptotic in T and k). Lines are means over repetitions with 95% "
        "bootstrap bands (none with fewer than 5).",
    ),
    "realizable": Figure(
        "dpbench.plotting.experts:realizable",
        "Realizable sequences (one expert never loses): average realized regret against T. Dashed: Thm 11.1 at the "
        "recorded eta plus the Azuma term sqrt(2 ln(1/beta)/T) (holds with probability 1 - beta, beta = 0.1); "
        "dashed in sv_experts' colour: its bound 2 Lambda/T, derived with constants from the sparse "
        "vector's Laplace tails (holds with probability 1 - p, p <= 0.08 on the paper grid); grey: uniform play's "
        "regret (k - 1)/(2k).",
    ),
    "tight_accounting": Figure(
        "dpbench.plotting.experts:tight_accounting",
        "private_rwm_tight (each round eta^2/2-zCDP, T rounds composed by dp-accounting's RDP accountant) against "
        "private_rwm (advanced composition, Dwork & Roth 2014 Thm 11.2) at the same (epsilon, delta): average expected regret "
        "against T, one panel per epsilon; the panel title gives the ratio of their recorded learning rates. "
        + _CAPTION_COMMON,
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
