"""Issue 10, defect 1: ``private_mw_001`` recorded the notes' (12Tα², e^{−Tα}) guarantee.

The exact δ(ε) of the two-expert first-round swap (binomial sufficient statistic,
:mod:`dpbench.mechanisms.exact`) refutes it at ε = 1 for every horizon the old code ran;
the learner now runs only where the RDP accountant certifies (ε, δ). No randomness here:
every number is an exact computation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from dpbench.learners.private_mw_001 import PrivateMW001, calibrate
from dpbench.mechanisms.accounting import compose_bounded_range
from dpbench.mechanisms.bounded_range import bounded_range_delta
from dpbench.mechanisms.exact import epsilon_for_delta, hedge_swap_delta, hedge_swap_log_pmfs

DELTA = 1e-6
HORIZONS = [2_300, 3_162, 10_000, 100_000, 1_000_000]  # the old code ran at T ≥ 12 ln²(1/δ)/ε ≈ 2291


def _alpha(eps: float, T: int) -> float:
    return math.sqrt(eps / (12 * T))


def test_swap_delta_matches_a_direct_sum_over_the_binomial():
    """Log-space δ(ε) against scipy's binomial pmf summed in linear space (small T)."""
    for T, eta, eps in [(2, 0.7, 0.1), (30, 0.2, 0.5), (400, 0.05, 0.3)]:
        m, q = T - 1, 1 / (1 + math.exp(-eta))
        x = np.arange(m + 1)
        p, p2 = binom.pmf(x, m, q), binom.pmf(x, m, 1 - q)
        direct = max(np.clip(p - math.exp(eps) * p2, 0, None).sum(), np.clip(p2 - math.exp(eps) * p, 0, None).sum())
        assert hedge_swap_delta(eta, T, eps) == pytest.approx(direct, rel=1e-9, abs=1e-300)
        logp, logq = hedge_swap_log_pmfs(eta, T)
        assert np.exp(logp).sum() == pytest.approx(1.0) and np.exp(logq).sum() == pytest.approx(1.0)


def test_swap_privacy_loss_is_bounded_by_eta_times_rounds():
    """δ = 0 exactly when ε ≥ (T−1)η (the largest privacy loss), > 0 just below."""
    eta, T = 0.1, 12
    assert hedge_swap_delta(eta, T, (T - 1) * eta) == 0.0
    assert hedge_swap_delta(eta, T, (T - 1) * eta * 0.99) > 0.0
    assert epsilon_for_delta(*hedge_swap_log_pmfs(eta, T), 0.0) == pytest.approx((T - 1) * eta)


@pytest.mark.parametrize("T", HORIZONS)
def test_notes_delta_is_false_at_epsilon_one(T):
    """[NotesPAC, Thm 3]: α = sqrt(ε/(12T)) is (ε, e^{−Tα})-DP. Exact: δ(1) ≈ 3.2e-5 > 1e-6 ≥ e^{−Tα}."""
    alpha = _alpha(1.0, T)
    exact = hedge_swap_delta(alpha, T, 1.0)
    assert math.exp(-T * alpha) <= DELTA < exact
    assert 2e-5 < exact < 5e-5
    # the exact ε at δ = 1e-6 of this one pair already exceeds the recorded ε = 1
    assert epsilon_for_delta(*hedge_swap_log_pmfs(alpha, T), DELTA) > 1.2


@pytest.mark.parametrize("T", HORIZONS)
def test_learner_skips_where_the_accountant_cannot_certify(T):
    """Fails on the old code, which ran (and recorded (1, 1e-6)) at every one of these T."""
    learner = PrivateMW001(epsilon=1.0, delta=DELTA)
    reason = learner.supports_horizon(T, 2)
    assert reason is not None and "certified delta" in reason
    # the certified δ in the reason dominates the exact δ of the worst pair we know
    certified = bounded_range_delta(2 * _alpha(1.0, T), T, 1.0)
    assert certified >= hedge_swap_delta(_alpha(1.0, T), T, 1.0)
    assert f"{certified:.3g}" in reason


@pytest.mark.parametrize("eps", [2.0, 4.0, 16.0])
@pytest.mark.parametrize("T", [3_162, 100_000])
def test_learner_runs_where_certified_and_its_exact_pair_agrees(eps, T):
    """Where it runs, the accountant's ε at δ is ≤ the target and ≥ the exact ε(δ) of the
    swap pair (the accountant is an upper bound; the pair a lower bound on the truth)."""
    learner = PrivateMW001(epsilon=eps, delta=DELTA)
    assert learner.supports_horizon(T, 10) is None
    cal = calibrate(eps, DELTA, T, 10)
    assert cal.alpha == pytest.approx(_alpha(eps, T)) and learner.eta(T, 10) == cal.alpha
    assert cal.epsilon == compose_bounded_range(2 * cal.alpha, T, DELTA) <= eps
    assert epsilon_for_delta(*hedge_swap_log_pmfs(cal.alpha, T), DELTA) <= cal.epsilon


def test_guarantee_and_non_private_limit():
    g = PrivateMW001(epsilon=2.0, delta=DELTA).guarantee()
    assert (g.epsilon, g.delta, g.neighbours) == (2.0, DELTA, "replace-one")
    inf = PrivateMW001(epsilon=math.inf, delta=DELTA)
    assert inf.supports_horizon(1000, 10) is None and inf.eta(1000, 10) == pytest.approx(math.sqrt(math.log(10) / 1000))
