"""``dp_gd``: full-batch differentially private gradient descent
([BST14]).

From ``θ₀ = 0``, for ``t = 1..T``:

.. math:: \\hat g_t = \\frac1n\\sum_{i=1}^n \\mathrm{clip}_C\\big(\\nabla\\ell(\\theta_{t-1}; x_i, y_i)\\big)
          + \\lambda\\theta_{t-1} + N\\Big(0, \\big(z\\,\\tfrac{2C}{n}\\big)^2 I_d\\Big),\\qquad
          \\theta_t = \\theta_{t-1} - \\eta\\,\\hat g_t,

``clip_C(g) = g·min(1, C/‖g‖)``; the clipped average has ℓ2-sensitivity ``2C/n`` under
replace-one neighbours (:meth:`~.logistic_common.NoisyGradientDescent.descend`). The noise multiplier ``z`` is the smallest (to 0.1%) whose T-fold
adaptive composition of Gaussian mechanisms is (ε, δ)-DP by ``dp-accounting``'s RDP
accountant (:func:`.logistic_common.calibrate_gd`, checked ≤ target) — tighter than the
advanced composition [DRV10]. Step ``η = 1/(¼ + λ)`` by default (the
smoothness of ``J_λ``); output: the average of the last ⌈T/2⌉ iterates (suffix
averaging, post-processing).

Privacy: (ε, δ)-DP, replace-one, δ > 0 required for finite ε. Clipping makes it hold for
any features (the loss gradient of a unit-ball example already has norm ≤ 1, so with
``C ≥ 1`` clipping is inactive on in-distribution data).
Utility: excess empirical risk ``Õ(d ln(1/δ)/(λ n² ε²))`` for λ-strongly convex objectives
with ``T ≈ n²`` ([BST14, Thm 2.4]); with a fixed T here, plus the optimisation error
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

from dpbench.foundation.registry import register_learner
from dpbench.learners.base import Guarantee
from dpbench.learners.logistic_common import (
    NoisyGradientDescent,
    calibrate_gd,
    gd_epsilon,
)


@register_learner(name="dp_gd")
@dataclass(frozen=True, kw_only=True)
class DPGD(NoisyGradientDescent):
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

    def epsilon_of_noise(self, std: float, q: float) -> float:
        """The learner's accountant: ε at its δ of its ``steps`` full-batch steps with noise
        std ``std`` on the clipped gradient sum (sensitivity 2C, replace-one):
        :func:`~dpbench.learners.logistic_common.gd_epsilon` at ``z = std/(2C)`` (the audit's
        per-step accounting check feeds it the std the steps drew with)."""
        return gd_epsilon(std / (2 * self.clip), self.steps, self.delta)

    def step_parameters(self, n: int) -> tuple[float, float, float]:
        """Full batch (``q = 1``), normaliser ``n``, noise std ``z·2C`` on the clipped sum."""
        return 1.0, float(n), self.noise_multiplier() * 2 * self.clip

