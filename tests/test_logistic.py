"""The ``logistic`` problem and the private-ERM learners: geometry of the samples, the exact
solver, exact privacy accounting (calibrations and sensitivities), and the ε → ∞
consistency of every private learner with the non-private optimum."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import LogisticRegression

from dpbench.learners.exp_mech_grid import ExpMechGrid, grid, score_sensitivity
from dpbench.learners.logistic_common import (
    calibrate_gd,
    calibrate_sgd,
    gd_epsilon,
    minimise,
    objective,
    optimum,
    sgd_epsilon,
    signs,
    unit_ball,
)
from dpbench.learners.objective_perturbation import calibration as objpert_calibration
from dpbench.learners.output_perturbation import sensitivity
from dpbench.problems.logistic import LogisticProblem

LAM = 0.01


def _learner(name: str):
    """The learner class, imported directly (the registry would import every module)."""
    import importlib

    module = importlib.import_module(f"dpbench.learners.{name}")
    return next(v for v in vars(module).values() if getattr(v, "name", None) == name and isinstance(v, type))


def _target(d=5, rho=0.05, noise=0.0, seed=0):
    return LogisticProblem(d=d, rho=rho, noise=noise).draw_target(rng=np.random.default_rng(seed))


# ----------------------------------------------------------------------- problem


def test_samples_lie_in_the_unit_ball_with_margin_and_clean_labels():
    target = _target(d=7, rho=0.1)
    s = target.sample(5000, rng=np.random.default_rng(1))
    assert np.all(np.linalg.norm(s.X, axis=1) <= 1 + 1e-12)
    margins = s.X @ target.w
    assert np.all(np.abs(margins) >= 0.1 - 1e-12)
    np.testing.assert_array_equal(s.y, (margins > 0).astype(np.uint8))


def test_label_noise_rate():
    """Flip frequency over 20 000 examples vs η = 0.1: two-sided binomial test, false-alarm 1e-6."""
    target = _target(d=4, rho=0.0, noise=0.1)
    s = target.sample(20_000, rng=np.random.default_rng(2))
    flips = int(np.sum(s.y != (s.X @ target.w > 0)))
    assert stats.binomtest(flips, 20_000, 0.1).pvalue > 1e-6


def test_problem_rejects_bad_parameters():
    for bad in (dict(rho=1.0), dict(rho=-0.1), dict(noise=0.5), dict(d=0)):
        with pytest.raises((ValueError, TypeError), match=next(iter(bad))):
            LogisticProblem(**bad)


# ----------------------------------------------------------------------- solver


def test_minimise_matches_sklearn_on_the_same_objective():
    s = _target(d=6, rho=0.0, noise=0.1).sample(2000, rng=np.random.default_rng(3))
    X, sg = unit_ball(s.X), signs(s.y)
    theta = minimise(X, sg, LAM)
    ref = LogisticRegression(C=1 / (len(sg) * LAM), fit_intercept=False, tol=1e-10, max_iter=10_000).fit(X, s.y).coef_.ravel()
    np.testing.assert_allclose(theta, ref, atol=1e-5)
    assert objective(theta, X, sg, LAM) <= objective(ref, X, sg, LAM) + 1e-12


# ----------------------------------------------------------------------- accounting


@pytest.mark.parametrize("eps,steps", [(0.3, 50), (1.0, 200), (8.0, 10)])
def test_dp_gd_calibration_meets_the_target_tightly(eps, steps):
    """Composed ε of the calibrated noise is ≤ target, and 0.3% less noise would exceed it."""
    z, achieved = calibrate_gd(eps, 1e-5, steps)
    assert achieved == gd_epsilon(z, steps, 1e-5) <= eps
    assert gd_epsilon(z * 0.997, steps, 1e-5) > eps
    learner = _learner("dp_gd")(epsilon=eps, delta=1e-5, steps=steps)
    assert learner.guarantee().epsilon == achieved and learner.guarantee().delta == 1e-5


@pytest.mark.parametrize("eps,q,steps", [(1.0, 0.05, 100), (3.0, 0.2, 50)])
def test_dp_sgd_calibration_meets_the_target_tightly(eps, q, steps):
    z, achieved = calibrate_sgd(eps, 1e-5, q, steps)
    assert achieved == sgd_epsilon(z, q, steps, 1e-5) <= eps
    assert sgd_epsilon(z * 0.997, q, steps, 1e-5) > eps
    g = _learner("dp_sgd")(epsilon=eps, delta=1e-5).guarantee()
    assert (g.epsilon, g.delta, g.neighbours) == (eps, 1e-5, "replace-one")  # n public (issue 10 defect 2)


def test_objective_perturbation_calibration_is_cms_algorithm_2():
    eps, n, lam, c = 1.0, 1000, 0.01, 0.25
    eps_prime, extra = objpert_calibration(eps, n, lam)
    assert eps_prime == pytest.approx(eps - math.log(1 + 2 * c / (n * lam) + c**2 / (n * lam) ** 2), rel=1e-14) and extra == 0.0
    eps_prime, extra = objpert_calibration(0.05, 100, 0.001)  # ε' ≤ 0: extra regularisation
    assert eps_prime == 0.025 and extra == pytest.approx(c / (100 * math.expm1(0.05 / 4)) - 0.001)


def test_output_perturbation_sensitivity_holds_on_worst_case_neighbours():
    """‖θ*(D) − θ*(D')‖ ≤ 2/(nλ) for neighbours differing in one (adversarially chosen) example."""
    rng = np.random.default_rng(4)
    base = _target(d=3, rho=0.0, noise=0.2).sample(50, rng=rng)
    X, s = unit_ball(base.X), signs(base.y)
    theta = minimise(X, s, LAM)
    worst = 0.0
    for _ in range(30):
        X2, s2 = X.copy(), s.copy()
        X2[0] = rng.standard_normal(3)
        X2[0] /= np.linalg.norm(X2[0])
        s2[0] = -s[0]
        worst = max(worst, np.linalg.norm(minimise(X2, s2, LAM) - theta))
    assert worst <= sensitivity(50, LAM)


def test_exp_mech_grid_score_sensitivity_holds():
    rng = np.random.default_rng(5)
    learner = ExpMechGrid(epsilon=1.0, points=5, radius=3.0)
    cands = grid(3, 5, 3.0)
    X = unit_ball(rng.standard_normal((40, 3)))
    s = np.sign(rng.standard_normal(40))
    u = learner.scores(X, s, cands)
    bound = score_sensitivity(3, 3.0)
    for _ in range(20):
        X2, s2 = X.copy(), s.copy()
        X2[3] = unit_ball(rng.standard_normal((1, 3)) * 5)[0]
        s2[3] = -s2[3]
        assert np.max(np.abs(learner.scores(X2, s2, cands) - u)) <= bound + 1e-9


# ----------------------------------------------------------------------- ε → ∞


@pytest.mark.parametrize(
    "name,params,tol",
    [
        ("output_perturbation", {}, 1e-8),
        ("objective_perturbation", {}, 1e-8),
        ("dp_gd", {"delta": 0.0, "steps": 600}, 1e-4),
        ("dp_sgd", {"delta": 0.0, "steps": 2000, "batch_size": 200}, 0.05),
        ("diffprivlib_logreg", {}, 1e-3),
    ],
)
def test_infinite_epsilon_recovers_the_non_private_optimum(name, params, tol):
    """At ε = ∞ each private learner returns θ* of J_λ (up to its optimiser's accuracy)."""
    sample = _target(d=4, rho=0.0, noise=0.1).sample(1000, rng=np.random.default_rng(6))
    theta_star, _ = optimum(sample, LAM)
    learner = _learner(name)(epsilon=math.inf, **params)
    theta = learner.fit(sample, rng=np.random.default_rng(7)).theta
    assert np.linalg.norm(theta - theta_star) <= tol * max(1.0, np.linalg.norm(theta_star))


def test_exp_mech_grid_at_infinite_epsilon_is_the_grid_argmin():
    sample = _target(d=2).sample(300, rng=np.random.default_rng(8))
    learner = ExpMechGrid(epsilon=math.inf, points=9, radius=4.0)
    X, s = unit_ball(sample.X), signs(sample.y)
    cands = grid(2, 9, 4.0)
    best = cands[np.argmax(learner.scores(X, s, cands))]
    np.testing.assert_array_equal(learner.fit(sample, rng=np.random.default_rng(0)).theta, best)


def test_exp_mech_grid_is_skipped_beyond_max_candidates():
    learner = ExpMechGrid(epsilon=1.0, points=7, max_candidates=1000)
    assert learner.supports(_target(d=3)) is None
    assert "candidates" in learner.supports(_target(d=4))


def test_output_perturbation_high_probability_bound():
    """J_λ(θ̂) − J_λ(θ*) ≤ excess_output_perturbation(β = 0.1) fails in at most a β share of
    runs: over 200 runs, more than 44 failures has probability < 1e-6 under Bin(200, 0.1)."""
    from dpbench.theory import excess_output_perturbation

    sample = _target(d=5, rho=0.0).sample(400, rng=np.random.default_rng(9))
    X, s = unit_ball(sample.X), signs(sample.y)
    theta_star, best = optimum(sample, LAM)
    learner = _learner("output_perturbation")(epsilon=1.0)
    bound = excess_output_perturbation(400, 1.0, 5, LAM, 0.1)
    rng = np.random.default_rng(10)
    fails = sum(objective(theta_star + learner.noise(400, 5, rng=rng), X, s, LAM) - best > bound for _ in range(200))
    assert stats.binom.sf(44, 200, 0.1) < 1e-6
    assert fails <= 44


def test_log_loss_kernel_matches_logaddexp_entry_by_entry():
    """The compiled softplus agrees with np.logaddexp(0, −m) to a few ulp over the whole range
    (|m| up to 700, both signs, 0), and the sums over a sample to 1e-15 relative."""
    from dpbench.learners.log_loss_kernel import log_loss_sums, reference_log_loss_sums

    rng = np.random.default_rng(11)
    m = np.concatenate([rng.normal(size=20_000) * 5, np.linspace(-60, 60, 4001), [0.0, 1e-300, -700.0, 700.0]])
    ours = log_loss_sums(np.ones((1, 1)), m[:, None])  # one example: each candidate's sum is one entry
    ref = np.logaddexp(0.0, -m)
    assert np.max(np.abs(ours - ref) / ref) < 8e-16
    Z, C = rng.normal(size=(500, 3)) / 2, rng.normal(size=(1500, 3)) * 2
    np.testing.assert_allclose(log_loss_sums(Z, C), reference_log_loss_sums(Z, C), rtol=1e-15, atol=0)
    # the check can fail: a sum missing one example is far outside the tolerance
    assert not np.allclose(log_loss_sums(Z[1:], C), reference_log_loss_sums(Z, C), rtol=1e-15, atol=0)


@pytest.mark.parametrize("runs, n, q", [(200_000, 2, 0.5), (20_000, 7, 0.9), (50_000, 100, 0.0256), (5_000, 2_000, 0.05)])
def test_poisson_mask_is_independent_bernoulli(runs, n, q):
    """Every entry of :func:`poisson_mask` is Bernoulli(q), independently: each index's and
    each adjacent pair's frequency within 5 standard errors, and a row's count has the
    binomial variance nq(1 − q) (to 5 %)."""
    from dpbench.learners.logistic_common import poisson_mask

    mask = poisson_mask(runs, n, q, np.random.default_rng(7))
    assert mask.shape == (runs, n) and mask.dtype == bool
    freq = mask.mean(axis=0)
    assert np.all(np.abs(freq - q) <= 5 * math.sqrt(q * (1 - q) / runs))
    pair = (mask[:, :-1] & mask[:, 1:]).mean(axis=0)
    assert np.all(np.abs(pair - q * q) <= 5 * math.sqrt(q * q * (1 - q * q) / runs))
    assert abs(mask.sum(axis=1).var() / (n * q * (1 - q)) - 1) < 0.05


class _Gaps:
    """A stand-in generator: its first block of uniforms gives row 0 huge gaps and row 1
    gaps of 1; every later block (drawn for the rows still short of n) gaps of 1."""

    def __init__(self):
        self.calls = 0

    def random(self, size):
        u = np.zeros(size)  # U = 0: gap 1
        if self.calls == 0:
            u[0] = 1 - 1e-12  # gap 1 + ⌊ln(1e-12)/ln(1 − q)⌋: past any n here
        self.calls += 1
        return u


def test_poisson_mask_continues_each_row_from_its_own_last_position():
    """A row whose first block of gaps ends below n draws further blocks (here row 1: gaps
    of 1, so every index; several blocks), and only that row: row 0 (one huge gap) stays
    empty whatever the blocks drawn for row 1."""
    from dpbench.learners.logistic_common import poisson_mask

    rng = _Gaps()
    mask = poisson_mask(2, 200, 0.01, rng)
    assert not mask[0].any() and mask[1].all() and rng.calls > 2
