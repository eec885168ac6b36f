"""Audits of the mechanisms (issue 10): Laplace, Gaussian (classic and analytic),
exponential, AboveThreshold. Each ``broken`` copy halves the noise (or doubles the
exponential mechanism's rate) and claims the same ε.

Samplers are vectorised (one call draws every run) through the mechanisms' own code:
``Laplace.sample``, ``GaussianMechanism.sample``, ``ExponentialMechanism.logits`` with a
Gumbel-max over runs × outcomes, and the noise scales of :mod:`dpbench.mechanisms.sparse_vector`.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from dpbench.audits import per_run, register_audit
from dpbench.audits.engine import AuditCase
from dpbench.mechanisms.exact import epsilon_for_delta
from dpbench.mechanisms.exponential import ExponentialMechanism
from dpbench.mechanisms.gaussian import GaussianMechanism, analytic_delta
from dpbench.mechanisms.laplace import Laplace
from dpbench.mechanisms.sparse_vector import query_noise

CORRECT, BROKEN = "correct", "broken"
#: neighbouring relation of a mechanism audit: the query value moves by its sensitivity
SENSITIVITY_PAIR = "sensitivity"


@register_audit("laplace", delta=0.0)
def laplace_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    """f(D) = 0, f(D') = 1 (Δ₁ = 1): the privacy loss is ε on every output ≥ 1.
    Exact ε(0) of the pair = Δ₁/b (b the noise scale): ε correct, 2ε broken."""

    def case(variant: str, mech: Laplace) -> AuditCase:
        return AuditCase(
            "laplace", variant, epsilon, 0.0, SENSITIVITY_PAIR, "f(D)=0 vs f(D')=1, Delta1=1",
            sample=lambda side, runs, rng: mech.sample(np.full(runs, float(side)), rng=rng),
            exact=lambda: 1.0 / mech.scale,
        )

    return [case(CORRECT, Laplace(epsilon=epsilon, sensitivity=1.0)), case(BROKEN, Laplace(epsilon=2 * epsilon, sensitivity=1.0))]


def gaussian_exact(sigma: float, delta: float) -> float:
    """Exact ε(δ) of N(0, σ²) vs N(1, σ²): the root of Balle–Wang's δ(ε) (analytic_delta)."""
    f = lambda e: analytic_delta(sigma=sigma, epsilon=e, sensitivity=1.0) - delta  # noqa: E731
    return 0.0 if f(0.0) <= 0 else float(brentq(f, 0.0, 50.0 / sigma + 50.0, xtol=1e-12))


def _gaussian_cases(name: str, calibration: str, epsilon: float, delta: float) -> list[AuditCase]:
    mech = GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=1.0, calibration=calibration)
    sigma = mech.sigma

    def case(variant: str, s: float) -> AuditCase:
        return AuditCase(
            name, variant, epsilon, delta, SENSITIVITY_PAIR, f"f(D)=0 vs f(D')=1, Delta2=1, sigma={s:.4g}",
            sample=lambda side, runs, rng: float(side) + s * rng.standard_normal(runs) if variant == BROKEN else mech.sample(np.full(runs, float(side)), rng=rng),
            exact=lambda: gaussian_exact(s, delta), method="gdp",
        )

    return [case(CORRECT, sigma), case(BROKEN, sigma / 2)]


@register_audit("gaussian_analytic", epsilon=1.0, delta=1e-5)
def gaussian_analytic_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    """Balle–Wang σ (exact: ε(δ) of the correct pair equals the claim); broken: σ/2."""
    return _gaussian_cases("gaussian_analytic", "analytic", epsilon, delta)


@register_audit("gaussian_classic", epsilon=0.9, delta=1e-3)
def gaussian_classic_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    """σ = sqrt(2 ln(1.25/δ))/ε (valid for ε < 1 only; raises otherwise); broken: σ/2."""
    return _gaussian_cases("gaussian_classic", "classic", epsilon, delta)


#: outcomes of the exponential-mechanism pair
EM_OUTCOMES = 10


@register_audit("exponential", delta=0.0, cost=per_run(1.75e-6))  # 17 s at 10⁷ runs (measured, see dpbench.audits)
def exponential_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    """m = 10 outcomes, scores u_D = (1, 0, …, 0) and u_D' = (0, 1, …, 1) (Δu = 1): outcome 0
    gains ε/2 on D and every other outcome ε/2 on D', so its privacy loss is
    ln(e^{ε/2}(1 + 9e^{ε/2})/(e^{ε/2} + 9)) ≈ 0.9ε (→ ε as m → ∞). Exact ε(0) from the two laws."""
    u = [np.eye(EM_OUTCOMES)[0], 1.0 - np.eye(EM_OUTCOMES)[0]]

    def case(variant: str, mech: ExponentialMechanism) -> AuditCase:
        def sample(side: int, runs: int, rng: np.random.Generator) -> np.ndarray:
            logits = mech.logits(u[side])
            return np.argmax(logits + rng.gumbel(size=(runs, EM_OUTCOMES)), axis=1)

        return AuditCase(
            "exponential", variant, epsilon, 0.0, SENSITIVITY_PAIR, f"{EM_OUTCOMES} outcomes, u_D=(1,0,...,0) vs u_D'=(0,1,...,1)",
            sample=sample, exact=lambda: epsilon_for_delta(mech.log_probabilities(u[0]), mech.log_probabilities(u[1]), 0.0),
        )

    return [case(CORRECT, ExponentialMechanism(epsilon=epsilon)), case(BROKEN, ExponentialMechanism(epsilon=2 * epsilon))]


#: queries of the AboveThreshold pair (Lyu, Su & Li 2017 [LSL17, Thm 3]: its counterexample's shape)
SVT_QUERIES = 5


@register_audit("above_threshold", delta=0.0)
def above_threshold_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    """Threshold L = 0; D: queries (0, 0, 0, 0, 1), D': (1, 1, 1, 1, 0) (each moves by 1): the
    output "⊥⊥⊥⊥⊤" is likelier on D by both the threshold shift and the last query — the
    classic input on which AboveThreshold's ε is (nearly) attained. The output is the firing
    index (−1 = never). T̂ = Lap(2/ε), ν_i = Lap(4/ε) (:mod:`dpbench.mechanisms.sparse_vector`);
    broken: both scales halved."""
    queries = [np.r_[np.zeros(SVT_QUERIES - 1), 1.0], np.r_[np.ones(SVT_QUERIES - 1), 0.0]]

    def case(variant: str, eps: float) -> AuditCase:
        def sample(side: int, runs: int, rng: np.random.Generator) -> np.ndarray:
            threshold = 0.5 * query_noise(eps, runs, rng=rng)  # Lap(2/ε) = ½·Lap(4/ε)
            noise = query_noise(eps, runs * SVT_QUERIES, rng=rng).reshape(runs, SVT_QUERIES)
            above = queries[side] + noise >= threshold[:, None]
            return np.where(above.any(axis=1), above.argmax(axis=1), -1)

        return AuditCase("above_threshold", variant, epsilon, 0.0, SENSITIVITY_PAIR, "L=0, q_D=(0,0,0,0,1) vs q_D'=(1,1,1,1,0)", sample=sample)

    return [case(CORRECT, epsilon), case(BROKEN, 2 * epsilon)]
