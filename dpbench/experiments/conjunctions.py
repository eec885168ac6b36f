"""Experiment ``conjunctions``: private PAC learning of conjunctions ([KLNRS11]; [DR14, §11.1]).

Learners ``elimination``, ``erm``, ``exp_mech_erm``, ``sq_conjunction``,
``private_sq_conjunction`` and the ``decision_tree`` reference, over a grid of (n, ε) and
any sweep of the problem (d, noise, …). Theory: :func:`dpbench.theory.conjunction_rates`
gives every learner's curves in one setting — for ``exp_mech_erm`` the derived bound
(:func:`~dpbench.theory.pac.rate_exp_mech_realizable`, compared with the data) beside the
course notes' stated ([NotesPAC, §1]) ``8 ln|C|/(α min(α, ε))`` (drawn, labelled); for ``private_sq_conjunction`` the
rate of the learner as run (tolerance τ = α/(2m), so learning starts only at
n₀ = 2m ln(m/β)/(ε₀α), :func:`~dpbench.theory.pac.rate_private_sq_run`).

Theory check (:mod:`dpbench.analysis`): one row per curve (learner × every setting that
varies), the slope of error in n fitted on repetitions over the points clearly below the
trivial predictor's error, bounds checked on the (1−β)-quantile over repetitions (they hold
w.p. ≥ 1 − β), and a status; per private learner and setting, the slope of n*(α) in ε.
Figures: :mod:`dpbench.plotting.conjunctions`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.analysis import check_curve, curve_status, curves, sample_complexity_slope, local_exponent, setting_label, theory_row
from dpbench.experiment import Experiment, Figure, run_batch_cell
from dpbench.registry import register_experiment

BETA, ALPHA = theory.CONJUNCTIONS_BETA, theory.CONJUNCTIONS_ALPHA
rates, trivial_error = theory.conjunction_rates_of, theory.trivial_error_of


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    """Per curve: slope of error in n on repetitions beside the primary rate's local exponent,
    bound cells at the 1 − β level, status. Per private learner and setting: slope of n*(α)
    in ε beside the primary rate's n(α, ε)."""
    rows = []
    for curve in curves(df):
        primary = [r for r in rates(curve.learner, curve.row) if r.primary]
        rate = primary[0] if primary else None
        rows.append(
            check_curve(
                curve, experiment="conjunctions", x="n", y="error", rate=rate.error if rate else None,
                kind=rate.kind if rate else "none", trivial=trivial_error(curve.row), holds_with=1 - BETA,
            )
        )
    ok = df[(df["status"] == "ok") & df["private"] & np.isfinite(df["epsilon"])] if len(df) else df
    for curve in curves(ok, exclude=("epsilon",)):
        fit = sample_complexity_slope(curve.rows, alpha=ALPHA, beta=BETA)
        primary = [r for r in rates(curve.learner, curve.row) if r.primary and r.n_at is not None]
        exponent = math.nan
        if primary and np.isfinite(fit.x_min):
            eps = np.geomspace(fit.x_min, fit.x_max, 16)
            exponent = local_exponent(eps, primary[0].n_at(ALPHA, eps))
        status, note = curve_status(n_values=len(curve.rows), fit=fit)
        if status == "too_few_points":
            note = f"n*(α={ALPHA}) found at {fit.n_points} ε of the grid; a slope needs ≥ 3"
        rows.append(
            theory_row(
                experiment="conjunctions", learner=curve.learner, regime=f"n*(alpha={ALPHA})" + (f", {setting_label(curve.key)}" if curve.key else ""),
                x="epsilon", y="n_star", fitted_slope=fit.slope, slope_ci_low=fit.low, slope_ci_high=fit.high,
                theory_exponent=exponent, n_points=fit.n_points, bound_kind="shape", status=status, note=note,
                x_min=fit.x_min, x_max=fit.x_max,
            )
        )
    return pd.DataFrame(rows)


_CAPTION_RATES = (
    "Theory lines in the learner's colour (legend): consistent learners' Occam bound (Blumer et al. 1987, β = 0.1); for exp_mech_erm "
    "the bound derived with a multiplicative Chernoff step (dashed; compared with the data in the theory check) and "
    "the course notes' stated 8 ln|C|/(α·min(α, ε)) (after Kasiviswanathan et al. 2011; dotted); for private_sq_conjunction the rate of the learner "
    "as run (tolerance τ = α/(2m), Laplace noise Lap(m/(εn))), which starts only at n₀ = 2m² ln(m/β)/(εα) "
    "(triangle on the axis: where a theory says learning starts). Grey horizontal line: the best constant "
    "predictor's error."
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
                "dpbench.plotting.conjunctions:error_vs_n",
                "Population error (exact for conjunction hypotheses) against the sample size n, one panel per ε "
                "(and per problem setting when a sweep varies one); lines are means over repetitions with 95% "
                "bootstrap bands over repetitions (no band with fewer than 5 repetitions); non-private learners "
                "repeat in every panel; a mean error of exactly 0 is a marker on the lower axis. " + _CAPTION_RATES,
            ),
            "sample_complexity": Figure(
                "dpbench.plotting.conjunctions:sample_complexity",
                f"Empirical sample complexity n*(α={ALPHA}): the smallest n of the grid at which ≥ {1 - BETA:.0%} of "
                "repetitions reach error ≤ α (bars: Clopper–Pearson 95%), against ε, log–log; an ε at which the grid "
                "never gets there is a marker on the upper axis. Lines: theoretical n(α, ε) — exp_mech_erm's derived "
                "bound (dashed) and the course notes' 8 ln|C|/(α·min(α, ε)) (dotted); private_sq_conjunction's rate as run "
                "never reaches α below its floor α_SQ/2 and is not drawn. The legend gives the slope of n* in ε "
                "(95% bootstrap over repetitions) beside the theory's exponent over the same range.",
            ),
        },
    )
)
