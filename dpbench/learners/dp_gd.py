"""``dp_gd``: full-batch differentially private gradient descent (003 Algorithm 2;
Bassily, Smith & Thakurta 2014; algorithms.md §6).

From ``θ₀ = 0``, for ``t = 1..T``:

.. math:: \\hat g_t = \\frac1n\\sum_{i=1}^n \\mathrm{clip}_C\\big(\\nabla\\ell(\\theta_{t-1}; x_i, y_i)\\big)
          + \\lambda\\theta_{t-1} + N\\Big(0, \\big(z\\,\\tfrac{2C}{n}\\big)^2 I_d\\Big),\\qquad
          \\theta_t = \\theta_{t-1} - \\eta\\,\\hat g_t,

``clip_C(g) = g·min(1, C/‖g‖)``; the clipped average has ℓ2-sensitivity ``2C/n`` under
replace-one neighbours. The noise multiplier ``z`` is the smallest (to 0.1%) whose T-fold
adaptive composition of Gaussian mechanisms is (ε, δ)-DP by ``dp-accounting``'s RDP
accountant (:func:`.logistic_common.calibrate_gd`, checked ≤ target) — tighter than the
advanced composition suggested in 003 §5.3. Step ``η = 1/(¼ + λ)`` by default (the
smoothness of ``J_λ``); output: the average of the last ⌈T/2⌉ iterates (suffix
averaging, post-processing).

Privacy: (ε, δ)-DP, replace-one, δ > 0 required for finite ε. Clipping makes it hold for
any features (the loss gradient of a unit-ball example already has norm ≤ 1, so with
``C ≥ 1`` clipping is inactive on in-distribution data).
Utility: excess empirical risk ``Õ(d ln(1/δ)/(λ n² ε²))`` for λ-strongly convex objectives
with ``T ≈ n²`` (BST14 Thm 2.4); with a fixed T here, plus the optimisation error
``(1 − ηλ)^T (J_λ(0) − J_λ(θ*))`` (:func:`dpbench.theory.excess_dp_gd`, a shape).

References
----------
.. [BST14] Bassily, Smith & Thakurta, "Private empirical risk minimization: efficient
   algorithms and tight error bounds", FOCS 2014.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from dpbench.learners.base import Guarantee
from dpbench.learners.logistic_common import (
    LinearClassifier,
    NoisyGradientDescent,
    calibrate_gd,
    clipped_gradient_sum,
    signs,
    unit_ball,
)
from dpbench.problems.base import Sample
from dpbench.registry import register_learner


@register_learner
@dataclass(frozen=True, kw_only=True)
class DPGD(NoisyGradientDescent):
    name: ClassVar[str] = "dp_gd"

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0, "delta": 1e-5, "steps": 20}
        yield {"epsilon": math.inf, "delta": 0.0, "steps": 20}

    def noise_multiplier(self) -> float:
        """``z``: noise std per coordinate of the gradient *sum* is ``z·2C``."""
        if math.isinf(self.epsilon):
            return 0.0
        return calibrate_gd(self.epsilon, self.delta, self.steps)[0]

    def guarantee(self) -> Guarantee:
        if math.isinf(self.epsilon):
            return Guarantee(epsilon=math.inf, delta=0.0)
        return Guarantee(epsilon=calibrate_gd(self.epsilon, self.delta, self.steps)[1], delta=self.delta)

    def _clip_norm(self) -> float | None:
        """The clipping threshold used by ``fit`` (the privacy tests override it, together
        with :meth:`_features`, to build the broken variant the audit must catch)."""
        return self.clip

    def _features(self, X: np.ndarray) -> np.ndarray:
        """Features as seen by the optimiser: projected onto the unit ball (so that all
        learners minimise the same ``J_λ``; privacy rests on the clipping alone)."""
        return unit_ball(X)

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> LinearClassifier:
        X, s = self._features(sample.X), signs(sample.y)
        n, d = X.shape
        x_norms = np.linalg.norm(X, axis=1)
        sigma = self.noise_multiplier() * 2 * self.clip / n  # std of the noise on the average
        noise = rng.standard_normal((self.steps, d)) * sigma if sigma > 0 else np.zeros((self.steps, d))
        eta, clip = self.step_size, self._clip_norm()
        theta = np.zeros(d)
        average = np.zeros(d)
        start = self.steps // 2
        for t in range(self.steps):
            g = clipped_gradient_sum(theta, X, s, x_norms, clip) / n + self.lam * theta + noise[t]
            theta = theta - eta * g
            if t >= start:
                average += theta
        return LinearClassifier(average / (self.steps - start), {"sigma": sigma})
