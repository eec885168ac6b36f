"""DP-Winnow privacy: exact accounting of the calibration, ε → ∞ consistency with
ConfidentWinnow, and the empirical audit on neighbouring streams (a broken variant
without sparse-vector noise is caught)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbench.audit import audit, run_many
from dpbench.learners.confident_winnow import ConfidentWinnow
from dpbench.learners.dp_winnow import DPWinnow, DPWinnowParams, calibrate, composed_privacy, run_dp_winnow
from dpbench.learners.dp_winnow_tight import DPWinnowTight
from dpbench.mechanisms.composition import advanced
from dpbench.problems.halfspace import Halfspace, OnlineStream


@pytest.mark.parametrize("accountant", ["advanced", "zcdp"])
@pytest.mark.parametrize("epsilon,N,rho,T", [(1.0, 200, 0.2, 10**5), (10.0, 2, 1.0, 10**7), (3.0, 8, 0.5, 10**6)])
def test_calibration_stays_within_target(accountant, epsilon, N, rho, T):
    p = calibrate(epsilon=epsilon, delta=1e-6, rho=rho, n_features=N, T=T, beta=0.1, accountant=accountant)
    eps, delta = composed_privacy(epsilon0=p.epsilon0, eta=p.eta, K=p.K, M=p.M, delta=1e-6, accountant=accountant)
    assert eps <= epsilon * (1 + 1e-12) and delta <= 1e-6
    assert eps >= 0.99 * epsilon  # the budget is used, not wasted
    assert p.gamma_tilde >= p.gamma / 2 - 1e-12 and p.threshold > 1


def test_advanced_accounting_by_hand():
    """The composed ε is basic composition of two advanced-composition layers at δ/2 each,
    with 4η per exponential-mechanism draw (replace-one)."""
    p = calibrate(epsilon=1.0, delta=1e-6, rho=0.2, n_features=200, T=10**5, beta=0.1)
    sv = min((p.M + 1) * p.epsilon0, advanced(p.epsilon0, p.M + 1, 5e-7)[0])
    em = min((p.M + 1) * p.K * 4 * p.eta, advanced(4 * p.eta, (p.M + 1) * p.K, 5e-7)[0])
    assert p.epsilon == pytest.approx(sv + em, rel=1e-12)
    assert p.threshold > 10**5  # the point: vacuous at small scale, never updates


def test_tight_accounting_is_less_conservative():
    a = calibrate(epsilon=10.0, delta=1e-6, rho=1.0, n_features=2, T=10**7, beta=0.1, accountant="advanced")
    z = calibrate(epsilon=10.0, delta=1e-6, rho=1.0, n_features=2, T=10**7, beta=0.1, accountant="zcdp")
    assert z.eta > a.eta and z.epsilon0 > a.epsilon0 and z.threshold < a.threshold
    assert DPWinnowTight(epsilon=10.0, delta=1e-6).guarantee().epsilon == 10.0


def test_epsilon_infinity_is_confident_winnow():
    target = Halfspace(d=50, s=5, rho=0.2, order="adversarial").draw_target(rng=np.random.default_rng(0))
    stream = target.stream(5000, rng=np.random.default_rng(1))
    a = DPWinnow(epsilon=math.inf, delta=0.0).run(stream, rng=np.random.default_rng(2))
    b = ConfidentWinnow().run(stream, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a.mistakes, b.mistakes)
    np.testing.assert_array_equal(a.updates, b.updates)


def test_delta_zero_rejected():
    with pytest.raises(ValueError, match="delta"):
        DPWinnow(epsilon=1.0, delta=0.0)


def _fixed_stream(first_cached: bool, T: int = 40) -> OnlineStream:
    """x = (1, 1) each round; y = −1 is always cached (a mistake under any w̃), y = +1 never
    (margin 1 ≥ γ̃). The neighbours differ in round 1 only."""
    X = np.ones((T, 2), dtype=np.int8)
    y = -np.ones(T, dtype=np.int8)
    if not first_cached:
        y[0] = 1
    return OnlineStream(T=T, n_features=2, rho=1.0, make_block=lambda b, rng: (X, y), rng=np.random.default_rng(0), block_size=T)


PARAMS = DPWinnowParams(eta=0.05, gamma=0.5, gamma_tilde=0.25, K=1, M=1, epsilon0=1.0, threshold=3.0, epsilon=math.nan, delta=1e-6, accountant="advanced")
CONFIDENCE = 1 - 2e-6  # each one-sided bound fails w.p. 1e-6: false alarm ≤ 1e-6


def _first_updates(first_cached: bool, sv_noise: bool) -> np.ndarray:
    stream = _fixed_stream(first_cached)
    return run_many(lambda rng: run_dp_winnow(stream, PARAMS, rng=rng, sv_noise=sv_noise).first_update, 3000, seed=1 if first_cached else 2)


@pytest.mark.slow
def test_audit_passes_and_broken_variant_is_caught():
    """Output: the round of the first update (the sparse vector's release). Claimed ε =
    composed_privacy of PARAMS (2 instances of ε₀ = 1 and 2 draws of 4η = 0.2, basic
    composition: 2.4). The audit refutes a correct mechanism with probability ≤ 1e-6
    (CONFIDENCE); the noiseless broken variant is deterministic and differs by one round."""
    claimed, _ = composed_privacy(epsilon0=1.0, eta=0.05, K=1, M=1, delta=1e-6, accountant="advanced")
    assert claimed == pytest.approx(2.4)
    good = audit(_first_updates(True, True), _first_updates(False, True), confidence=CONFIDENCE)
    assert good.epsilon_lower <= claimed
    broken = audit(_first_updates(True, False), _first_updates(False, False), confidence=CONFIDENCE)
    assert broken.epsilon_lower > claimed
