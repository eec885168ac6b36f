"""Theory check of experiment ``halfspaces_online`` (:mod:`dpbench.experiments.halfspaces_online`).

With :mod:`dpbench.theory_check.analysis`, one row per curve (learner × every setting that
varies):

- the cumulative mistake rate ``mistakes/t`` against t: a bounded number of mistakes means
  rate ∝ 1/t (exponent −1) once learned; trivial level: the best constant predictor's rate
  (:func:`dpbench.theory_check.trivial.trivial_mistake_rate_of`: ½ on the balanced halfspace streams, the
  majority label's rate on decision lists); at-chance is judged on the late-window rate
  (:func:`dpbench.theory_check.analysis.late_window_rate`: mistakes per round over the last checkpoint
  interval of the stream), the fitted regime is the last contiguous run of checkpoints at most half the
  trivial rate, starting after the last checkpoint window in which some repetition's
  incremental mistakes per round exceed half the trivial rate (``counts="mistakes"``); the recorded bound checked (÷ t) on the maximum
  over repetitions (non-private, deterministic) or the (1 − β)-quantile (DP-Winnow, holds
  w.p. ≥ 1 − β); a bound above the trivial level over the whole horizon is
  ``vacuous_bound``, a curve never clearly below it is ``at_chance``;
- final mistakes against ``ln N`` (Winnow family) or ``N`` (perceptron) along the d sweep,
  against ρ (exponent −2) along the ρ sweep, bounds on the maximum;
- the private learners' final mistakes against ε per stream, against the run's own
  calibrated bound ``(M+1)(2L−B+1)`` at each ε (proven, holds w.p. ≥ 1 − β: checked on the
  (1 − β)-quantile over repetitions; its local exponent in ε is the prediction) — not
  [BF26, Thm 4.5]'s reconstructed shape, which is not the rate of the learner as run (the
  figure still draws it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.experiments.halfspaces_online import EXPERIMENT_ID
from dpbench.theory_check.analysis import THEORY_COLUMNS, check_curve, curves, late_window_rate, setting_label
from dpbench.theory_check.calibration import mark_calibration, prescribed_along_epsilon
from dpbench.theory_check.trivial import trivial_mistake_rate_of

BETA = 0.1
PROBLEM_AXES = ("d", "s", "rho", "order", "domain", "monotone", "l", "p")


def final_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Status-ok rows at the end of each stream (t = T)."""
    ok = df[df["status"] == "ok"]
    return ok[ok["t"] == ok["T"]]


