"""Experiment ``private_erm``: private empirical risk minimisation for regularised logistic
regression (algorithms.md §6; 003 §4–5).

Learners ``output_perturbation``, ``objective_perturbation``, ``dp_gd``, ``dp_sgd``,
``exp_mech_grid`` and the peers ``sklearn_logreg`` (non-private) and ``diffprivlib_logreg``
(private), on the ``logistic`` problem over a grid of (n, d, ε). Every learner minimises
(privately) the same objective ``J_λ`` (:mod:`dpbench.learners.logistic_common`).

Per row: ``error`` (held-out classification error), ``train_error``, ``loss`` =
``J_λ(θ̂; S)`` and ``excess_loss`` = ``J_λ(θ̂; S) − J_λ(θ*; S)`` (θ* the exact minimiser on
the same sample, with the learner's own λ), ``sigma`` (the learner's noise scale),
``updates`` (grid size for ``exp_mech_grid``) and ``fit_seconds`` (without the one-off noise
calibrations of ``dp_gd``/``dp_sgd``, which are cached per process and run before the clock).

Theory (:mod:`dpbench.theory.erm`): the excess empirical risk decays as ``n^{-2}ε^{-2}``
for the perturbation and gradient methods (strongly convex objective) and as
``n^{-1}ε^{-1}`` for the grid exponential mechanism. The theory check fits log–log slopes of
the mean excess risk in n (per learner and ε, on the decaying part of the curve) and in ε
(at the largest n), and counts cells whose empirical 90% quantile exceeds the proven
high-probability bounds of output and objective perturbation (β = 0.1). It also fits the
slope of ``fit_seconds`` in n (theory 1).

Options: none.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.analysis import bound_violations, learning_regime, loglog_slope, summarise, theory_row
from dpbench.experiment import Experiment, Figure, run_batch_cell
from dpbench.grid import Cell
from dpbench.learners.logistic_common import DEFAULT_LAM, objective, optimum, signs, unit_ball
from dpbench.registry import register_experiment

#: Failure probability of the high-probability bounds.
BETA = 0.1

#: Theoretical exponent of the excess empirical risk in n (and in ε), and the kind of rate.
EXPONENT = {
    "output_perturbation": (-2.0, "bound"),
    "objective_perturbation": (-2.0, "bound"),
    "dp_gd": (-2.0, "shape"),
    "dp_sgd": (-2.0, "shape"),
    "exp_mech_grid": (-1.0, "shape"),
    "diffprivlib_logreg": (-2.0, "shape"),  # objective perturbation (CMS11), as ours
}


def _param(row: pd.Series, name: str, default):
    """A learner parameter of a row (parsed from its JSON ``cell_key``), else the default."""
    try:
        return json.loads(row["cell_key"])["learner_params"].get(name, default)
    except (ValueError, KeyError, TypeError):
        return default


def excess_rate(learner: str, n, epsilon: float, row: pd.Series):
    """The catalogue rate of ``learner``'s excess empirical risk at sizes ``n`` (or None)."""
    if not np.isfinite(epsilon):
        return None
    d = int(row["d"])
    lam = float(_param(row, "lam", DEFAULT_LAM))
    delta = float(row["delta"]) if row["delta"] and row["delta"] > 0 else 1e-5
    if learner == "output_perturbation":
        if _param(row, "mechanism", "l2_laplace") == "gaussian":
            return None
        return theory.excess_output_perturbation(n, epsilon, d, lam, BETA)
    if learner in ("objective_perturbation", "diffprivlib_logreg"):
        return theory.excess_objective_perturbation(n, epsilon, d, lam, BETA)
    if learner == "dp_gd":
        return theory.excess_dp_gd(n, epsilon, d, lam, delta)
    if learner == "dp_sgd":
        return theory.excess_dp_sgd(n, epsilon, d, lam, delta)
    if learner == "exp_mech_grid":
        return theory.excess_exp_mech_grid(n, epsilon, d, int(_param(row, "points", 7)), float(_param(row, "radius", 4.0)), BETA)
    return None


# --------------------------------------------------------------------------- cells


def risk_metrics(sample, hypothesis, learner) -> dict:
    """``loss`` = J_λ(θ̂) and ``excess_loss`` = J_λ(θ̂) − J_λ(θ*) on the training sample."""
    theta = getattr(hypothesis, "theta", None)
    if theta is None:
        return {}
    lam = float(getattr(learner, "lam", DEFAULT_LAM))
    _, best = optimum(sample, lam)
    loss = objective(theta, unit_ball(sample.X), signs(sample.y), lam)
    return {"loss": loss, "excess_loss": max(loss - best, 0.0)}


def run_cell(cell: Cell, target, root_seed: int) -> list[dict]:
    """Per repetition: sample n examples (common random numbers), fit, score (see module doc)."""
    return run_batch_cell(cell, target, root_seed, metrics=risk_metrics)


