"""``objective_perturbation``: a random linear term in the objective ([CMS11, Alg. 2]).

For the logistic loss (``|ℓ''| ≤ c = ¼``) and features in the unit ball:

.. math:: \\varepsilon' = \\varepsilon - \\ln\\Big(1 + \\frac{2c}{n\\lambda} + \\frac{c^2}{n^2\\lambda^2}\\Big);\\quad
          \\text{if } \\varepsilon' \\le 0:\\ \\Delta = \\frac{c}{n(e^{\\varepsilon/4}-1)} - \\lambda,\\ \\varepsilon' = \\varepsilon/2;
          \\ \\text{else } \\Delta = 0,

.. math:: \\hat\\theta = \\arg\\min_\\theta\\ J_\\lambda(\\theta; S) + \\frac{1}{n}\\langle b, \\theta\\rangle
          + \\frac{\\Delta}{2}\\|\\theta\\|^2, \\qquad p(b) \\propto e^{-\\varepsilon'\\|b\\|/2}.

Privacy: ε-DP, replace-one ([CMS11, Thm 9]), features projected onto the unit ball.
Utility: ``J_λ(θ̂) − J_λ(θ*) ≤ ‖b‖²/(n²(λ+Δ)) + Δ ln 2/λ`` (strong convexity of the perturbed
objective; ``λ‖θ*‖²/2 ≤ J_λ(0) = ln 2``), with ``‖b‖ ≤ (2/ε')Γ⁻¹_d(1−β)`` w.p. 1−β:
``O(d²/(n²λε²))`` once ``Δ = 0`` (:func:`dpbench.theory.excess_objective_perturbation`).

References
----------
.. [CMS11] Chaudhuri, Monteleoni & Sarwate, "Differentially private empirical risk
   minimization", JMLR 12, 2011, Algorithm 2.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.learners.logistic_common import (
    LOGISTIC_SMOOTHNESS,
    LinearClassifier,
    PureDPLogistic,
    l2_laplace_noise,
    minimise,
    projected,
)
from dpbench.mechanisms.laws import release_recorder
from dpbench.problems.base import Sample


def calibration(epsilon: float, n: int, lam: float, c: float = LOGISTIC_SMOOTHNESS) -> tuple[float, float]:
    """``(ε', Δ)`` of [CMS11, Alg. 2] (see the module docstring)."""
    eps_prime = epsilon - math.log1p(2 * c / (n * lam) + c**2 / (n * lam) ** 2)
    if eps_prime > 0:
        return eps_prime, 0.0
    return epsilon / 2, max(0.0, c / (n * math.expm1(epsilon / 4)) - lam)


def objective_epsilon(eps_prime: float, n: float, lam: float, c: float = LOGISTIC_SMOOTHNESS) -> float:
    """Total ε of [CMS11, Alg. 2] with noise density ``∝ e^{−ε'‖b‖/2}`` and total
    regularisation ``lam`` (λ + Δ): ``ε' + ln(1 + 2c/(n lam) + c²/(n lam)²)`` (the inverse
    of :func:`calibration`; the audit's per-step accounting check)."""
    return eps_prime + math.log1p(2 * c / (n * lam) + c**2 / (n * lam) ** 2)


@register_learner(name="objective_perturbation", twin="sklearn_logreg")
@dataclass(frozen=True, kw_only=True)
class ObjectivePerturbation(PureDPLogistic):
    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0}
        yield {"epsilon": 0.05, "lam": 0.001}  # ε' ≤ 0 at small n: extra regularisation
        yield {"epsilon": math.inf}

    def noise(self, n: float, d: int, *, rng: np.random.Generator, runs: int | None = None) -> np.ndarray:
        """``b`` with density ``∝ e^{−ε'‖b‖/2}`` for ``n`` examples (``(d,)`` or ``(runs, d)``)."""
        eps_prime, extra = calibration(self.epsilon, n, self.lam)

        recording = release_recorder()
        if recording is not None:  # the per-step accounting check: the noise drawn with, and the regulariser
            recording.append({"mechanism": "objective", "scale": 2.0 / eps_prime, "n": n, "lam": self.lam + extra})
        return l2_laplace_noise(d, 2.0 / eps_prime, rng=rng, runs=runs)

    def perturbed_minimiser(self, X: np.ndarray, s: np.ndarray, b: np.ndarray, *, weights: np.ndarray | None = None) -> np.ndarray:
        """``argmin J_λ(θ) + ⟨b, θ⟩/n + Δ‖θ‖²/2`` for one ``b`` ``(d,)`` or a batch ``(R, d)``;
        ``weights``: example multiplicities (``n = Σ weights``)."""
        n = len(s) if weights is None else float(np.sum(weights))
        _, extra = calibration(self.epsilon, n, self.lam)
        return minimise(X, s, self.lam + extra, linear=np.asarray(b) / n, weights=weights)

    def release(self, sample: Sample, *, rng: np.random.Generator, runs: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(θ, b)`` (what :meth:`fit` outputs), or ``runs`` independent releases at once
        (``(runs, d)`` each: the privacy audit's batch, one code path with ``fit``). The batch
        minimises over the sample's distinct rows with their multiplicities (the same
        objective ``J_λ``; the single release keeps the rows as they are)."""
        X, s, _ = projected(sample)
        n, d = X.shape
        if math.isinf(self.epsilon):
            theta = minimise(X, s, self.lam)
            return (theta, np.zeros(d)) if runs is None else (np.broadcast_to(theta, (runs, d)), np.zeros((runs, d)))
        b = self.noise(n, d, rng=rng, runs=runs)
        if runs is None:
            return self.perturbed_minimiser(X, s, b), b
        rows, weights = np.unique(np.column_stack([X, s]), axis=0, return_counts=True)
        return self.perturbed_minimiser(rows[:, :d], rows[:, d], b, weights=weights.astype(np.float64)), b

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> LinearClassifier:
        theta, b = self.release(sample, rng=rng)
        return LinearClassifier(theta, {"sigma": float(np.linalg.norm(b))})
