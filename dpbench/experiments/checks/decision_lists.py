"""Theory check of experiment ``decision_lists`` (:mod:`dpbench.experiments.decision_lists`).

With :mod:`dpbench.theory_check.analysis`: one row per curve (learner × every setting that
varies: problem, ε), the slope of error in n fitted on repetitions over the points clearly
below the majority label's error, bounds checked on the (1−β)-quantile over repetitions
(they hold w.p. ≥ 1 − β), and a status; per private learner and problem, the slope of
n*(α) in ε; per learner and ε, the slope of n*(α) in |F| over the (d, k) sweep; fit time per
example against |F|.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.experiments.decision_lists import ALPHA, BETA
from dpbench.theory_check.analysis import check_curve, curves, setting_label, slope_row
from dpbench.theory_check.fit import fit_slope
from dpbench.theory_check.nstar import check_n_star, check_n_star_at
from dpbench.theory_check.trivial import dl_trivial_error_of

EXPERIMENT_ID = "decision_lists"


def _primary(learner: str, row: pd.Series, **override):
    primary = [r for r in theory.dl_rates_of(learner, row, **override) if r.primary]
    return primary[0] if primary else None


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    """Per curve: slope of error in n on its regime (bootstrap over repetitions, the regime
    chosen in every resample) beside the primary rate's local exponent, bound cells at the
    1 − β level, status and verdict against the majority label's error. Per private learner
    and problem: slope of n*(α) in ε. Per learner and ε on the (d, k) sweep: slope of n*(α)
    in |F| (n* interpolated per repetition, :mod:`dpbench.theory_check.nstar`). Per learner: slope of fit
    time per example in |F| (a timing: no theory exponent, verdict ``no_theory``)."""
    rows = []
    for curve in curves(df):
        rate = _primary(curve.learner, curve.row)
        row = check_curve(
            curve, experiment=EXPERIMENT_ID, x="n", y="error", rate=rate.error if rate else None,
            kind=rate.kind if rate else "none", trivial=dl_trivial_error_of(curve.row), holds_with=1 - BETA,
            exponent=getattr(rate, "exponent", None),  # a declared rate states its exponent (plugins)
            reconstructed=_reconstructed(rate), shape_why=SHAPE_WHY.get(curve.learner, ""),
            regime=", ".join(filter(None, [setting_label(curve.key), f"theory: {rate.label}" if rate else ""])) or None,
        )
        if row is None:
            continue
        means = curve.rows.groupby("n")["error"].mean()
        if row["status"] == "too_few_points" and (means == 0).all():
            row["note"] = (f"mean error exactly 0 at every n of the grid (from n = {int(means.index.min())}): learned before "
                           "the smallest n, no slope on a log axis") + row["note"][row["note"].find(";"):] * (";" in row["note"])
        rows.append(row)
        if curve.learner in CONSISTENT and float(curve.row["noise"]) == 0:
            # the judged quantity of a consistent learner: n*(α) against the finite-class bound |C|(1−α)ⁿ ≤ β
            n_bound = float(theory.n_finite_class(ALPHA, float(curve.row["log_class_size"]), BETA))
            rows.append(check_n_star_at(
                curve.rows, experiment=EXPERIMENT_ID, learner=curve.learner, alpha=ALPHA, beta=BETA, n_bound=n_bound,
                regime=", ".join(filter(None, [f"n*(alpha={ALPHA}) against the finite-class bound", setting_label(curve.key)])),
            ))
    ok = df[df["status"] == "ok"] if len(df) else df
    private = ok[ok["private"] & np.isfinite(ok["epsilon"])] if len(ok) else ok
    for curve in curves(private, exclude=("epsilon",)):
        if curve.rows["epsilon"].nunique() < 3:
            continue  # fewer than 3 values of ε: no n*-vs-ε curve
        rate = _primary(curve.learner, curve.row)
        theory_n = (lambda eps, r=rate: r.n_at(ALPHA, eps)) if rate is not None and rate.n_at is not None else None
        label = f"n*(alpha={ALPHA}) vs epsilon" + (f", {setting_label(curve.key)}" if curve.key else "")
        rows.append(check_n_star(curve.rows, experiment=EXPERIMENT_ID, learner=curve.learner, regime=label, alpha=ALPHA,
                                 beta=BETA, x="epsilon", theory_n=theory_n, reconstructed=_reconstructed(rate),
                                 kind=rate.kind if rate is not None else None, shape_why=SHAPE_WHY.get(curve.learner, "")))
    from dpbench.plotting.decision_lists import common_reps, feature_sweep  # the figure's |F| sweep, the same rows

    for curve in curves(feature_sweep(ok), exclude=("d", "k", "n_features", "problem_id", "log_class_size")):
        if curve.rows["n_features"].nunique() < 3:
            continue
        same_reps = common_reps(curve.rows, "n_features")
        rate = _primary(curve.learner, curve.row)
        eps = float(curve.row["epsilon"])

        def theory_n(fs, learner=curve.learner, row=curve.row, eps=eps):
            at = [_primary(learner, row, n_features=int(round(f))) for f in np.atleast_1d(fs)]
            return np.array([float(np.asarray(r.n_at(ALPHA, eps))) if r is not None and r.n_at is not None else np.nan for r in at])

        label = f"n*(alpha={ALPHA}) vs |F|" + (f", {setting_label(curve.key)}" if curve.key else "")
        rows.append(check_n_star(same_reps, experiment=EXPERIMENT_ID, learner=curve.learner, regime=label, alpha=ALPHA,
                                 beta=BETA, x="n_features", theory_n=theory_n if rate is not None and rate.n_at is not None else None,
                                 reconstructed=_reconstructed(rate), kind=rate.kind if rate is not None else None,
                                 shape_why=SHAPE_WHY.get(curve.learner, "")))
    per = fit_time_per_example(ok)
    for learner, group in per.groupby("learner"):
        timing = group.rename(columns={"seconds_per_example": "y"})
        fit = fit_slope(timing["n_features"], timing["y"], timing["rep"])
        rows.append(slope_row(
            fit, reps=int(timing["rep"].nunique()), note_suffix="; timings under the machine's load at run time",
            experiment=EXPERIMENT_ID, learner=learner, regime="fit time / n vs |F| (largest n of each problem)",
            x="n_features", y="fit_seconds", bound_kind="none",
        ))
    return pd.DataFrame([r for r in rows if r is not None])


#: learners that output a decision list consistent with the sample (realizable): judged by n*(α)
#: against the finite-class bound (dpbench.theory.n_finite_class)
CONSISTENT = ("rivest", "erm")

#: why no bound with constants can be stated for a learner judged by a shape (the shape_only note);
#: every decision-list learner now has one (privdl_composition: dpbench.theory.n_privdl_composition_run)
SHAPE_WHY: dict[str, str] = {}


def _reconstructed(rate) -> bool:
    """Theorem 3.5's shape and the composition ablation's: unit-constant reconstructions."""
    return rate is not None and "reconstructed" in rate.label


def fit_time_per_example(df: pd.DataFrame) -> pd.DataFrame:
    """Per (learner, problem, repetition): ``fit_seconds / n`` at the largest n of that
    problem (columns ``learner, n_features, problem_id, n, rep, seconds_per_example``)."""
    ok = df[df["status"] == "ok"].dropna(subset=["fit_seconds"]) if len(df) else df
    cols = ["learner", "n_features", "problem_id", "n", "rep", "seconds_per_example"]
    if ok.empty:
        return pd.DataFrame(columns=cols)
    top = ok[ok["n"] == ok.groupby(["learner", "problem_id"])["n"].transform("max")]
    top = top.groupby(["learner", "n_features", "problem_id", "n", "rep"], as_index=False)["fit_seconds"].mean()
    return top.assign(seconds_per_example=top["fit_seconds"] / top["n"])[cols]
