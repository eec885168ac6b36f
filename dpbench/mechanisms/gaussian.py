"""The Gaussian mechanism ([DR14, Thm A.1]; [BW18]).

``M(D) = f(D) + N(0, σ² I)`` for ``f`` with ℓ2-sensitivity ``Δ₂``. Two calibrations:

- **classic** ([DR14, Thm A.1]):

  .. math:: \\sigma = \\frac{\\Delta_2 \\sqrt{2 \\ln(1.25/\\delta)}}{\\varepsilon},

  a valid (ε, δ)-DP calibration **only for ε < 1**: requesting it with ε ≥ 1 raises
  ``ValueError`` naming ``epsilon``.
- **analytic** ([BW18, Thm 8]): the smallest σ with

  .. math:: \\Phi\\Big(\\frac{\\Delta_2}{2\\sigma} - \\frac{\\varepsilon\\sigma}{\\Delta_2}\\Big)
            - e^{\\varepsilon}\\,\\Phi\\Big(-\\frac{\\Delta_2}{2\\sigma} - \\frac{\\varepsilon\\sigma}{\\Delta_2}\\Big)
            \\le \\delta,

  exact (necessary and sufficient) for every ε > 0, solved with scipy's ``brentq`` on
  ``log σ`` and then checked.

``calibration="auto"`` (the default) uses the classic formula while ε < 1 and **switches
to the analytic mechanism for ε ≥ 1**, where the classic one is not a valid calibration.
``epsilon = inf`` adds no noise (the non-private limit).

Privacy: (ε, δ)-DP w.r.t. whatever neighbour relation ``Δ₂`` was computed for.
Not hardened against floating-point attacks (we measure, we do not deploy).

References
----------
.. [DR14] Dwork & Roth, *The Algorithmic Foundations of Differential Privacy*, Thm A.1.
.. [BW18] Balle & Wang, "Improving the Gaussian mechanism for differential privacy:
   analytical calibration and optimal denoising", ICML 2018.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.optimize import brentq
from scipy.special import log_ndtr

from dpbench.foundation.validation import check_delta, check_epsilon, check_positive, normalise
from dpbench.mechanisms.guarantee import Guarantee

__all__ = ["GaussianMechanism", "classic_sigma", "analytic_sigma", "analytic_delta", "analytic_epsilon"]

CALIBRATIONS = ("auto", "classic", "analytic")


def classic_sigma(*, epsilon: float, delta: float, sensitivity: float) -> float:
    """``Δ₂ sqrt(2 ln(1.25/δ)) / ε`` (valid for ε < 1 only; raises otherwise)."""
    epsilon = check_epsilon(epsilon)
    if not epsilon < 1:
        raise ValueError(f"epsilon must be < 1 for the classic Gaussian calibration, got {epsilon!r}; use calibration='analytic'")
    delta = _positive_delta(delta)
    return check_positive(sensitivity, name="sensitivity") * math.sqrt(2 * math.log(1.25 / delta)) / epsilon


def analytic_delta(*, sigma: float, epsilon: float, sensitivity: float) -> float:
    """The exact δ(ε) of the Gaussian mechanism with noise ``σ`` ([BW18] Thm 8)."""
    a = sensitivity / (2 * sigma)
    b = epsilon * sigma / sensitivity
    # Φ(a − b) − e^ε Φ(−a − b), the second term in log space to avoid overflow
    first = math.exp(log_ndtr(a - b))
    second = math.exp(epsilon + log_ndtr(-a - b)) if epsilon + log_ndtr(-a - b) < 700 else math.inf
    return max(0.0, first - second)


def analytic_epsilon(*, sigma: float, delta: float, sensitivity: float) -> float:
    """The exact ε at δ of the Gaussian mechanism with noise ``σ`` (inverse of
    :func:`analytic_delta` in ε, by ``brentq``; 0 if ``δ ≥ δ(0)``)."""
    delta = _positive_delta(delta)
    if analytic_delta(sigma=sigma, epsilon=0.0, sensitivity=sensitivity) <= delta:
        return 0.0
    hi = 1.0
    while analytic_delta(sigma=sigma, epsilon=hi, sensitivity=sensitivity) > delta:
        hi *= 2
    return brentq(lambda e: analytic_delta(sigma=sigma, epsilon=e, sensitivity=sensitivity) - delta, 0.0, hi, xtol=1e-12, rtol=1e-10)


def analytic_sigma(*, epsilon: float, delta: float, sensitivity: float) -> float:
    """The smallest σ with ``analytic_delta(σ) ≤ δ`` ([BW18]); checked before returning."""
    epsilon = check_epsilon(epsilon)
    delta = _positive_delta(delta)
    sensitivity = check_positive(sensitivity, name="sensitivity")
    f = lambda log_s: analytic_delta(sigma=math.exp(log_s), epsilon=epsilon, sensitivity=sensitivity) - delta  # noqa: E731
    lo, hi = math.log(sensitivity) - 30, math.log(sensitivity) + 30
    log_s = brentq(f, lo, hi, xtol=1e-12, rtol=1e-12)
    sigma = math.exp(log_s)
    while analytic_delta(sigma=sigma, epsilon=epsilon, sensitivity=sensitivity) > delta:  # round up
        sigma *= 1 + 1e-10
    return sigma


def _positive_delta(delta: float) -> float:
    delta = check_delta(delta)
    if delta == 0:
        raise ValueError("delta must be > 0 for the Gaussian mechanism, got 0.0")
    return delta


@dataclass(frozen=True, kw_only=True)
class GaussianMechanism:
    """``f(D) + N(0, σ² I)`` with σ from :func:`classic_sigma` or :func:`analytic_sigma`.

    Parameters
    ----------
    epsilon
        Privacy parameter, > 0 (``inf``: no noise).
    delta
        0 < δ < 1.
    sensitivity
        ℓ2-sensitivity ``Δ₂`` of ``f``, > 0.
    calibration
        ``auto`` (classic for ε < 1, analytic for ε ≥ 1), ``classic`` (raises for ε ≥ 1)
        or ``analytic``.
    """

    epsilon: float
    delta: float
    sensitivity: float
    calibration: str = "auto"

    def __post_init__(self) -> None:
        normalise(
            self,
            epsilon=check_epsilon(self.epsilon),
            delta=check_delta(self.delta),
            sensitivity=check_positive(self.sensitivity, name="sensitivity"),
        )
        if self.calibration not in CALIBRATIONS:
            raise ValueError(f"calibration must be one of {CALIBRATIONS}, got {self.calibration!r}")
        if not math.isinf(self.epsilon):
            _positive_delta(self.delta)
            if self.calibration == "classic" and not self.epsilon < 1:
                raise ValueError(f"epsilon must be < 1 for the classic Gaussian calibration, got {self.epsilon!r}")

    @property
    def method(self) -> str:
        """The calibration actually used (``auto`` resolved)."""
        if self.calibration == "auto":
            return "classic" if self.epsilon < 1 else "analytic"
        return self.calibration

    @property
    def sigma(self) -> float:
        """Standard deviation of the noise per coordinate."""
        if math.isinf(self.epsilon):
            return 0.0
        kw = dict(epsilon=self.epsilon, delta=self.delta, sensitivity=self.sensitivity)
        return classic_sigma(**kw) if self.method == "classic" else analytic_sigma(**kw)

    def sample(self, value: npt.ArrayLike, *, rng: np.random.Generator) -> npt.NDArray[np.float64]:
        value = np.asarray(value, dtype=np.float64)
        sigma = self.sigma
        if sigma == 0:
            return value.copy()
        return value + rng.normal(0.0, sigma, size=value.shape)

    def variance(self) -> float:
        return self.sigma**2

    def tail_bound(self, beta: float) -> float:
        """``t`` with ``P[|noise_j| > t] = β`` for one coordinate."""
        from scipy.stats import norm

        return self.sigma * float(norm.isf(beta / 2))

    def guarantee(self) -> Guarantee:
        if math.isinf(self.epsilon):
            return Guarantee(epsilon=math.inf, delta=0.0)
        return Guarantee(epsilon=self.epsilon, delta=self.delta)
