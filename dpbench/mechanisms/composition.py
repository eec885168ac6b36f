"""Composition theorems ([DR14, §3.5]; [DRV10]).

- basic: ``(ε_i, δ_i)``-DP mechanisms compose to ``(Σε_i, Σδ_i)``-DP;
- advanced (Dwork–Rothblum–Vadhan 2010, [DR14, Thm 3.20]): ``k`` adaptively chosen
  ``(ε₀, δ₀)``-DP mechanisms are ``(ε', kδ₀ + δ')``-DP with
  ``ε' = ε₀·sqrt(2k ln(1/δ')) + k·ε₀(e^{ε₀} − 1)``;
- the sources' per-step form ``ε₀ = ε / sqrt(8k ln(1/δ))`` ([DR14, Thm 11.2]), which satisfies
  the advanced bound for ``ε ≤ 1`` (checked by :func:`advanced`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from scipy.optimize import brentq

from dpbench.foundation.validation import check_delta, check_epsilon, check_positive_int


def basic(epsilons: Sequence[float], deltas: Sequence[float] | None = None) -> tuple[float, float]:
    """``(Σε_i, Σδ_i)``."""
    deltas = deltas if deltas is not None else [0.0] * len(epsilons)
    return float(sum(epsilons)), float(sum(deltas))


def advanced(epsilon0: float, k: int, delta_prime: float, delta0: float = 0.0) -> tuple[float, float]:
    """Total ``(ε', kδ₀ + δ')`` of ``k``-fold adaptive composition of ``(ε₀, δ₀)``-DP."""
    check_epsilon(epsilon0, name="epsilon0")
    check_positive_int(k, name="k")
    if not 0 < delta_prime < 1:
        raise ValueError(f"delta_prime must be in (0, 1), got {delta_prime!r}")
    if epsilon0 > 700:  # e^{ε₀} overflows a float; the bound is vacuous long before
        return math.inf, k * delta0 + delta_prime
    eps = epsilon0 * math.sqrt(2 * k * math.log(1 / delta_prime)) + k * epsilon0 * math.expm1(epsilon0)
    return eps, k * delta0 + delta_prime


def advanced_per_step(epsilon: float, k: int, delta_prime: float) -> float:
    """Largest ``ε₀`` whose ``k``-fold advanced composition is at most ``(ε, δ')``.

    Solved numerically (the bound is increasing in ε₀); never above ``ε`` itself, since
    basic composition already gives ``ε₀ = ε/k``, and we take the better of the two.
    """
    check_epsilon(epsilon)
    check_positive_int(k, name="k")
    if math.isinf(epsilon):
        return math.inf
    basic_step = epsilon / k
    f = lambda e0: advanced(e0, k, delta_prime)[0] - epsilon  # noqa: E731
    hi = epsilon
    adv_step = brentq(f, 1e-300, hi) if f(hi) > 0 else hi
    return max(basic_step, adv_step)


def seeds_per_step(epsilon: float, k: int, delta: float) -> float:
    """``ε/sqrt(8k ln(1/δ))`` ([DR14, Thm 11.2]'s calibration of one step of k)."""
    check_delta(delta)
    if delta == 0:
        raise ValueError("delta must be > 0 for advanced composition, got 0.0")
    return epsilon / math.sqrt(8 * k * math.log(1 / delta))


def composed_rounds(eps0: float, rounds: int, delta: float) -> tuple[float, float]:
    """(ε, δ) of ``rounds`` adaptive ε₀-DP rounds: the better of basic composition and, for
    δ > 0, advanced composition at δ (Dwork, Rothblum & Vadhan, "Boosting and differential privacy", FOCS 2010, Thm III.3)."""
    by_basic = basic([eps0] * rounds)
    if delta == 0:
        return by_basic
    by_advanced = advanced(eps0, rounds, delta)
    return by_basic if by_basic[0] <= by_advanced[0] else by_advanced
