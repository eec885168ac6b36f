"""The excess population risk of private ERM by quadrature
(:mod:`dpbench.theory.logistic_population`): against Monte Carlo on the problem's own
sampler, against more nodes, and its minimiser against the exact minimiser of a large sample."""

from __future__ import annotations

import numpy as np
import pytest

from dpbench.problems.logistic import LogisticProblem
from dpbench.theory.logistic_objective import minimise, objective, projected
from dpbench.theory.logistic_population import excess_population_risk, population_objective, population_optimum

LAM = 0.01


@pytest.mark.parametrize("d, rho, noise", [(1, 0.01, 0.0), (2, 0.01, 0.0), (10, 0.01, 0.0), (3, 0.2, 0.1)])
def test_quadrature_matches_monte_carlo_on_the_problem_sampler(d, rho, noise):
    target = LogisticProblem(d=d, rho=rho, noise=noise).draw_target(rng=np.random.default_rng(1))
    X, s, _ = projected(target.sample(400_000, rng=np.random.default_rng(2)))
    rng = np.random.default_rng(3)
    for theta in (np.zeros(d), 4 * target.w, 4 * target.w + rng.normal(size=d), 30 * rng.normal(size=d)):
        losses = np.logaddexp(0.0, -s * (X @ theta))
        mc, se = losses.mean() + 0.5 * LAM * theta @ theta, losses.std() / np.sqrt(len(losses))
        quad = population_objective(theta, target.w, rho=rho, noise=noise, lam=LAM)
        assert abs(quad - mc) < 4 * se + 1e-12, (theta, quad, mc, se)
    # the comparison can fail: the law of another margin is told apart at the same tolerance
    theta = 4 * target.w + rng.normal(size=d)
    losses = np.logaddexp(0.0, -s * (X @ theta))
    wrong = population_objective(theta, target.w, rho=rho + 0.1, noise=noise, lam=LAM)
    assert abs(wrong - (losses.mean() + 0.5 * LAM * theta @ theta)) > 4 * losses.std() / np.sqrt(len(losses))


def test_quadrature_converged_and_minimiser_is_the_large_sample_minimiser():
    d, rho = 10, 0.01
    target = LogisticProblem(d=d, rho=rho).draw_target(rng=np.random.default_rng(4))
    rng = np.random.default_rng(5)
    a, best = population_optimum(d, rho, 0.0, LAM)
    for scale in (1e-2, 1.0, 60.0):
        theta = a * target.w + scale * rng.normal(size=d) / np.sqrt(d)
        e = excess_population_risk(theta, target.w, rho=rho, noise=0.0, lam=LAM)
        assert e > 0 and e == pytest.approx(excess_population_risk(theta, target.w, rho=rho, noise=0.0, lam=LAM, nodes=384), rel=1e-6)
    X, s, _ = projected(target.sample(400_000, rng=np.random.default_rng(6)))
    theta_m = minimise(X, s, LAM)
    assert np.linalg.norm(theta_m - a * target.w) < 0.05 * a  # the sample minimiser is near a*·w
    assert objective(a * target.w, X, s, LAM) - objective(theta_m, X, s, LAM) < 1e-4
