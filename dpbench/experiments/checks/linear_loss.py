"""Theory check of experiment ``linear_loss`` (:mod:`dpbench.experiments.linear_loss`).

Per curve (:func:`theory_check`), the log–log slope of the excess loss in T
fitted on repetitions where it is clearly below the uniform θ's excess loss (``gap``),
beside the exponent of the proven online-to-batch bound
:func:`dpbench.theory.excess_linear_learner_bound` at the recorded η (≈ −½, [DR14, Thm 11.6]); the
bound holds w.p. ≥ 1 − 3β and is checked on that quantile over repetitions (``sanity`` rows:
η ∝ T^−½ sets that exponent). Against ε (``prediction`` rows, one per private setting with ≥ 3
finite ε, at the largest T every ε ran): the excess loss against the same bound as the
theorem's own function of ε, :func:`dpbench.theory.excess_linear_learner_bound_eps` at the
calibration's η(ε) (:func:`dpbench.theory.eta_linear_learner`, computed from ε, δ, T and d),
beside a check that every run recorded that η (:func:`eta_mismatch`): a run at another η is
not the theorem's algorithm, and its row is ``inconclusive`` (``violated`` if above the bound).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.theory_check.analysis import Curve, check_curve, curves
from dpbench.theory_check.calibration import calibration_mismatch, mark_calibration

BETA = theory.EXPERTS_BETA


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    """Per curve (every varying setting: d, ε, …): the log–log slope of the excess loss in T
    fitted on repetitions where the curve is clearly below the uniform θ's excess loss
    (``gap``), beside the local exponent of the proven online-to-batch bound at the recorded
    η (:func:`dpbench.theory.linear_learner_rate_of`, w.p. ≥ 1 − 3β: checked on that
    quantile over repetitions)."""
    out = []
    for curve in curves(df):
        rate = theory.linear_learner_rate_of(curve.rows, beta=BETA)
        out.append(
            check_curve(
                curve, experiment="linear_loss", x="T", y="excess_loss", rate=rate.curve, kind=rate.kind,
                trivial=float(curve.row["gap"]), holds_with=rate.holds_with,
            )
        )
    out.extend(epsilon_rows(df))
    return pd.DataFrame([r for r in out if r is not None])


def eta_mismatch(rows: pd.DataFrame) -> dict[float, float]:
    """Per ε whose runs did not record the calibration's η(ε)
    (:func:`dpbench.theory.eta_linear_learner` at the row's T, d, δ;
    :func:`~dpbench.theory_check.calibration.calibration_mismatch`): the largest
    recorded/prescribed ratio (farthest from 1)."""
    eps, T = rows["epsilon"].to_numpy(dtype=float), rows["T"].to_numpy(dtype=float)
    d, delta = int(rows["d"].iloc[0]), float(rows["delta"].iloc[0])
    return calibration_mismatch(eps, rows["eta"].to_numpy(dtype=float), theory.eta_linear_learner(T, eps, delta, d))


def epsilon_rows(df: pd.DataFrame) -> list[dict]:
    """``prediction`` rows against ε: per private setting with ≥ 3 finite ε, at the largest T
    every ε ran, the excess loss against the online-to-batch bound at the calibration's η(ε)
    (:func:`dpbench.theory.linear_learner_eps_rate_of`; w.p. ≥ 1 − 3β, checked on that
    quantile over repetitions), and :func:`eta_mismatch` on the same runs: where a run's η is
    not η(ε) the bound is not the run's, and a decisive verdict other than ``violated``
    becomes ``inconclusive`` (the note gives the ratios)."""
    if df.empty:
        return []
    ok = df[(df["status"] == "ok") & df["private"].astype(bool)]
    ok = ok[np.isfinite(ok["epsilon"].astype(float))]
    out = []
    for curve in curves(ok, exclude=("epsilon",)):
        per_T = curve.rows.groupby("T")["epsilon"].nunique()
        T = float(per_T[per_T == per_T.max()].index.max())
        at = Curve(curve.learner, curve.key, curve.rows[curve.rows["T"] == T])
        rate = theory.linear_learner_eps_rate_of(at.rows, beta=BETA)
        row = check_curve(at, experiment="linear_loss", x="epsilon", y="excess_loss", rate=rate.curve, kind=rate.kind,
                          trivial=float(at.row["gap"]), holds_with=rate.holds_with)
        if row is None:
            continue
        row["regime"] = f"T = {T:g}" + (f", {row['regime']}" if row["regime"] != "all" else "")
        row["role"] = "prediction"
        mark_calibration(row, eta_mismatch(at.rows), prescribed="η(ε) = min(ε/sqrt(32 T ln(1/δ)), sqrt(ln d/T))",
                         count=at.rows["epsilon"].nunique())
        out.append(row)
    return out
