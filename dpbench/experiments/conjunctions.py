"""Experiment ``conjunctions``: private PAC learning of conjunctions (algorithms.md §2).

Learners ``elimination``, ``erm``, ``exp_mech_erm``, ``sq_conjunction``,
``private_sq_conjunction`` and the ``decision_tree`` reference, over a grid of (n, ε).
Theory: :mod:`dpbench.theory.pac`. Figures: error vs n faceted by ε with theory curves;
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
from dpbench.analysis import bound_violations, learning_regime, loglog_slope, sample_complexity, summarise, theory_row
from dpbench.experiment import Experiment, Figure, run_batch_cell
from dpbench.plotting.common import metric_vs_size, sample_complexity_vs_epsilon
from dpbench.registry import register_experiment

#: Failure probability of the high-probability bounds, and the accuracy target of n*(α).
BETA = 0.1
ALPHA = 0.01

#: Theoretical exponent of error in n on the learning regime, and whether the rate is a
#: proven bound (checked for violations) or an O(·) shape.
EXPONENT_N = {
    "elimination": (-1.0, "bound"),
    "erm": (-1.0, "bound"),
    "exp_mech_erm": (-1.0, "bound"),  # 8 ln|C|/(εn) branch; −½ only once ε ≥ α
    "sq_conjunction": (-0.5, "shape"),
    "private_sq_conjunction": (-1.0, "shape"),
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
        return theory.rate_exp_mech_pac(n, epsilon, log_c)
    if learner == "sq_conjunction":
        return theory.rate_sq(n, _m(row))
    if learner == "private_sq_conjunction":
        return theory.rate_private_sq(n, epsilon, _m(row))
    return None


def sample_size_rate(learner: str, epsilon, row: pd.Series):
    """Theoretical ``n(α, ε)`` for the sample-complexity figure."""
    if learner == "exp_mech_erm":
        return theory.n_exp_mech_pac(ALPHA, epsilon, float(row["log_class_size"]))
    if learner == "private_sq_conjunction":
        m = _m(row)
        return np.maximum(m * math.log(m) / (np.asarray(epsilon) * ALPHA), math.log(m) / ALPHA**2)
    return None


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    ok = df[df["status"] == "ok"]
    for (learner, eps), group in ok.groupby(["learner", "epsilon"], sort=True):
        exponent, kind = EXPONENT_N.get(learner, (math.nan, "none"))
        curve = summarise(group, ["n"]).sort_values("n")
        regime = learning_regime(curve["n"], curve["mean"])
        slope, lo, hi, m = loglog_slope(curve["n"][regime], curve["mean"][regime])
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
        rows.append(
            theory_row(
                experiment="conjunctions", learner=learner, regime=f"n*(alpha={ALPHA})", x="epsilon", y="n_star",
                fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=-1.0, n_points=m, bound_kind="shape",
            )
        )
    return pd.DataFrame(rows)


def figure_error_vs_n(df: pd.DataFrame):
    return metric_vs_size(df, size="n", theory=error_rate, title="Conjunctions: population error vs n")


def figure_sample_complexity(df: pd.DataFrame):
    return sample_complexity_vs_epsilon(
        df, alpha=ALPHA, beta=BETA, theory_n=sample_size_rate, theory_exponent=lambda learner: -1.0,
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
                "n(α, ε); the legend gives the fitted slope next to the theoretical exponent (−1 while ε < α).",
            ),
        },
    )
)
