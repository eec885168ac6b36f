"""The Gaussian mechanism: exact calibrations (classic and analytic), the ε < 1 rule of the
classic formula, and the sampled noise scale."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import pld_privacy_accountant
from scipy import stats

from dpbench.mechanisms.gaussian import GaussianMechanism, analytic_delta, analytic_sigma, classic_sigma


def test_classic_sigma_is_the_formula_of_the_notes():
    eps, delta, sens = 0.5, 1e-5, 0.3
    assert classic_sigma(epsilon=eps, delta=delta, sensitivity=sens) == sens * math.sqrt(2 * math.log(1.25 / delta)) / eps
    mech = GaussianMechanism(epsilon=eps, delta=delta, sensitivity=sens)
    assert mech.method == "classic"
    assert mech.sigma == classic_sigma(epsilon=eps, delta=delta, sensitivity=sens)
    assert mech.guarantee().epsilon == eps and mech.guarantee().delta == delta


@pytest.mark.parametrize("eps", [1.0, 2.0, 10.0])
def test_classic_refuses_epsilon_at_least_one(eps):
    with pytest.raises(ValueError, match="epsilon"):
        classic_sigma(epsilon=eps, delta=1e-5, sensitivity=1.0)
    with pytest.raises(ValueError, match="epsilon"):
        GaussianMechanism(epsilon=eps, delta=1e-5, sensitivity=1.0, calibration="classic")


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 3.0, 10.0])
def test_analytic_sigma_is_tight_and_agrees_with_a_pld_accountant(eps):
    """δ(σ) ≤ δ at the returned σ and > δ just below it; the PLD accountant of dp-accounting
    (an independent, tight computation for one Gaussian) gives ε(σ) ≈ ε at that δ."""
    delta, sens = 1e-5, 2.0
    sigma = analytic_sigma(epsilon=eps, delta=delta, sensitivity=sens)
    assert analytic_delta(sigma=sigma, epsilon=eps, sensitivity=sens) <= delta
    assert analytic_delta(sigma=sigma * (1 - 1e-6), epsilon=eps, sensitivity=sens) > delta
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_accounting.GaussianDpEvent(sigma / sens))
    assert acc.get_epsilon(delta) == pytest.approx(eps, rel=2e-2, abs=2e-3)
    if eps < 1:
        assert sigma < classic_sigma(epsilon=eps, delta=delta, sensitivity=sens)


def test_auto_switches_to_analytic_at_epsilon_one():
    mech = GaussianMechanism(epsilon=2.0, delta=1e-6, sensitivity=1.0)
    assert mech.method == "analytic"
    assert mech.sigma == analytic_sigma(epsilon=2.0, delta=1e-6, sensitivity=1.0)


def test_bad_parameters_name_the_key():
    with pytest.raises(ValueError, match="delta"):
        GaussianMechanism(epsilon=0.5, delta=0.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="sensitivity"):
        GaussianMechanism(epsilon=0.5, delta=1e-5, sensitivity=0.0)
    with pytest.raises(ValueError, match="calibration"):
        GaussianMechanism(epsilon=0.5, delta=1e-5, sensitivity=1.0, calibration="nope")


def test_infinite_epsilon_adds_no_noise(rng):
    mech = GaussianMechanism(epsilon=math.inf, delta=0.0, sensitivity=1.0)
    np.testing.assert_array_equal(mech.sample([1.0, 2.0], rng=rng), [1.0, 2.0])


def test_sampled_noise_has_the_calibrated_variance():
    """Sample variance of 20 000 draws vs σ²: the chi-square statistic (n−1)s²/σ² is tested
    two-sided at false-alarm rate 1e-6."""
    mech = GaussianMechanism(epsilon=0.5, delta=1e-5, sensitivity=1.0)
    x = mech.sample(np.zeros(20_000), rng=np.random.default_rng(11))
    n = len(x)
    stat = (n - 1) * x.var(ddof=1) / mech.variance()
    lo, hi = stats.chi2.ppf([0.5e-6, 1 - 0.5e-6], n - 1)
    assert lo < stat < hi
    assert abs(x.mean()) < 5.33 * mech.sigma / math.sqrt(n)  # two-sided 1e-6


@pytest.mark.parametrize("eps", [0.03, 0.5, 3.0])
def test_analytic_epsilon_inverts_analytic_sigma(eps):
    sigma = analytic_sigma(epsilon=eps, delta=1e-6, sensitivity=1.5)
    from dpbench.mechanisms.gaussian import analytic_epsilon

    assert analytic_epsilon(sigma=sigma, delta=1e-6, sensitivity=1.5) == pytest.approx(eps, rel=1e-6)
