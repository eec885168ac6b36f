"""The conjunction problem and the PAC learners of docs/catalogue.md, with real numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbench import theory
from dpbench.audits.engine import mean_error
from dpbench.learners.decision_tree import DecisionTree
from dpbench.learners.elimination import Elimination
from dpbench.learners.erm import ERM
from dpbench.learners.exp_mech_erm import ExpMechERM
from dpbench.learners.private_sq_conjunction import PrivateSQConjunction
from dpbench.learners.sq_conjunction import SQConjunction
from dpbench.mechanisms.exponential import ExponentialMechanism
from dpbench.problems.conjunction import ConjunctionClass, ConjunctionProblem


def _target(seed=0, **params):
    return ConjunctionProblem(**params).draw_target(rng=np.random.default_rng(seed))


@pytest.mark.parametrize("monotone", [True, False])
@pytest.mark.parametrize("d,n", [(1, 5), (5, 70), (7, 130)])
def test_bitpacked_mistakes_equal_dense_evaluation(monotone, d, n, rng):
    cls = ConjunctionClass(d=d, monotone=monotone)
    X = rng.random((n, d)) < 0.5
    y = rng.random(n) < 0.4
    np.testing.assert_array_equal(cls.mistakes(X, y), cls.mistakes_dense(X, y, np.arange(cls.size)))


def test_hypothesis_index_encoding_matches_class_order(rng):
    cls = ConjunctionClass(d=3, monotone=False)
    X = rng.random((50, 3)) < 0.5
    y = rng.random(50) < 0.5
    mistakes = cls.mistakes(X, y)
    for i in range(cls.size):
        assert mistakes[i] == np.sum(cls.hypothesis(i).predict(X) != y)


@pytest.mark.parametrize("params", [{"d": 6, "k": 2}, {"d": 6, "k": 3, "noise": 0.1}, {"d": 8, "k": 2, "skew": 2.0}])
def test_exact_population_error_matches_monte_carlo(params):
    """Exact error vs a 200 000-example estimate: |diff| ≤ 5.3σ (false alarm ≈ 1e-7 per check)."""
    target = _target(**params)
    rng = np.random.default_rng(11)
    big = target.sample(200_000, rng=rng)
    cls = target.concept_class
    for index in rng.choice(cls.size, size=20, replace=False):
        h = cls.hypothesis(int(index))
        exact = target.population_error(h)
        estimate = np.mean(h.predict(big.X) != big.y)
        sigma = math.sqrt(max(exact * (1 - exact), 1e-12) / len(big))
        assert abs(estimate - exact) <= 5.3 * sigma + 1e-12


def test_target_is_error_free_without_noise_and_noise_level_with():
    assert _target(d=6, k=2).population_error(_target(d=6, k=2).concept) == 0.0
    noisy = _target(d=6, k=2, noise=0.1)
    assert noisy.population_error(noisy.concept) == pytest.approx(0.1)


@pytest.mark.parametrize("bad", [{"d": 0}, {"k": 7, "d": 6}, {"p": 1.0}, {"noise": 0.5}, {"skew": -1.0}])
def test_problem_rejects_bad_parameters(bad):
    with pytest.raises((ValueError, TypeError)):
        ConjunctionProblem(**bad)


def test_elimination_is_consistent_and_learns():
    target = _target(d=10, k=3, skew=2.0)
    sample = target.sample(2000, rng=np.random.default_rng(1))
    h = Elimination().fit(sample, rng=np.random.default_rng(0))
    assert np.all(h.predict(sample.X) == sample.y)  # consistent in the realizable case
    assert target.population_error(h) <= theory.rate_consistent(2000, target.concept_class.log_size, 0.05)


@pytest.mark.parametrize("learner", [Elimination(), ERM(), SQConjunction(alpha=0.02), ExpMechERM(epsilon=2.0), DecisionTree()])
def test_learners_reach_low_error_with_enough_data(learner):
    """Mean population error over 5 samples of n = 4000 is at most 0.02 (base error 0.125)."""
    target = _target(d=8, k=3)
    assert mean_error(learner, target, 4000, 5, seed=3) <= 0.02


def test_private_sq_reaches_low_error_with_enough_data():
    target = _target(d=6, k=2)
    assert mean_error(PrivateSQConjunction(epsilon=2.0, alpha=0.05), target, 40_000, 5, seed=4) <= 0.02


def test_erm_returns_a_minimiser(rng):
    target = _target(d=6, k=3, noise=0.15)
    sample = target.sample(300, rng=rng)
    h = ERM().fit(sample, rng=rng)
    mistakes = target.concept_class.mistakes(sample.X, sample.y)
    assert np.sum(h.predict(sample.X) != sample.y) == mistakes.min()


def test_exp_mech_at_huge_epsilon_puts_all_mass_on_minimisers(rng):
    target = _target(d=6, k=3, noise=0.1)
    sample = target.sample(500, rng=rng)
    mistakes = target.concept_class.mistakes(sample.X, sample.y)
    logp = ExponentialMechanism(epsilon=1e6).log_probabilities(-mistakes)
    assert np.exp(logp[mistakes == mistakes.min()]).sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    "private,twin",
    [(ExpMechERM(epsilon=1e6), ERM()), (PrivateSQConjunction(epsilon=1e6), SQConjunction())],
    ids=["exp_mech_erm~erm", "private_sq_conjunction~sq_conjunction"],
)
def test_private_learner_matches_non_private_twin_as_epsilon_grows(private, twin):
    """ε → ∞ consistency on the same samples (40 repetitions, n = 150, noisy labels):
    the mean errors agree within 4 standard errors of the paired differences + 1e-9
    (both learners pick uniformly among minimisers; false alarm ≈ 6e-5, normal approx.)."""
    target = _target(d=6, k=2, noise=0.05)
    diffs = [
        mean_error(private, target, 150, 1, seed=100 + r) - mean_error(twin, target, 150, 1, seed=100 + r)
        for r in range(40)
    ]
    se = np.std(diffs, ddof=1) / math.sqrt(len(diffs))
    assert abs(np.mean(diffs)) <= 4 * se + 1e-9


def test_private_learners_get_worse_as_epsilon_shrinks():
    target = _target(d=8, k=3)
    errors = [mean_error(ExpMechERM(epsilon=eps), target, 500, 8, seed=5) for eps in (0.02, 0.2, 20.0)]
    assert errors[0] > errors[1] > errors[2]


def test_private_sq_budget_split():
    learner = PrivateSQConjunction(epsilon=1.0)
    assert learner.epsilon_per_query(20) == pytest.approx(0.05)
    adv = PrivateSQConjunction(epsilon=1.0, delta=1e-6)
    assert adv.epsilon_per_query(20_000) > 1.0 / 20_000  # advanced composition beats basic for many queries
    assert learner.guarantee().epsilon == 1.0 and adv.guarantee().delta == 1e-6


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_private_sq_theory_uses_the_learners_own_calibration(delta):
    for m in (12, 20, 200):
        assert theory.private_sq_epsilon_per_query(1.0, m, delta) == PrivateSQConjunction(epsilon=1.0, delta=delta).epsilon_per_query(m)


def test_private_sq_threshold_is_where_the_union_bound_reaches_half_beta():
    """At n₀ the noise bound ζ = ln(2m/β)/(ε₀n) equals τ = α/(2m), i.e.
    m·P[|Lap(1/(ε₀n₀))| ≥ τ] = β/2 (the other half of β is the sampling step); the bound is
    undefined up to n₀ and tends to α/2."""
    m, eps0, alpha, beta = 20, 0.05, 0.05, 0.1
    n0 = theory.n_private_sq(eps0, m, alpha, beta)
    assert m * math.exp(-(alpha / (2 * m)) * eps0 * n0) == pytest.approx(beta / 2)
    rate = theory.rate_private_sq_run([n0 * 0.99, n0 * 1.01, 1e14], eps0, m, alpha, beta)
    assert math.isnan(rate[0]) and rate[1] > alpha and rate[2] == pytest.approx(alpha / 2, rel=1e-3)


@pytest.mark.parametrize("eps0", [0.01, 0.1, 1.0, math.inf])
def test_private_sq_n_at_inverts_the_bound(eps0):
    m, alpha, beta = 24, 0.05, 0.1
    targets = np.array([0.026, 0.03, 0.05, 0.2])
    n = theory.n_private_sq_run(targets, eps0, m, alpha, beta)
    at = theory.rate_private_sq_run(n * (1 + 1e-9), eps0, m, alpha, beta)
    n0 = theory.n_private_sq(eps0, m, alpha, beta)
    # where n₀ binds, the bound is already below the target there; elsewhere it equals it
    assert np.all(at <= targets * (1 + 1e-6)) and np.all((n > n0) <= np.isclose(at, targets, rtol=1e-6))
    assert np.isnan(theory.n_private_sq_run(alpha / 2, eps0, m, alpha, beta))


class _NoisierSQ(PrivateSQConjunction):
    """A calibration error: every answer gets 30× the noise the budget calls for (e.g. the
    sensitivity taken as 30/n)."""

    def epsilon_per_query(self, m: int) -> float:
        return super().epsilon_per_query(m) / 30


def test_private_sq_bound_holds_on_its_own_runs_and_catches_a_miscalibrated_copy():
    """The derived bound against the learner's own code (d = 6, m = 12, α = 0.2, ε = 2, skewed
    inputs, 40 repetitions): the 0.9-quantile of the population error is below the bound at
    1.2·n₀ and 2·n₀; the copy with 30× the noise drops target literals and exceeds it."""
    target = _target(d=6, k=2, skew=2.0)
    m, alpha, beta = 12, 0.2, 0.1
    good = PrivateSQConjunction(epsilon=2.0, alpha=alpha)
    eps0 = good.epsilon_per_query(m)
    above = []
    for factor in (1.2, 2.0):
        n = int(factor * theory.n_private_sq(eps0, m, alpha, beta))
        bound = float(theory.rate_private_sq_run(n, eps0, m, alpha, beta))
        errors = [mean_error(good, target, n, 1, seed=300 + r) for r in range(40)]
        assert np.quantile(errors, 1 - beta) <= bound
        broken = [mean_error(_NoisierSQ(epsilon=2.0, alpha=alpha), target, n, 1, seed=300 + r) for r in range(40)]
        above.append(np.quantile(broken, 1 - beta) > bound)
    assert all(above)


def test_private_sq_learns_from_its_threshold():
    """At n = 1.5·n₀ (d = 6, m = 12, α = 0.2, ε = 2, basic composition) the derived bound
    α(n) < α holds w.p. ≥ 1 − β = 0.9 per repetition on the sample side; the population
    error of 30 repetitions exceeds α at most 12 times (P[Bin(30, 0.1) > 12] < 1e-6; the
    exact sampling slack is small at n ≈ 5000)."""
    target = _target(d=6, k=2)
    learner = PrivateSQConjunction(epsilon=2.0, alpha=0.2)
    n = int(1.5 * theory.n_private_sq(learner.epsilon_per_query(12), 12, 0.2, 0.1))
    errors = [mean_error(learner, target, n, 1, seed=200 + r) for r in range(30)]
    assert sum(e > 0.2 for e in errors) <= 12


def test_trivial_error_is_the_best_constant_predictors():
    assert theory.trivial_error_conjunction(3, 0.5) == 0.125
    assert theory.trivial_error_conjunction(3, 0.5, noise=0.1) == pytest.approx(0.125 * 0.9 + 0.875 * 0.1)
    assert math.isnan(theory.trivial_error_conjunction(3, 0.3))  # depends on the drawn literal signs
    target = _target(d=6, k=2)
    from dpbench.problems.conjunction import Conjunction

    all_negative = Conjunction(pos=np.ones(6, dtype=bool), neg=np.ones(6, dtype=bool))  # x_i ∧ ¬x_i: never true
    assert target.population_error(all_negative) == pytest.approx(theory.trivial_error_conjunction(2, 0.5))
