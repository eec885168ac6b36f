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

import dataclasses
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.learners.base import Guarantee
from dpbench.learners.logistic_common import (
    LinearClassifier,
    NoisyGradientDescent,
    calibrate_gd,
    full_batch_clipped_gradient_sum,
    gaussian_step_noise,
    gd_epsilon,
    projected,
)
from dpbench.problems.base import Sample


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


    def fit_epsilons(
        self, sample: Sample, epsilons: Sequence[float], *, rngs: Sequence[np.random.Generator]
    ) -> list[LinearClassifier]:
        """The fits of this learner at each of ``epsilons`` (every other parameter its own) on
        one sample, the ``j``-th with ``rngs[j]``, in lockstep: one pass over X per step for
        all of them (:func:`~.logistic_common.full_batch_clipped_gradient_sum` on the ``(k, d)``
        iterates), each run's noise drawn from its own generator in the order a fit alone
        draws it. The same bits as ``[replace(self, epsilon=e).fit(sample, rng=r) for e, r in
        zip(epsilons, rngs)]`` (``tests/test_dp_gd.py`` checks): the iterates' rows never mix.
        The experiments' shard loop calls it for a shard's cells that differ only in ε
        (:func:`dpbench.experiments.base.run_batch_cell`)."""
        if len(epsilons) != len(rngs):
            raise ValueError(f"one generator per epsilon: {len(epsilons)} epsilons, {len(rngs)} generators")
        learners = [dataclasses.replace(self, epsilon=e) for e in epsilons]
        X, s, norms = projected(sample)
        n, d = X.shape
        stds = []
        for learner in learners:
            _, normaliser, std = learner.step_parameters(n)
            learner._record(1.0, std, n)
            stds.append(std)

        draws = [gaussian_step_noise(rng, std, 1, d) for rng, std in zip(rngs, stds)]  # descend's own noise, per fit

        def noise():
            return np.concatenate([np.broadcast_to(draw(), (1, d)) for draw in draws])

        gradient = lambda theta: full_batch_clipped_gradient_sum(theta, X, s, norms, self.clip)  # noqa: E731
        thetas = self._iterate(gradient, noise, float(n), (len(learners), d))
        return [LinearClassifier(theta, {"sigma": std / n}) for theta, std in zip(thetas, stds)]
