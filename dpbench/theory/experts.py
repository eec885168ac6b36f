"""Theoretical regret and excess-loss bounds for the experts family (algorithms.md §4).

All regrets are *average* (per-round) regrets, ``(1/T)(Σ_t ℓ^t_{a_t} − min_i Σ_t ℓ^t_i)``,
with losses in [0, 1]. Functions are vectorised in ``T`` and ``epsilon``.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = [
    "regret_hedge",
    "regret_rwm",
    "regret_private_rwm",
    "regret_private_rwm_hp",
    "regret_private_mw_001",
    "regret_sv_experts",
    "rate_linear_learner",
    "excess_linear_learner_bound",
    "regret_lower_bound_coin",
]


def regret_hedge(T: npt.ArrayLike, eta: npt.ArrayLike, k: int) -> npt.NDArray:
    """Expected regret of RWM with rate η on any oblivious sequence (000 Thm 11.1).

    .. math:: \\mathbb{E}[\\mathrm{Regret}] \\le \\eta + \\frac{\\ln k}{\\eta T}

    Valid for every η > 0 (so also for the private calibrations); it bounds the
    ``expected_regret`` column exactly (no sampling error).
    """
    T, eta = np.asarray(T, dtype=float), np.asarray(eta, dtype=float)
    return eta + math.log(k) / (eta * T)


def regret_rwm(T: npt.ArrayLike, k: int) -> npt.NDArray:
    """000 Thm 11.1 at ``η = sqrt(ln k/T)``: :math:`2\\sqrt{\\ln k / T}` (exponent −½ in T)."""
    return 2 * np.sqrt(math.log(k) / np.asarray(T, dtype=float))


def regret_private_rwm(T: npt.ArrayLike, epsilon: npt.ArrayLike, delta: float, k: int) -> npt.NDArray:
    """000 Thm 11.3: :math:`\\sqrt{128\\ln(1/\\delta)}\\,\\ln k/(\\varepsilon\\sqrt T)` for
    ``η = ε/sqrt(32 T ln(1/δ))`` (exponent −½ in T, −1 in ε)."""
    T, epsilon = np.asarray(T, dtype=float), np.asarray(epsilon, dtype=float)
    return math.sqrt(128 * math.log(1 / delta)) * math.log(k) / (epsilon * np.sqrt(T))


def regret_private_rwm_hp(T: npt.ArrayLike, epsilon: npt.ArrayLike, delta: float, k: int, beta: float) -> npt.NDArray:
    """000 Thm 11.4 (w.p. 1−β): Thm 11.3's bound plus :math:`\\sqrt{\\ln(k/\\beta)/T}`."""
    return regret_private_rwm(T, epsilon, delta, k) + np.sqrt(math.log(k / beta) / np.asarray(T, dtype=float))


def regret_private_mw_001(T: npt.ArrayLike, epsilon: npt.ArrayLike, k: int) -> npt.NDArray:
    """001 Thms 2–3: MW with :math:`\\alpha = \\sqrt{\\varepsilon/(12T)}` has average regret
    :math:`\\le \\alpha + \\ln K/(\\alpha T) = O(\\ln K/\\sqrt{\\varepsilon T})`."""
    T, epsilon = np.asarray(T, dtype=float), np.asarray(epsilon, dtype=float)
    alpha = np.sqrt(epsilon / (12 * T))
    return alpha + math.log(k) / (alpha * T)


def regret_sv_experts(T: npt.ArrayLike, epsilon: npt.ArrayLike, k: int, beta: float = 0.1) -> npt.NDArray:
    """**[reconstructed]** high-probability bound of ``sv_experts`` on realizable sequences
    (δ = 0 calibration ε_s = ε/(2K), K = ⌈log₂ k⌉ + 1, Λ = 1 + (6/ε_s) ln(2T/β)):

    .. math:: \\mathrm{Regret} \\le \\frac{(K+1)\\,(\\Lambda + (4/\\varepsilon_s)\\ln(2T/\\beta))}{T}
        = \\tilde O\\Big(\\frac{\\log^2 k \\,\\log T}{\\varepsilon T}\\Big)

    (exponent ≈ −1 in T). Asi et al. (COLT 2023) prove total regret
    :math:`\\tilde O(\\log^{1.5} k/\\varepsilon)` for their algorithm.
    """
    T, epsilon = np.asarray(T, dtype=float), np.asarray(epsilon, dtype=float)
    K = math.ceil(math.log2(k)) + 1
    eps_s = epsilon / (2 * K)
    lam = 1 + 6 / eps_s * np.log(2 * T / beta)
    return (K + 1) * (lam + 4 / eps_s * np.log(2 * T / beta)) / T


def rate_linear_learner(T: npt.ArrayLike, epsilon: npt.ArrayLike, delta: float, d: int, beta: float) -> npt.NDArray:
    """000 Thm 11.6 (shape, unit constant inside the O): excess population loss
    :math:`\\sqrt{\\ln(1/\\delta)}\\,\\ln(d/\\beta)/(\\varepsilon\\sqrt T)`."""
    T, epsilon = np.asarray(T, dtype=float), np.asarray(epsilon, dtype=float)
    return math.sqrt(math.log(1 / delta)) * math.log(d / beta) / (epsilon * np.sqrt(T))


def excess_linear_learner_bound(T: npt.ArrayLike, eta: npt.ArrayLike, d: int, beta: float) -> npt.NDArray:
    """A proven w.p. ≥ 1−3β bound on LinearLearner's excess loss ``<θ^T, μ> − min μ`` for
    x ∈ {−1, 1}^d (losses (x+1)/2 to the experts), by online-to-batch conversion:

    .. math:: 2\\Big(\\eta + \\frac{\\ln d}{\\eta T}\\Big) + 4\\sqrt{\\frac{2\\ln(2/\\beta)}{T}}
        + 2\\sqrt{\\frac{2\\ln(1/\\beta)}{T}}

    (expected regret of Thm 11.1 in x-units, two Azuma terms for the played actions vs
    p_t and for <p_t, x_t> vs <p_t, μ>, one Hoeffding term for the best coordinate).
    """
    T = np.asarray(T, dtype=float)
    return 2 * regret_hedge(T, eta, d) + 4 * np.sqrt(2 * math.log(2 / beta) / T) + 2 * np.sqrt(2 * math.log(1 / beta) / T)


def regret_lower_bound_coin(T: npt.ArrayLike, k: int) -> npt.NDArray:
    """Asymptotic minimax lower bound on fair coins (Cesa-Bianchi & Lugosi 2006, Thm 3.7):
    :math:`\\sqrt{\\ln k/(2T)}` (expected regret of any algorithm, as T, k → ∞)."""
    return np.sqrt(math.log(k) / (2 * np.asarray(T, dtype=float)))
