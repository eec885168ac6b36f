"""PAC learning over finite classes (algorithms.md §2; 000 §11.1, 001 §1, 002).

``log_class_size`` is ``ln|C|`` (``d ln 3`` for conjunctions with negations, ``d ln 2``
monotone). Functions return the error level α reached with probability ≥ 1 − β at sample
size ``n`` (a *bound*: the empirical (1−β)-quantile of the error should stay below it), or
an order-of-magnitude *shape* with unit constant where the source states only O(·).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "rate_consistent",
    "rate_agnostic_erm",
    "rate_exp_mech_pac",
    "rate_exp_mech_realizable",
    "n_exp_mech_realizable",
    "rate_exp_mech_empirical",
    "rate_sq",
    "rate_private_sq",
    "n_consistent",
    "n_exp_mech_pac",
]

Array = npt.ArrayLike


def rate_consistent(n: Array, log_class_size: float, beta: float = 0.05) -> npt.NDArray:
    r"""Realizable, any consistent learner (001 Theorem 1 and its proof):
    :math:`P[\exists h \in C: err(h) > \alpha, h \text{ consistent}] \le |C|(1-\alpha)^n \le e^{\ln|C| - \alpha n}`,
    so with probability ≥ 1 − β the error is at most :math:`\alpha(n) = (\ln|C| + \ln(1/\beta))/n`
    (the theorem's :math:`n = 2\ln|C|/\alpha` is the case β = 1/|C|)."""
    return (log_class_size + np.log(1 / beta)) / np.asarray(n, dtype=float)


def rate_agnostic_erm(n: Array, log_class_size: float, beta: float = 0.05, opt: float = 0.0) -> npt.NDArray:
    r"""Agnostic ERM (000 §11.1, Hoeffding + union bound):
    :math:`err(h) \le OPT + 2\sqrt{(\ln|C| + \ln(2/\beta)) / (2n)}` w.p. ≥ 1 − β
    (000 states :math:`n \ge \ln|C|/\alpha^2` up to constants)."""
    return opt + 2 * np.sqrt((log_class_size + np.log(2 / beta)) / (2 * np.asarray(n, dtype=float)))


def rate_exp_mech_pac(n: Array, epsilon: Array, log_class_size: float) -> npt.NDArray:
    r"""Exponential-mechanism learner, realizable (001 §1):
    :math:`n \ge 8\ln|C| / (\alpha \min\{\alpha, \varepsilon\})` suffices, i.e.
    :math:`\alpha(n, \varepsilon) = \max\{8\ln|C|/(\varepsilon n),\ \sqrt{8\ln|C|/n}\}`
    ("accurate with high probability"; the failure probability is
    :math:`|C|e^{-\varepsilon\alpha n/4} + e^{\ln|C| - \alpha n/2}`)."""
    n = np.asarray(n, dtype=float)
    return np.maximum(8 * log_class_size / (np.asarray(epsilon, dtype=float) * n), np.sqrt(8 * log_class_size / n))


def rate_exp_mech_realizable(n: Array, epsilon: Array, log_class_size: float, beta: float = 0.05) -> npt.NDArray:
    r"""Exponential-mechanism learner, realizable, with the *multiplicative* Chernoff bound in
    001 §1's proof (derived here; 001 uses the additive :math:`e^{-\alpha^2 n/2}`): a hypothesis
    with error > α has ≤ αn/2 sample mistakes w.p. ≤ :math:`e^{-\alpha n/8}`, and the mechanism
    outputs one with > αn/2 mistakes w.p. ≤ :math:`|C|e^{-\varepsilon\alpha n/4}`, so w.p. ≥ 1 − β

    .. math:: \alpha(n, \varepsilon) = \max\{8,\ 4/\varepsilon\}\,(\ln|C| + \ln(2/\beta))/n.

    Slope −1 in n for every ε, and n*(α) ∝ 1/ε while ε < ½ (flat above)."""
    n = np.asarray(n, dtype=float)
    return np.maximum(8.0, 4.0 / np.asarray(epsilon, dtype=float)) * (log_class_size + np.log(2 / beta)) / n


def n_exp_mech_realizable(alpha: Array, epsilon: Array, log_class_size: float, beta: float = 0.05) -> npt.NDArray:
    """Sample size at which :func:`rate_exp_mech_realizable` reaches α."""
    return np.maximum(8.0, 4.0 / np.asarray(epsilon, dtype=float)) * (log_class_size + np.log(2 / beta)) / np.asarray(alpha, dtype=float)


def rate_exp_mech_empirical(n: Array, epsilon: Array, log_class_size: float, beta: float = 0.05, opt: float = 0.0) -> npt.NDArray:
    r"""Exponential mechanism's *empirical* error (000 §11.1, utility theorem):
    :math:`err_S(h) \le OPT_S + 2(\ln|C| + \ln(1/\beta))/(\varepsilon n)` w.p. ≥ 1 − β."""
    return opt + 2 * (log_class_size + np.log(1 / beta)) / (np.asarray(epsilon, dtype=float) * np.asarray(n, dtype=float))


def rate_sq(n: Array, m: int) -> npt.NDArray:
    r"""Non-private SQ learning with ``m`` queries, shape only (000): :math:`n = O(\ln m/\alpha^2)`,
    i.e. :math:`\alpha \approx \sqrt{\ln m / n}` (unit constant)."""
    return np.sqrt(np.log(m) / np.asarray(n, dtype=float))


def rate_private_sq(n: Array, epsilon: Array, m: int) -> npt.NDArray:
    r"""Private SQ learning with ``m`` queries answered by Laplace noise, shape only (000 §11.1):
    :math:`n = O(\max\{m\ln m/(\varepsilon\alpha),\ \ln m/\alpha^2\})`, i.e.
    :math:`\alpha \approx \max\{m\ln m/(\varepsilon n),\ \sqrt{\ln m/n}\}` (unit constants)."""
    n = np.asarray(n, dtype=float)
    return np.maximum(m * np.log(m) / (np.asarray(epsilon, dtype=float) * n), np.sqrt(np.log(m) / n))


def n_consistent(alpha: Array, log_class_size: float, beta: float = 0.05) -> npt.NDArray:
    """Sample size at which :func:`rate_consistent` reaches α."""
    return (log_class_size + np.log(1 / beta)) / np.asarray(alpha, dtype=float)


def n_exp_mech_pac(alpha: Array, epsilon: Array, log_class_size: float) -> npt.NDArray:
    r""":math:`n(\alpha, \varepsilon) = 8\ln|C| / (\alpha \min\{\alpha, \varepsilon\})` (001 §1): slope −1 in ε
    while ε < α, flat (the non-private rate) once ε ≥ α."""
    alpha = np.asarray(alpha, dtype=float)
    return 8 * log_class_size / (alpha * np.minimum(alpha, np.asarray(epsilon, dtype=float)))
