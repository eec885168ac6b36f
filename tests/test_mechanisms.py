"""Mechanisms: noise has the stated scale, selection the stated distribution, composition
the stated arithmetic. Statistical tests use fixed seeds; each states its false-alarm rate."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpbench.mechanisms import composition
from dpbench.mechanisms.exponential import ExponentialMechanism, gumbel_max
from dpbench.mechanisms.laplace import Laplace

P_FALSE_ALARM = 1e-6


def test_laplace_noise_has_scale_sensitivity_over_epsilon():
    """KS test of 20 000 draws against Lap(Δ/ε); false-alarm rate 1e-6. The same test
    rejects a mechanism whose scale is off by 10% (power check below)."""
    mech = Laplace(epsilon=0.5, sensitivity=2.0)
    assert mech.scale == 4.0 and mech.variance() == 32.0
    noise = mech.sample(np.zeros(20_000), rng=np.random.default_rng(1))
    assert stats.kstest(noise, stats.laplace(scale=4.0).cdf).pvalue > P_FALSE_ALARM
    assert stats.kstest(noise, stats.laplace(scale=4.4).cdf).pvalue < P_FALSE_ALARM


def test_laplace_tail_bound_is_exact():
    mech = Laplace(epsilon=1.0, sensitivity=1.0)
    beta = 0.05
    assert math.isclose(2 * stats.laplace.sf(mech.tail_bound(beta)), beta)  # P[|X| > t] = β


def test_laplace_infinite_epsilon_adds_nothing():
    value = np.array([1.0, 2.0])
    np.testing.assert_array_equal(Laplace(epsilon=math.inf, sensitivity=1.0).sample(value, rng=np.random.default_rng(0)), value)


@pytest.mark.parametrize("epsilon", [0.0, -1.0, float("nan")])
def test_mechanisms_reject_bad_epsilon(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        Laplace(epsilon=epsilon, sensitivity=1.0)
    with pytest.raises(ValueError, match="epsilon"):
        ExponentialMechanism(epsilon=epsilon)


def test_exponential_mechanism_samples_its_distribution():
    """Chi-square goodness of fit of 50 000 selections to P ∝ exp(ε u / 2Δ); false alarm 1e-6."""
    scores = np.array([0.0, -1.0, -2.0, -4.0, -8.0])
    mech = ExponentialMechanism(epsilon=1.0, sensitivity=1.0)
    rng = np.random.default_rng(2)
    draws = np.array([mech.select(scores, rng=rng) for _ in range(50_000)])
    expected = np.exp(mech.log_probabilities(scores)) * len(draws)
    observed = np.bincount(draws, minlength=len(scores))
    assert stats.chisquare(observed, expected).pvalue > P_FALSE_ALARM
    np.testing.assert_allclose(np.exp(mech.log_probabilities(scores)).sum(), 1.0)


def test_exponential_mechanism_in_log_space_never_overflows():
    """Scores of ±10^6 would overflow exp(); Gumbel-max in log space does not."""
    scores = np.array([-1e6, -1e6 + 3, -2e6])
    mech = ExponentialMechanism(epsilon=1.0)
    picks = {mech.select(scores, rng=np.random.default_rng(s)) for s in range(200)}
    assert picks <= {0, 1} and 1 in picks
    assert np.isfinite(mech.log_probabilities(scores)[:2]).all()


def test_exponential_mechanism_infinite_epsilon_is_uniform_argmax():
    scores = np.array([3, 5, 5, 1])
    mech = ExponentialMechanism(epsilon=math.inf)
    picks = [mech.select(scores, rng=np.random.default_rng(s)) for s in range(100)]
    assert set(picks) == {1, 2}


def test_exponential_mechanism_utility_theorem():
    """P[u(out) ≤ OPT − (2Δ/ε)(ln|R| + t)] ≤ e^{-t}: with t = 3 the observed rate over
    20 000 draws stays below e^{-3} + 5σ (binomial; false alarm < 1e-6)."""
    rng = np.random.default_rng(3)
    scores = -rng.integers(0, 40, size=500).astype(float)
    mech = ExponentialMechanism(epsilon=0.5)
    gap = mech.utility_gap(len(scores), t=3.0)
    bad = np.mean([scores[mech.select(scores, rng=rng)] <= scores.max() - gap for _ in range(20_000)])
    bound = math.exp(-3)
    assert bad <= bound + 5 * math.sqrt(bound * (1 - bound) / 20_000)


def test_gumbel_max_prefers_infinite_logits():
    assert gumbel_max(np.array([0.0, np.inf, 5.0]), rng=np.random.default_rng(0)) == 1


def test_basic_composition_adds():
    assert composition.basic([0.1, 0.2, 0.3], [1e-6, 0, 1e-6]) == pytest.approx((0.6, 2e-6))


def test_advanced_composition_formula():
    eps, delta = composition.advanced(0.01, 1000, 1e-6)
    expected = 0.01 * math.sqrt(2 * 1000 * math.log(1e6)) + 1000 * 0.01 * math.expm1(0.01)
    assert eps == pytest.approx(expected) and delta == 1e-6


def test_advanced_per_step_inverts_advanced_composition():
    for eps, k in [(1.0, 100), (0.5, 10_000), (3.0, 7)]:
        step = composition.advanced_per_step(eps, k, 1e-6)
        total_adv = composition.advanced(step, k, 1e-6)[0]
        assert total_adv <= eps + 1e-9 or step == pytest.approx(eps / k)
        assert step >= eps / k  # never worse than basic composition


def test_seeds_per_step_satisfies_advanced_composition_for_small_epsilon():
    """[DR14, Thm 11.2]'s ε/sqrt(8T ln(1/δ)) per step composes to ≤ ε for ε ≤ 1."""
    for eps, T in [(1.0, 1000), (0.1, 10_000)]:
        step = composition.seeds_per_step(eps, T, 1e-6)
        assert composition.advanced(step, T, 1e-6)[0] <= eps
