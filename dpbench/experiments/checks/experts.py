"""Theory check of experiment ``experts`` (:mod:`dpbench.experiments.experts`).

Per curve and metric (:func:`theory_check`; the bounds from :mod:`dpbench.theory.experts`), the
log–log slope in T fitted on repetitions where the curve is clearly below uniform play's
regret, beside the local exponent of the bound at the recorded η ([DR14, Thm 11.1]:
deterministic for the expected regret, checked on the maximum over repetitions; + Azuma
w.p. 1 − β for the realized regret), ``sv_experts``' derived bound on realizable sequences
(:func:`dpbench.theory.sv_regret_bound`, w.p. ≥ 1 − p: checked on that quantile, against T
and against ε) and FTL's linear regret on the trap (exponent 0).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.theory_check.analysis import check_curve, curves, setting_label, slope_row, theory_row
from dpbench.theory_check.fit import fit_slope

#: failure probability of the high-probability bounds (quantile used by the bound check).
BETA = theory.EXPERTS_BETA


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
