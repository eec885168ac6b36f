"""Experiment ``private_erm``: private empirical risk minimisation for regularised logistic
regression ([CMS11]; [BST14]; [ACG16]).

Learners ``output_perturbation``, ``objective_perturbation``, ``dp_gd``, ``dp_sgd``,
``exp_mech_grid`` and the peers ``sklearn_logreg`` (non-private) and ``diffprivlib_logreg``
(private), on the ``logistic`` problem over a grid of (n, d, ε). Every learner minimises
(privately) the same objective :math:`J_\\lambda` (:mod:`dpbench.learners.logistic_common`).

Per row: ``error`` (held-out classification error), ``train_error``, ``loss`` =
:math:`J_\\lambda(\\hat\\theta; S)` and ``excess_loss`` = :math:`J_\\lambda(\\hat\\theta; S) -
J_\\lambda(\\theta^*; S)` (θ* the exact minimiser on the same sample, with the learner's own
λ), ``pop_excess_loss`` (the excess *population* risk of the same objective on the problem's
law, by quadrature: :func:`population_metrics`), ``sigma`` (the learner's noise scale), ``updates`` (grid size for ``exp_mech_grid``) and
``fit_seconds`` (without the one-off noise calibrations of ``dp_gd``/``dp_sgd``, which are
cached per process and run before the clock).

Theory (:func:`dpbench.theory.erm_rate_of`): the excess empirical risk decays as
:math:`n^{-2}\\varepsilon^{-2}` for the perturbation and gradient methods (strongly convex
objective; proven high-probability bounds for output and objective perturbation, β = 0.1,
unit-constant shapes otherwise) and as :math:`n^{-1}\\varepsilon^{-1}` for the grid
exponential mechanism. The trivial predictor θ = 0 has excess risk
:math:`\\ln 2 - J_\\lambda(\\theta^*)` (:func:`dpbench.theory.trivial_excess_of`).

Theory check: :mod:`dpbench.experiments.checks.private_erm`. Figures: :mod:`dpbench.plotting.private_erm`.

Options: none.
"""

from __future__ import annotations

from dpbench.experiments.base import Experiment, Figure, run_batch_cell
from dpbench.foundation.cell import Cell
from dpbench.foundation.registry import register_experiment
from dpbench.problems.logistic import LogisticTarget
from dpbench.theory.logistic_objective import DEFAULT_LAM, objective, optimum, projected
from dpbench.theory.logistic_population import excess_population_risk

# --------------------------------------------------------------------------- cells


def risk_metrics(sample, hypothesis, learner) -> dict:
    """``loss`` = J_λ(θ̂) and ``excess_loss`` = J_λ(θ̂) − J_λ(θ*) on the training sample."""
    theta = getattr(hypothesis, "theta", None)
    if theta is None:
        return {}
    lam = float(getattr(learner, "lam", DEFAULT_LAM))
    _, best = optimum(sample, lam)
    X, s, _ = projected(sample)
    loss = objective(theta, X, s, lam)
    return {"loss": loss, "excess_loss": max(loss - best, 0.0)}


def population_metrics(target, hypothesis, learner) -> dict:
    """``pop_excess_loss``: the excess **population** risk :math:`F_\\lambda(\\hat\\theta) -
    \\min F_\\lambda` of the same regularised objective on the ``logistic`` problem's law, by
    quadrature (:func:`dpbench.theory.logistic_population.excess_population_risk`: no sampling
    error). Empty for another target or a hypothesis without ``theta``."""
    theta = getattr(hypothesis, "theta", None)
    if theta is None or not isinstance(target, LogisticTarget):
        return {}
    lam = float(getattr(learner, "lam", DEFAULT_LAM))
    return {"pop_excess_loss": excess_population_risk(theta, target.w, rho=target.rho, noise=target.noise, lam=lam)}


def run_cell(cell: Cell, target, root_seed: int) -> list[dict]:
    """Per repetition: sample n examples (common random numbers), fit, score (see module doc)."""

    def metrics(sample, hypothesis, learner) -> dict:
        return {**risk_metrics(sample, hypothesis, learner), **population_metrics(target, hypothesis, learner)}

    return run_batch_cell(cell, target, root_seed, metrics=metrics)


_CAPTION_THEORY = (
    "Theory lines in the learner's colour (legend): the proven high-probability bounds (β = 0.1) of output and "
    "objective perturbation (dashed; checked against the data in the theory CSV), unit-constant shapes for dp_gd, "
    "dp_sgd (d·ln(1/δ)/(λn²ε²), BST14), diffprivlib (objective perturbation's bound) "
    "and exp_mech_grid (MT07, relative to the best grid point). Grey line: the excess risk "
    "ln 2 − J(θ*) of the trivial predictor θ = 0; triangle on the axis: where a theory line "
    "drops below it (learning starts)."
)

EXPERIMENT = register_experiment(
    Experiment(
        id="private_erm",
        problems=("logistic", "halfspace"),
        size="n",
        run_cell=run_cell,
        theory_check="dpbench.experiments.checks.private_erm:theory_check",
        figures={
            "error_vs_epsilon": Figure(
                "dpbench.plotting.private_erm:error_vs_epsilon",
                "Private logistic regression at the largest n of the main grid: held-out test error (left) and excess "
                "empirical risk J(θ̂) − J(θ*) of the λ-regularised logistic objective J (right) against ε, log–log; means over "
                "repetitions with 95% bootstrap bands over repetitions (none with fewer than 5); the peers are included "
                "(scikit-learn, non-private, as a horizontal line; diffprivlib's private LogisticRegression where the peers extra is installed, its cells skipped otherwise). Grey line: "
                "the trivial predictor (test error ½; excess risk ln 2 − J(θ*)). Theory lines as in "
                "error_vs_n, at the same n.",
            ),
            "error_vs_n": Figure(
                "dpbench.plotting.private_erm:error_vs_n",
                "Excess empirical risk J(θ̂) − J(θ*) of the λ-regularised logistic objective J against the sample size n, one "
                "panel per ε and dimension d, log–log; means over repetitions with 95% bootstrap bands over repetitions "
                "(none with fewer than 5); scikit-learn (non-private) is exact up to rounding and is not drawn. "
                + _CAPTION_THEORY,
            ),
            "runtime": Figure(
                "dpbench.plotting.private_erm:runtime",
                "Fit time per learner (ε closest to 1) against n at the main dimension (left) and against d (right, "
                "where the grid has a d sweep: exp_mech_grid's g^d candidates grow exponentially), means over "
                "repetitions; dashed: the cost models ∝ n·d·T and ∝ n·d·g^d (dpbench.theory.runtime_linear) scaled "
                "to the last point. Noise calibrations (cached, one-off) are not timed.",
            ),
        },
        test_size=200,
    )
)
