"""Experiment ``conjunctions``: private PAC learning of conjunctions (algorithms.md §2).

Learners ``elimination``, ``erm``, ``exp_mech_erm``, ``sq_conjunction``,
``private_sq_conjunction`` and the ``decision_tree`` reference, over a grid of (n, ε).
Theory: :mod:`dpbench.theory.pac` (for ``exp_mech_erm`` in the realizable case the overlay
is :func:`~dpbench.theory.pac.rate_exp_mech_realizable`, 001 §1's proof with a multiplicative
Chernoff step; 001's stated ``8 ln|C|/(α min(α, ε))`` is :func:`~dpbench.theory.pac.rate_exp_mech_pac`,
looser by a factor 1/α once ε ≥ α). Figures: error vs n faceted by ε with theory curves;
empirical sample complexity ``n*(α)`` vs ε with fitted slopes. The theory check fits the
log–log slope of the mean error in n on each curve's learning regime (see
:func:`dpbench.analysis.learning_regime`) and counts cells whose empirical (1−β)-quantile
exceeds the bound.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.analysis import bound_violations, learning_regime, local_exponent, loglog_slope, sample_complexity, summarise, theory_row
from dpbench.experiment import Experiment, Figure, run_batch_cell
from dpbench.registry import register_experiment

#: Failure probability of the high-probability bounds, and the accuracy target of n*(α).
BETA = 0.1
ALPHA = 0.01

#: Whether each learner's rate is a proven bound (cells above it are counted as
#: violations) or an O(·) shape with unit constants (drawn, never counted).
RATE_KIND = {
    "elimination": "bound",
    "erm": "bound",
    "exp_mech_erm": "bound",
    "sq_conjunction": "shape",
    "private_sq_conjunction": "shape",
}


def _m(row: pd.Series) -> int:
    return int(row["d"]) if row["monotone"] else 2 * int(row["d"])


def error_rate(learner: str, n, epsilon: float, row: pd.Series):
    """The catalogue rate of ``learner`` at sizes ``n`` (None where there is none)."""
    log_c, noisy = float(row["log_class_size"]), float(row["noise"]) > 0
    if learner in ("elimination", "erm"):
        if noisy:
            return theory.rate_agnostic_erm(n, log_c, BETA, opt=row["noise"]) if learner == "erm" else None
        return theory.rate_consistent(n, log_c, BETA)
    if learner == "exp_mech_erm":
        if noisy:
            return theory.rate_exp_mech_empirical(n, epsilon, log_c, BETA, opt=row["noise"]) + theory.rate_agnostic_erm(n, log_c, BETA)
        return theory.rate_exp_mech_realizable(n, epsilon, log_c, BETA)
    if learner == "sq_conjunction":
        return theory.rate_sq(n, _m(row))
    if learner == "private_sq_conjunction":
        return theory.rate_private_sq(n, epsilon, _m(row))
    return None


def sample_size_rate(learner: str, epsilon, row: pd.Series):
    """Theoretical ``n(α, ε)`` for the sample-complexity figure."""
    if learner == "exp_mech_erm":
        return theory.n_exp_mech_realizable(ALPHA, epsilon, float(row["log_class_size"]), BETA)
    if learner == "private_sq_conjunction":
        m = _m(row)
        return np.maximum(m * math.log(m) / (np.asarray(epsilon) * ALPHA), math.log(m) / ALPHA**2)
    return None


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    """Per learner and ε: the log–log slope of mean error in n on the learning regime, beside
    the theory curve's own slope over the same n range; bound violations per cell. Per private
    learner: the slope of n*(α) in ε, beside the theoretical n(α, ε)'s slope."""
    rows = []
    ok = df[df["status"] == "ok"]
    for (learner, eps), group in ok.groupby(["learner", "epsilon"], sort=True):
        kind = RATE_KIND.get(learner, "none")
        curve = summarise(group, ["n"]).sort_values("n")
        regime = learning_regime(curve["n"], curve["mean"])
        slope, lo, hi, m = loglog_slope(curve["n"][regime], curve["mean"][regime])
        fitted_n = curve["n"][regime] if regime.any() else curve["n"]
        rate = error_rate(learner, fitted_n.to_numpy(), eps, group.iloc[0])
        exponent = local_exponent(fitted_n, rate) if rate is not None else math.nan
        cells = above = None
        if kind == "bound":
            cells, above = bound_violations(group, ["n", "problem_id"], lambda r: float(np.asarray(error_rate(learner, r["n"], eps, r))), BETA)
        rows.append(
            theory_row(
                experiment="conjunctions", learner=learner, regime=f"epsilon={eps:g}", x="n", y="error",
                fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=exponent,
                n_points=m, bound_kind=kind, cells=cells, cells_above_bound=above,
            )
        )
    sc = sample_complexity(ok[ok["private"] & np.isfinite(ok["epsilon"])], ["learner", "epsilon"], ALPHA, BETA)
    for learner, group in sc.groupby("learner"):
        slope, lo, hi, m = loglog_slope(group["epsilon"], group["n_star"])
        found = group[np.isfinite(group["n_star"])]
        theory_n = sample_size_rate(learner, found["epsilon"].to_numpy(), ok[ok["learner"] == learner].iloc[0])
        rows.append(
            theory_row(
                experiment="conjunctions", learner=learner, regime=f"n*(alpha={ALPHA})", x="epsilon", y="n_star",
                fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, n_points=m, bound_kind="shape",
                theory_exponent=local_exponent(found["epsilon"], theory_n) if theory_n is not None else math.nan,
            )
        )
    return pd.DataFrame(rows)


