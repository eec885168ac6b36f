"""``output_perturbation``: regularised logistic regression + noise on the minimiser
([CMS11, Alg. 1]).

.. math:: \\theta^* = \\arg\\min_\\theta J_\\lambda(\\theta; S), \\qquad
          \\hat\\theta = \\theta^* + b, \\qquad p(b) \\propto e^{-\\varepsilon\\|b\\|_2/\\Delta},
          \\quad \\Delta = \\frac{2}{n\\lambda}

(``‖b‖ ~ Γ(d, Δ/ε)``, direction uniform). ``Δ`` is the ℓ2-sensitivity of ``θ*`` under
replace-one neighbours for a 1-Lipschitz loss and λ-strongly convex ``J_λ`` ([CMS11, Cor. 8]).
With ``mechanism="gaussian"`` the noise is instead the Gaussian mechanism
(:class:`dpbench.mechanisms.gaussian.GaussianMechanism`, classic calibration for ε < 1,
analytic for ε ≥ 1) with the same ``Δ`` and the cell's δ > 0.

Privacy: ε-DP (``l2_laplace``) or (ε, δ)-DP (``gaussian``), replace-one, for features in
the unit ball (rows are projected onto it first; see :mod:`.logistic_common`).
Utility: ``J_λ`` is (¼+λ)-smooth and ``∇J_λ(θ*) = 0``, so
``J_λ(θ̂) − J_λ(θ*) ≤ (¼+λ)/2·‖b‖²``, and ``‖b‖ ≤ (Δ/ε)·Γ⁻¹_d(1−β)`` w.p. 1−β: excess
empirical risk ``O(d²/(n²λ²ε²))`` (:func:`dpbench.theory.excess_output_perturbation`).

References
----------
.. [CMS11] Chaudhuri, Monteleoni & Sarwate, "Differentially private empirical risk
   minimization", JMLR 12, 2011.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.foundation.validation import check_delta, check_epsilon, normalise
from dpbench.learners.base import Guarantee, Learner
from dpbench.learners.logistic_common import DEFAULT_LAM, LinearClassifier, check_lam, l2_laplace_noise, optimum
from dpbench.mechanisms.gaussian import GaussianMechanism
from dpbench.mechanisms.laws import release_recorder
from dpbench.problems.base import Sample

MECHANISMS = ("l2_laplace", "gaussian")


def sensitivity(n: int, lam: float) -> float:
    """ℓ2-sensitivity ``2/(nλ)`` of the regularised minimiser ([CMS11, Cor. 8])."""
    return 2.0 / (n * lam)


@register_learner(name="output_perturbation", twin="sklearn_logreg", family="batch", private=True,
                  problems=("logistic", "halfspace"))
@dataclass(frozen=True, kw_only=True)
class OutputPerturbation(Learner):
    epsilon: float
    delta: float = 0.0
    lam: float = DEFAULT_LAM
    mechanism: str = "l2_laplace"

    def __post_init__(self) -> None:
        normalise(self, epsilon=check_epsilon(self.epsilon), delta=check_delta(self.delta), lam=check_lam(self.lam))
        if self.mechanism not in MECHANISMS:
            raise ValueError(f"mechanism must be one of {MECHANISMS}, got {self.mechanism!r}")
        if self.mechanism == "gaussian" and not math.isinf(self.epsilon) and self.delta == 0:
            raise ValueError("delta must be > 0 for mechanism='gaussian', got 0.0")

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0}
        yield {"epsilon": 0.5, "delta": 1e-5, "mechanism": "gaussian"}
        yield {"epsilon": math.inf}

    def guarantee(self) -> Guarantee:
        if math.isinf(self.epsilon):
            return Guarantee(epsilon=math.inf, delta=0.0)
        return Guarantee(epsilon=self.epsilon, delta=self.delta if self.mechanism == "gaussian" else 0.0)

    def noise(self, n: int, d: int, *, rng: np.random.Generator, runs: int | None = None) -> np.ndarray:
        """The perturbation ``b`` for a sample of size ``n`` in dimension ``d`` (``(d,)``, or
        ``(runs, d)`` independent draws: the privacy audit's batch)."""
        shape = d if runs is None else (runs, d)
        if math.isinf(self.epsilon):
            return np.zeros(shape)
        delta2 = sensitivity(n, self.lam)

        recording = release_recorder()
        if self.mechanism == "gaussian":
            mech = GaussianMechanism(epsilon=self.epsilon, delta=self.delta, sensitivity=delta2)
            if recording is not None:  # the per-step accounting check: the noise drawn with
                recording.append({"mechanism": "gaussian", "scale": mech.sigma, "sensitivity": delta2})
            return mech.sample(np.zeros(shape), rng=rng)
        if recording is not None:
            recording.append({"mechanism": "l2_laplace", "scale": delta2 / self.epsilon, "sensitivity": delta2})
        return l2_laplace_noise(d, delta2 / self.epsilon, rng=rng, runs=runs)

    def release(self, sample: Sample, *, rng: np.random.Generator, runs: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(θ* + b, b)`` (what :meth:`fit` outputs), or ``runs`` independent releases at once
        (``(runs, d)`` each: the privacy audit's batch, one code path with ``fit``)."""
        theta, _ = optimum(sample, self.lam)  # θ*, cached on the sample (the excess-risk metric needs it too)
        b = self.noise(len(sample), theta.shape[0], rng=rng, runs=runs)
        return theta + b, b

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> LinearClassifier:
        theta, b = self.release(sample, rng=rng)
        return LinearClassifier(theta, {"sigma": float(np.linalg.norm(b))})
