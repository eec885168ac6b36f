"""Exact privacy of a neighbouring pair whose output laws are computable (issue 10).

For two discrete output laws ``P`` (on D) and ``Q`` (on D') on the same finite support the
tightest δ at a given ε is the hockey-stick divergence, taken in both directions:

.. math:: \\delta(\\varepsilon) = \\max\\Big(\\sum_x [P(x) - e^{\\varepsilon} Q(x)]_+,\\;
          \\sum_x [Q(x) - e^{\\varepsilon} P(x)]_+\\Big),

and the tightest ε at a given δ is the smallest ε with ``δ(ε) ≤ δ`` (δ(ε) is
non-increasing in ε); at δ = 0 it is ``max_x |ln P(x)/Q(x)|``. Everything is computed
from log-probabilities (``logsumexp``), so laws with mass ``1e-300`` in the tails are exact.

:func:`product_law_epsilon` composes exactly the laws a learner's own code recorded round by
round (:mod:`dpbench.mechanisms.laws`): the privacy audit's exact values for the Hedge learners
and ``privdl``.

:func:`hedge_swap_log_pmfs` gives the pair behind issue 10's defect 1: Hedge / MW with rate
η on two experts, round-1 loss vector (0, 1) on D versus (1, 0) on D', every later loss
(0, 0). Round 1 is played uniformly on both sides; from round 2 on expert 0 is played with
probability ``q = 1/(1 + e^{−η})`` on D and ``1 − q`` on D', independently each round, so
the number ``X`` of plays of expert 0 in rounds 2..T is a sufficient statistic with
``X ~ Bin(T−1, q)`` on D and ``Bin(T−1, 1−q)`` on D'.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from scipy.optimize import brentq
from scipy.special import gammaln, logsumexp

__all__ = ["delta_for_epsilon", "epsilon_for_delta", "hedge_swap_log_pmfs", "hedge_swap_delta", "merge_by_loss", "product_law_epsilon"]


def _one_way(logp: npt.NDArray, logq: npt.NDArray, epsilon: float) -> float:
    """``Σ_x [P(x) − e^ε Q(x)]_+`` in log space."""
    loss = logp - logq
    keep = loss > epsilon
    if not keep.any():
        return 0.0
    lp, lq = logp[keep], logq[keep]
    # P − e^ε Q = P (1 − e^{ε − loss}) with loss > ε; log1p(−e^{ε−loss}) is finite
    terms = lp + np.log1p(-np.exp(epsilon - (lp - lq)))
    return float(np.exp(logsumexp(terms)))


def delta_for_epsilon(logp: npt.ArrayLike, logq: npt.ArrayLike, epsilon: float) -> float:
    """Exact δ(ε) of the pair (both directions); ``logp``, ``logq``: log-pmfs on one support."""
    logp = np.asarray(logp, dtype=np.float64)
    logq = np.asarray(logq, dtype=np.float64)
    return max(_one_way(logp, logq, epsilon), _one_way(logq, logp, epsilon))


def epsilon_for_delta(logp: npt.ArrayLike, logq: npt.ArrayLike, delta: float) -> float:
    """Exact ε(δ) of the pair: the smallest ε ≥ 0 with ``δ(ε) ≤ δ`` (bisection on the
    monotone δ(ε); at δ = 0 the largest absolute privacy loss on the common support)."""
    logp = np.asarray(logp, dtype=np.float64)
    logq = np.asarray(logq, dtype=np.float64)
    both = np.isfinite(logp) & np.isfinite(logq)
    if (np.isfinite(logp) != np.isfinite(logq)).any():
        only = np.isfinite(logp) ^ np.isfinite(logq)
        mass = max(float(np.exp(logsumexp(logp[only & np.isfinite(logp)]))) if (only & np.isfinite(logp)).any() else 0.0,
                   float(np.exp(logsumexp(logq[only & np.isfinite(logq)]))) if (only & np.isfinite(logq)).any() else 0.0)
        if mass > delta:
            return math.inf
    loss = np.abs(logp[both] - logq[both])
    top = float(loss.max()) if loss.size else 0.0
    if delta_for_epsilon(logp, logq, 0.0) <= delta:
        return 0.0
    if delta == 0:
        return top
    return float(brentq(lambda e: delta_for_epsilon(logp, logq, e) - delta, 0.0, top, xtol=1e-10, rtol=1e-10))


def hedge_swap_log_pmfs(eta: float, T: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Log-pmfs of ``X ~ Bin(T−1, q)`` (D) and ``Bin(T−1, 1−q)`` (D'), ``q = 1/(1+e^{−η})``:
    the plays of expert 0 in rounds 2..T of the two-expert first-round swap (module doc)."""
    m = int(T) - 1
    x = np.arange(m + 1, dtype=np.float64)
    log_q, log_1q = -np.logaddexp(0.0, -eta), -np.logaddexp(0.0, eta)  # ln q, ln(1 − q)
    log_binom = gammaln(m + 1) - gammaln(x + 1) - gammaln(m - x + 1)
    return log_binom + x * log_q + (m - x) * log_1q, log_binom + x * log_1q + (m - x) * log_q