def figure_error_vs_n(df: pd.DataFrame):
    from dpbench.plotting.common import metric_vs_size

    return metric_vs_size(df, size="n", theory=error_rate, title="Conjunctions: population error vs n")


def _theory_exponent_eps(learner: str, df: pd.DataFrame) -> float:
    """The theoretical n(α, ε)'s log–log slope over the ε where the empirical n* was found."""
    rows = df[(df["learner"] == learner) & (df["status"] == "ok") & np.isfinite(df["epsilon"])]
    sc = sample_complexity(rows, ["epsilon"], ALPHA, BETA)
    eps = sc.loc[np.isfinite(sc["n_star"]), "epsilon"].to_numpy()
    curve = sample_size_rate(learner, eps, rows.iloc[0]) if len(eps) else None
    return local_exponent(eps, curve) if curve is not None else math.nan


def figure_sample_complexity(df: pd.DataFrame):
    from dpbench.plotting.common import sample_complexity_vs_epsilon

    return sample_complexity_vs_epsilon(
        df, alpha=ALPHA, beta=BETA, theory_n=sample_size_rate, theory_exponent=lambda learner: _theory_exponent_eps(learner, df),
        title=f"Conjunctions: n*(α={ALPHA}) vs ε",
    )


EXPERIMENT = register_experiment(
    Experiment(
        id="conjunctions",
        problems=("conjunction",),
        size="n",
        run_cell=run_batch_cell,
        theory_check=theory_check,
        figures={
            "error_vs_n": Figure(
                figure_error_vs_n,
                "Population error (exact for conjunction hypotheses) against the sample size n, one panel per ε; "
                "solid lines are means over repetitions with 95% bands, dashed lines the theoretical rates of "
                "algorithms.md §2 in the learner's colour (non-private learners repeat in every panel).",
            ),
            "sample_complexity": Figure(
                figure_sample_complexity,
                f"Empirical sample complexity n*(α={ALPHA}): the smallest n of the grid at which ≥ {1 - BETA:.0%} of "
                "repetitions reach error ≤ α (bars: Clopper–Pearson), against ε, log–log; dashed: theoretical "
                "n(α, ε); the legend gives the fitted slope next to the theoretical exponent over the same ε range.",
            ),
        },
    )
)
