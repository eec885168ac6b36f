"""Exact composition of recorded per-round laws (dpbench.mechanisms.exact.product_law_epsilon):
equal to brute-force enumeration of the product law, to the binomial pair for identical
rounds, and to dp_accounting's PLD where its support cap hands over."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpbench.mechanisms import exact
from dpbench.mechanisms.exact import epsilon_for_delta, hedge_swap_log_pmfs, product_law_epsilon


def brute_force(logp: np.ndarray, logq: np.ndarray, delta: float) -> float:
    """ε(δ) of ⊗_t P_t vs ⊗_t Q_t by listing every outcome sequence."""
    T, k = logp.shape
    seqs = np.array(list(itertools.product(range(k), repeat=T)))
    rounds = np.arange(T)
    return epsilon_for_delta(logp[rounds, seqs].sum(axis=1), logq[rounds, seqs].sum(axis=1), delta)


def random_laws(rng: np.random.Generator, T: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    p, q = rng.dirichlet(np.ones(k), T), rng.dirichlet(np.ones(k), T)
    return np.log(p), np.log(q)


@pytest.mark.parametrize("delta", [0.0, 1e-3, 0.05])
def test_rounds_with_different_laws_equal_brute_force(delta):
    logp, logq = random_laws(np.random.default_rng(0), 7, 3)
    assert product_law_epsilon(logp, logq, delta) == pytest.approx(brute_force(logp, logq, delta), rel=1e-7, abs=1e-9)


def test_identical_rounds_are_the_binomial_pair():
    eta, T = 0.03, 100
    q = 1 / (1 + math.exp(-eta))
    logp = np.log([[0.5, 0.5]] + [[q, 1 - q]] * (T - 1))
    logq = np.log([[0.5, 0.5]] + [[1 - q, q]] * (T - 1))
    assert product_law_epsilon(logp, logq, 1e-6) == pytest.approx(epsilon_for_delta(*hedge_swap_log_pmfs(eta, T), 1e-6), rel=1e-9)
    assert product_law_epsilon(logp, logp, 1e-6) == 0.0


def test_an_outcome_one_side_cannot_produce():
    """Round law (½, ½, 0) vs (½, 0, ½): each side has mass ½ the other lacks: ε = ∞ at δ < ½, 0 from δ = ½."""
    with np.errstate(divide="ignore"):
        logp, logq = np.log([[0.5, 0.5, 0.0]]), np.log([[0.5, 0.0, 0.5]])
    assert product_law_epsilon(logp, logq, 0.1) == math.inf
    assert product_law_epsilon(logp, logq, 0.5) == 0.0


def test_beyond_the_support_cap_the_pld_takes_over(monkeypatch):
    """Rounds off a common lattice: with the cap lowered the PLD (pessimistic) composes the
    rest, an upper bound within its discretisation of the exact value."""
    logp, logq = random_laws(np.random.default_rng(1), 8, 2)
    truth = brute_force(logp, logq, 1e-3)
    monkeypatch.setattr(exact, "MAX_SUPPORT", 8)
    approx = product_law_epsilon(logp, logq, 1e-3)
    assert truth - 1e-9 <= approx <= truth + 8 * 1e-4 + 1e-6


def test_grouped_release_draws_compose_as_the_draws_do():
    """DP-Winnow's recorded draws grouped into binomials (audits.winnow.release_laws_epsilon)
    give the ε(δ) of composing the draws one by one; identical-law draws add nothing."""
    from dpbench.audits.cases.winnow import release_laws_epsilon

    def rows(p, m):
        return np.tile(np.log([p, 1 - p]), (m, 1))

    logp = np.r_[rows(0.5, 5), rows(0.7, 4), rows(0.6, 3)]
    logq = np.r_[rows(0.5, 5), rows(0.3, 4), rows(0.45, 3)]
    for delta in (1e-6, 1e-2, 0.2):
        assert release_laws_epsilon(logp, logq, delta) == pytest.approx(product_law_epsilon(logp, logq, delta), rel=1e-9, abs=1e-12)
    assert release_laws_epsilon(logp[:5], logq[:5], 1e-6) == 0.0
    one = release_laws_epsilon(logp[5:9], logq[5:9], 1e-6)  # one group: its binomial pair directly
    assert one == pytest.approx(product_law_epsilon(logp[5:9], logq[5:9], 1e-6), rel=1e-9)