def hedge_swap_delta(eta: float, T: int, epsilon: float) -> float:
    """Exact δ(ε) of the two-expert first-round swap for Hedge with rate η over T rounds."""
    return delta_for_epsilon(*hedge_swap_log_pmfs(eta, T), epsilon)


#: merged privacy-loss outcomes beyond which :func:`product_law_epsilon` composes by PLD
MAX_SUPPORT = 1 << 14
#: losses closer than this (relative, ≥ 1 absolute scale) are merged as equal (float sums)
LOSS_TOLERANCE = 1e-9


def merge_by_loss(logp: npt.ArrayLike, logq: npt.ArrayLike) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The pair ``(P, Q)`` with outcomes of equal privacy loss ``ln P(x)/Q(x)`` merged (masses
    summed, log space): a sufficient statistic, so ε(δ) is unchanged (the hockey-stick
    terms ``[P − e^ε Q]_+`` of outcomes with one loss share their sign). Outcomes impossible
    on both sides are dropped; ±∞ losses (an outcome one side cannot produce) are kept."""
    lp = np.asarray(logp, dtype=np.float64).ravel()
    lq = np.asarray(logq, dtype=np.float64).ravel()
    live = np.isfinite(lp) | np.isfinite(lq)
    lp, lq = lp[live], lq[live]
    with np.errstate(invalid="ignore"):
        loss = np.where(np.isfinite(lp) & np.isfinite(lq), lp - lq, np.where(np.isfinite(lp), np.inf, -np.inf))
    order = np.argsort(loss, kind="stable")
    loss, lp, lq = loss[order], lp[order], lq[order]
    key = np.clip(loss, -1e300, 1e300)  # the infinities group with their own kind
    new = np.r_[True, np.diff(key) > LOSS_TOLERANCE * np.maximum(1.0, np.abs(key[1:]))]
    starts = np.flatnonzero(new)
    return np.logaddexp.reduceat(lp, starts), np.logaddexp.reduceat(lq, starts)


def product_law_epsilon(logp_rounds: npt.ArrayLike, logq_rounds: npt.ArrayLike, delta: float) -> float:
    """Exact ε(δ) of a pair of **product** laws over rounds, ``P = ⊗_t P_t``, ``Q = ⊗_t Q_t``
    (each ``(T, k)``: round t's log-pmf over k outcomes on D and on D').

    This is the law of a learner whose round-t output is drawn independently from ``P_t``
    given the (oblivious) data — Hedge on a fixed loss sequence, with the laws its own
    kernel recorded (:mod:`dpbench.mechanisms.laws`). Composition is exact, not a bound: the
    privacy loss of the sequence is the sum of the rounds' losses ``ln P_t(a)/Q_t(a)``,
    independent across rounds, so the rounds are composed one at a time on the merged
    privacy-loss outcomes (:func:`merge_by_loss`: outcomes whose summed losses agree to
    :data:`LOSS_TOLERANCE` are one outcome). Rounds whose two laws agree add no loss and
    are dropped. Rounds with the same law pair (Hedge's rounds on a swap pair) keep the
    support at T + 1 outcomes; rounds whose losses are not on a common lattice could make
    it grow as 2^T: beyond :data:`MAX_SUPPORT` outcomes the remaining composition is done
    by the privacy-loss-distribution accountant of ``dp_accounting`` (pessimistic, loss
    grid 1e-4: an upper bound within ~1e-4·T of the exact ε).
    """
    lp = np.atleast_2d(np.asarray(logp_rounds, dtype=np.float64))
    lq = np.atleast_2d(np.asarray(logq_rounds, dtype=np.float64))
    if lp.shape != lq.shape:
        raise ValueError(f"the two sides' round laws differ in shape: {lp.shape} vs {lq.shape}")
    live = ~np.all(np.isclose(lp, lq, rtol=0, atol=1e-15) | (np.isneginf(lp) & np.isneginf(lq)), axis=1)
    acc_p, acc_q = np.zeros(1), np.zeros(1)
    rounds = [merge_by_loss(p, q) for p, q in zip(lp[live], lq[live])]
    for i, (rp, rq) in enumerate(rounds):
        if len(acc_p) * len(rp) > MAX_SUPPORT:
            return _pld_epsilon([(acc_p, acc_q)] + rounds[i:], delta)
        acc_p, acc_q = merge_by_loss((acc_p[:, None] + rp[None, :]), (acc_q[:, None] + rq[None, :]))
    return epsilon_for_delta(acc_p, acc_q, delta)


def _pld_epsilon(rounds: list[tuple[npt.NDArray, npt.NDArray]], delta: float) -> float:
    """ε(δ) of the product of ``rounds`` (log-pmf pairs) by ``dp_accounting``'s PLD,
    both directions, pessimistic (an upper bound on the exact value)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    total = None
    for rp, rq in rounds:
        one = pld.from_two_probability_mass_functions(dict(enumerate(rq)), dict(enumerate(rp)), pessimistic_estimate=True,
                                                      value_discretization_interval=1e-4, symmetric=False)
        total = one if total is None else total.compose(one)
    return float(total.get_epsilon_for_delta(delta))


def binomial_pair_delta(logp: npt.ArrayLike, logq: npt.ArrayLike, n: int, epsilon: float) -> float:
    """Exact δ(ε) of ``n`` iid draws from a two-outcome law, ``(p, 1 − p)`` on D and
    ``(q, 1 − q)`` on D′ (``logp``, ``logq``: the two log-pmfs), at any ``n`` (no pmf array).

    The count ``K`` of outcome 0 is sufficient, ``Bin(n, p)`` vs ``Bin(n, q)``, and the privacy
    loss ``ℓ(k) = k a + (n − k) b`` (``a = ln(p/q)``, ``b = ln((1−p)/(1−q))``) is monotone in k,
    so the hockey-stick divergence is one tail:
    ``δ(ε) = P[K ≥ k₀] − e^ε Q[K ≥ k₀]`` with ``k₀`` the first k where ``ℓ(k) > ε`` — in both
    directions, the larger (Balle & Wang, "Improving the Gaussian mechanism for differential
    privacy", ICML 2018, Thm 5, for the privacy-loss form of δ(ε))."""
    from scipy import stats

    lp, lq = np.asarray(logp, dtype=np.float64), np.asarray(logq, dtype=np.float64)
    if lp.shape != (2,) or lq.shape != (2,):
        raise ValueError(f"two-outcome laws expected, got shapes {lp.shape} and {lq.shape}")
    worst = 0.0
    for (p0, p1), (q0, q1) in (((lp[0], lp[1]), (lq[0], lq[1])), ((lq[0], lq[1]), (lp[0], lp[1]))):
        a, b = p0 - q0, p1 - q1
        if a == b:
            continue
        if a < b:  # count outcome 1 instead: the loss increases in its count
            a, b, p0, q0 = b, a, p1, q1
        k0 = math.floor((epsilon - n * b) / (a - b)) + 1
        if k0 > n:
            continue
        k0 = max(k0, 0)
        tail_p = float(stats.binom.sf(k0 - 1, n, math.exp(p0)))
        tail_q = float(stats.binom.sf(k0 - 1, n, math.exp(q0)))
        worst = max(worst, tail_p - (math.exp(epsilon) * tail_q if tail_q > 0 else 0.0))
    return max(worst, 0.0)


def binomial_pair_epsilon(logp: npt.ArrayLike, logq: npt.ArrayLike, n: int, delta: float) -> float:
    """Exact ε(δ) of ``n`` iid draws of a two-outcome law pair (:func:`binomial_pair_delta`),
    by root finding on the monotone δ(ε)."""
    lp, lq = np.asarray(logp, dtype=np.float64), np.asarray(logq, dtype=np.float64)
    top = n * float(np.max(np.abs(lp - lq)))
    if binomial_pair_delta(lp, lq, n, 0.0) <= delta:
        return 0.0
    hi = min(top, 1.0)
    while hi < top and binomial_pair_delta(lp, lq, n, hi) > delta:  # a bracket (e^top may overflow)
        hi = min(2 * hi, top)
    if binomial_pair_delta(lp, lq, n, hi) > delta:
        return top
    return float(brentq(lambda e: binomial_pair_delta(lp, lq, n, e) - delta, 0.0, hi, xtol=1e-10, rtol=1e-10))