def with_rate(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the cumulative mistake rate ``mistake_rate = mistakes/t``."""
    return df.assign(mistake_rate=df["mistakes"] / df["t"])


def sweeps(final: pd.DataFrame, axis: str, problem: str = "halfspace") -> list[pd.DataFrame]:
    """Final rows of the non-private learners that vary only along ``axis`` (≥ 3 values):
    one frame per value of the other problem parameters and T."""
    rows = final[(final["problem"] == problem) & ~final["private"]]
    others = [c for c in PROBLEM_AXES if c != axis and c in rows and rows[c].notna().any()] + ["T"]
    return [group for _, group in rows.groupby(others, dropna=False, sort=True) if group[axis].nunique() >= 3]


def private_streams(df: pd.DataFrame) -> pd.DataFrame:
    """Status-ok rows of the halfspace streams on which a private learner ran (every learner)."""
    ok = df[(df["status"] == "ok") & (df["problem"] == "halfspace")]
    return ok[ok["problem_id"].isin(ok.loc[ok["private"], "problem_id"])]


def _bound_over_t(curve) -> "Callable[[np.ndarray], np.ndarray]":
    bound = float(curve.row["mistake_bound"])
    return lambda t: np.full(np.shape(t), np.nan) if not np.isfinite(bound) else bound / np.asarray(t, dtype=float)


def _sweep_bound(learner: str, axis: str, row: pd.Series) -> "Callable[[np.ndarray], np.ndarray]":
    """The bound along a sweep axis (``n_features`` or ``rho``) with the rest of ``row`` fixed."""
    def at(x):
        values = {**row.to_dict(), axis: np.asarray(x, dtype=float)}
        if learner == "winnow":
            return theory.winnow_mistake_bound(values["n_features"], values["rho"], values["rho"] * float(row["eta"]) / float(row["rho"]))
        if learner == "perceptron":
            return theory.perceptron_mistake_bound(values["n_features"], values["rho"])
        return theory.confident_winnow_update_bound(values["n_features"], values["rho"])
    return at


def calibrated_bound_along_epsilon(curve):
    """``(bound(ε), mismatch)`` of a DP-Winnow curve against ε: the calibrated mistake bound
    (M+1)(2L−B+1) of the calibration the learner's rule prescribes for ε on the curve's stream
    (its ``calibrate`` at the stream's ρ, N and T and the run's δ and β: the theorem's function
    of ε, recomputed here, not read back from the runs), and, per ε whose runs recorded another
    bound in ``mistake_bound``, the ratio
    (:func:`~dpbench.theory_check.calibration.prescribed_along_epsilon`)."""
    r = curve.row
    stream = SimpleNamespace(rho=float(r["rho"]), n_features=int(r["n_features"]), T=int(r["T"]))

    def bound(learner):
        p = learner.calibrate(stream)
        return theory.dp_winnow_calibrated_bound(p.M, p.threshold, p.batch)

    return prescribed_along_epsilon(curve, bound, "mistake_bound")


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    """The theory-check rows (module docstring): mistake rate vs t per curve, final mistakes
    along the N and ρ sweeps, private final mistakes vs ε."""
    E = EXPERIMENT_ID
    rows = []
    ok = with_rate(df[df["status"] == "ok"])
    for _, per_problem in ok.groupby("problem", sort=True):
        for curve in curves(per_problem, exclude=("T",)):
            private = bool(curve.row["private"]) and math.isfinite(curve.row["epsilon"])
            rows.append(check_curve(curve, experiment=E, x="t", y="mistake_rate", rate=_bound_over_t(curve), kind="bound",
                                    trivial=trivial_mistake_rate_of(curve.row), holds_with=1 - BETA if private else 1.0, exponent=-1.0,
                                    late=late_window_rate(curve.rows), counts="mistakes",
                                    regime=f"{curve.row['problem']}: mistakes/t vs t ({setting_label(curve.key)})"))
    final = final_rows(df)
    for axis, x in (("d", "n_features"), ("rho", "rho")):
        for group in sweeps(final, axis):
            for curve in curves(group, exclude=("d", "n_features", "problem_id") if axis == "d" else ("rho", "problem_id")):
                fx = curve.rows.assign(ln_N=np.log(curve.rows["n_features"].astype(float))) if axis == "d" else curve.rows
                xcol = "ln_N" if axis == "d" and curve.learner != "perceptron" else x
                bound = _sweep_bound(curve.learner, x, curve.row)
                rate = (lambda v, b=bound: b(np.exp(v))) if xcol == "ln_N" else bound
                c = type(curve)(learner=curve.learner, key=curve.key, rows=fx)
                r = curve.row
                where = ", ".join(f"{k} = {r[k]:g}" if isinstance(r[k], float) else f"{k} = {r[k]}" for k in ("s", "rho", "d", "order", "domain") if k not in (axis, "d" if axis == "d" else "") and pd.notna(r[k]))
                rows.append(check_curve(c, experiment=E, x=xcol, y="mistakes", rate=rate, kind="bound", holds_with=1.0,
                                        exponent=1.0 if axis == "d" else -2.0, trivial=float(r["T"]) / 2,
                                        regime=f"final mistakes along the {'N' if axis == 'd' else 'ρ'} sweep ({where}, T = {int(r['T'])})"))
    priv = final[final["private"] & np.isfinite(final["epsilon"])]
    for curve in (c for _, p in priv.groupby("problem", sort=True) for c in curves(p, exclude=("epsilon", "T"))):
        r = curve.row
        streams = ok[(ok["learner"] == curve.learner) & (ok["problem_id"] == r["problem_id"]) & (ok["T"] == r["T"])]
        late = {eps: late_window_rate(g) * float(r["T"]) for eps, g in streams.groupby("epsilon")}
        setting = f"{r['problem']}, " + (setting_label(curve.key) or f"N = {int(r['n_features'])}, ρ = {r['rho']:g}")
        bound, off = calibrated_bound_along_epsilon(curve)
        row = check_curve(curve, experiment=E, x="epsilon", y="mistakes", rate=bound, kind="bound", holds_with=1 - BETA,
                          trivial=float(r["T"]) * trivial_mistake_rate_of(r), late=late,
                          regime=f"final mistakes vs ε ({setting}, T = {int(r['T'])}); theory: the calibrated bound "
                                 "(M+1)(2L−B+1) each ε prescribes")
        if row is not None:
            rows.append(mark_calibration(row, off, count=curve.rows["epsilon"].nunique(),
                                         prescribed="calibrated bound (M+1)(2L−B+1) of its rule's calibration"))
    return pd.DataFrame([r for r in rows if r is not None], columns=THEORY_COLUMNS)