# --------------------------------------------------------------------------- theory check


def main_d(df: pd.DataFrame) -> int:
    """The dimension of the main sweep: the d with the most rows."""
    return int(df["d"].value_counts().idxmax())


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    ok = df[df["status"] == "ok"]
    for (learner, d, eps), group in ok.groupby(["learner", "d", "epsilon"], sort=True):
        exponent, kind = EXPONENT.get(learner, (math.nan, "none"))
        if not np.isfinite(eps) or group["n"].nunique() < 3:
            continue
        curve = summarise(group, ["n"], "excess_loss").sort_values("n")
        regime = learning_regime(curve["n"], curve["mean"])
        slope, lo, hi, m = loglog_slope(curve["n"][regime], curve["mean"][regime])
        cells = above = None
        if kind == "bound":
            cells, above = bound_violations(
                group, ["n", "problem_id"], lambda r: float(np.asarray(excess_rate(learner, r["n"], eps, r))), BETA, metric="excess_loss"
            )
        rows.append(
            theory_row(
                experiment="private_erm", learner=learner, regime=f"d={d}, epsilon={eps:g}", x="n", y="excess_loss",
                fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=exponent,
                n_points=m, bound_kind=kind, cells=cells, cells_above_bound=above,
            )
        )
    # excess risk vs ε at the largest n of the main d
    if len(ok):
        d0 = main_d(ok)
        main = ok[(ok["d"] == d0) & ok["private"] & np.isfinite(ok["epsilon"])]
        for learner, group in main.groupby("learner"):
            n_max = group["n"].max()
            curve = summarise(group[group["n"] == n_max], ["epsilon"], "excess_loss").sort_values("epsilon")
            slope, lo, hi, m = loglog_slope(curve["epsilon"], curve["mean"])
            exponent, _ = EXPONENT.get(learner, (math.nan, "none"))
            rows.append(
                theory_row(
                    experiment="private_erm", learner=learner, regime=f"d={d0}, n={n_max}", x="epsilon", y="excess_loss",
                    fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=exponent, n_points=m, bound_kind="shape",
                )
            )
        # running time vs n (one ε per learner, main d)
        for learner, group in ok[ok["d"] == d0].groupby("learner"):
            eps0 = sorted(group["epsilon"].unique(), key=lambda e: abs(math.log(e)) if np.isfinite(e) else 1e9)[0]
            curve = summarise(group[group["epsilon"] == eps0], ["n"], "fit_seconds").sort_values("n")
            slope, lo, hi, m = loglog_slope(curve["n"], curve["mean"])
            rows.append(
                theory_row(
                    experiment="private_erm", learner=learner, regime=f"d={d0}, epsilon={eps0:g}", x="n", y="fit_seconds",
                    fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=1.0, n_points=m, bound_kind="shape",
                )
            )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- figures


def _figures():
    from dpbench.plotting import private_erm as plots

    return plots


def figure_error_vs_epsilon(df: pd.DataFrame):
    return _figures().error_vs_epsilon(df, theory_curve=excess_rate)


def figure_error_vs_n(df: pd.DataFrame):
    return _figures().error_vs_n(df, theory_curve=excess_rate)


def figure_runtime(df: pd.DataFrame):
    return _figures().runtime(df)


EXPERIMENT = register_experiment(
    Experiment(
        id="private_erm",
        problems=("logistic", "halfspace"),
        size="n",
        run_cell=run_cell,
        theory_check=theory_check,
        figures={
            "error_vs_epsilon": Figure(
                figure_error_vs_epsilon,
                "Private logistic regression at the largest n of the grid: held-out test error (left) and excess "
                "empirical risk J_λ(θ̂) − J_λ(θ*) (right) against ε, mean over repetitions with 95% bands, peers "
                "(scikit-learn non-private as a dotted line; diffprivlib's private LogisticRegression) included; "
                "dashed: the theoretical rates of dpbench.theory.erm; the legend gives the fitted slope in ε "
                "beside the theoretical exponent.",
            ),
            "error_vs_n": Figure(
                figure_error_vs_n,
                "Test error (top) and excess empirical risk (bottom) against the sample size n, one column per ε, "
                "log–log; solid: means with 95% bands; dashed: the theoretical excess-risk rates (proven "
                "high-probability bounds for output/objective perturbation, unit-constant shapes otherwise); the "
                "legend gives each learner's fitted slope in n beside the theoretical exponent.",
            ),
            "runtime": Figure(
                figure_runtime,
                "Fit time per learner against n (left, main dimension) and against d (right, exp_mech_grid's "
                "g^d grid grows exponentially), log–log / log-linear; dashed: the cost models n·d·T and n·g^d "
                "scaled to the data.",
            ),
        },
        test_size=200,
    )
)
