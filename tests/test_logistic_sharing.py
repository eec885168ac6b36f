"""Work the private-ERM cells of a shard share through the sample's cache: the projection
onto the unit ball, θ* (output perturbation's and the excess-risk metric's), and how
``fit_seconds`` counts what a fit reused."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from dpbench.foundation import registry
from dpbench.problems.base import Sample
from dpbench.problems.logistic import LogisticProblem
from dpbench.theory.logistic_objective import minimise, optimum, projected, signs, unit_ball


def _sample(n=400, d=4, scale=1.0):
    target = LogisticProblem(d=d, rho=0.05).draw_target(rng=np.random.default_rng(0))
    s = target.sample(n, rng=np.random.default_rng(1))
    return Sample(s.X * scale, s.y)


def test_projection_is_the_sample_itself_inside_the_ball_and_a_copy_outside():
    inside = _sample()
    X, s, norms = projected(inside)
    assert X is inside.X or np.shares_memory(X, inside.X)
    np.testing.assert_array_equal(X, unit_ball(inside.X))
    np.testing.assert_array_equal(s, signs(inside.y))
    np.testing.assert_array_equal(norms, np.linalg.norm(X, axis=1))
    outside = _sample(scale=3.0)
    X2, _, norms2 = projected(outside)
    assert not np.shares_memory(X2, outside.X)
    np.testing.assert_array_equal(X2, outside.X * np.where(np.linalg.norm(outside.X, axis=1) > 1, 1 / np.linalg.norm(outside.X, axis=1), 1.0)[:, None])
    np.testing.assert_array_equal(norms2, np.linalg.norm(X2, axis=1))
    assert projected(outside) is projected(outside)  # computed once


@pytest.mark.parametrize("name", ["output_perturbation", "objective_perturbation", "dp_gd", "dp_sgd", "sklearn_logreg", "diffprivlib_logreg", "exp_mech_grid"])
def test_fits_leave_the_shared_sample_as_it_was(name):
    sample = _sample(scale=1.0)
    before = sample.X.copy(), sample.y.copy()
    params = {"epsilon": 1.0, "delta": 1e-6} if name in ("dp_gd", "dp_sgd") else ({} if name == "sklearn_logreg" else {"epsilon": 1.0})
    if name in ("dp_gd", "dp_sgd"):
        params["steps"] = 10
    learner = registry.learner(name)(**params)
    if learner.supports(LogisticProblem(d=4).draw_target(rng=np.random.default_rng(0))) is not None:
        pytest.skip("peer not installed")
    learner.fit(sample, rng=np.random.default_rng(2))
    np.testing.assert_array_equal(sample.X, before[0])
    np.testing.assert_array_equal(sample.y, before[1])


def test_output_perturbation_adds_its_noise_to_the_exact_minimiser():
    sample = _sample()
    learner = registry.learner("output_perturbation")(epsilon=1.0)
    theta, b = learner.release(sample, rng=np.random.default_rng(3))
    X, s, _ = projected(sample)
    np.testing.assert_array_equal(theta, minimise(X, s, learner.lam) + b)
    assert optimum(sample, learner.lam)[0] is sample.cache[f"logistic_optimum_lam={learner.lam!r}"][0]


def test_a_cache_hit_charges_the_first_computation_seconds():
    sample = _sample()

    def slow():
        time.sleep(0.05)
        return 1

    assert sample.cached("slow", slow) == 1 and sample.reused_seconds == 0.0
    assert sample.cached("slow", slow) == 1
    assert sample.reused_seconds >= 0.05 and math.isclose(sample.reused_seconds, sample.cache_seconds["slow"])


def test_fit_seconds_do_not_depend_on_which_cell_computed_the_optimum_first():
    """output_perturbation's fit reuses θ*: its fit_seconds include θ*'s computation whether
    its own cell or an earlier one computed it (the runtime figure and the fit-time slope)."""
    from dpbench.experiments.base import draw_target, run_batch_cell
    from dpbench.foundation.cell import Cell, freeze

    def cell(learner, eps):
        return Cell(experiment="private_erm", problem="logistic", problem_params=freeze({"d": 50, "rho": 0.01, "noise": 0.0}),
                    learner=learner, learner_params=(), epsilon=eps, delta=1e-6, size=20000, repetitions=2, first_rep=7000)  # fmt: skip

    target = draw_target(cell("output_perturbation", 1.0), 1)
    first = run_batch_cell(cell("output_perturbation", 1.0), target, 1)
    second = run_batch_cell(cell("output_perturbation", 2.0), target, 1)  # θ* cached by the first cell
    for a, b in zip(first, second):
        assert b["fit_seconds"] > 0.3 * a["fit_seconds"]
