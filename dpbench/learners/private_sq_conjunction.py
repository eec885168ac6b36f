"""``private_sq_conjunction``: the statistical-query conjunction learner with every query
answered by the Laplace mechanism ([BDMN05]; [KLNRS11]; [DR14, §11.1]).

A query ``φ_ℓ(x, y) = 1[y = 1 ∧ ℓ(x) = 0]`` is a mean over ``n`` rows: replace-one
sensitivity ``1/n``. With basic composition over the ``m`` queries each answer gets
``Lap(m/(εn))`` (ε-DP); with ``delta > 0`` the per-query budget comes from advanced
composition instead ((ε, δ)-DP). Literals are kept iff the noisy answer is below
``τ = α/(2m)``, as in :mod:`dpbench.learners.sq_conjunction`.
Privacy: ε-DP (basic composition) or (ε, δ)-DP (advanced composition), replace-one.
Utility ([KLNRS11]; [DR14, §11.1]): ``n = O(max(m ln m/(εα), ln m/α²))``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.foundation.validation import check_delta, check_epsilon, check_probability, normalise
from dpbench.learners.base import Guarantee, Learner
from dpbench.learners.sq_conjunction import conjunction_from_answers, literal_queries, n_literals
from dpbench.mechanisms.composition import advanced_per_step, composed_rounds
from dpbench.mechanisms.laplace import Laplace
from dpbench.problems.base import Sample
from dpbench.problems.conjunction import Conjunction


@register_learner(name="private_sq_conjunction", twin="sq_conjunction", family="batch", private=True,
                  problems=("conjunction",))
@dataclass(frozen=True, kw_only=True)
class PrivateSQConjunction(Learner):
    """SQ learner with Laplace-noised answers; ε-DP (``delta = 0``, basic composition) or
    (ε, δ)-DP (``delta > 0``, advanced composition), replace-one neighbours."""

    epsilon: float
    delta: float = 0.0
    alpha: float = 0.05

    def __post_init__(self) -> None:
        normalise(self, epsilon=check_epsilon(self.epsilon), delta=check_delta(self.delta))
        check_probability(self.alpha, name="alpha", closed=False)

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0}
        yield {"epsilon": 1.0, "delta": 1e-6}
        yield {"epsilon": math.inf}

    def guarantee(self) -> Guarantee:
        return Guarantee(epsilon=self.epsilon, delta=self.delta)

    def epsilon_per_query(self, m: int) -> float:
        """Budget of each of the ``m`` queries: ``ε/m`` (basic) or advanced composition."""
        if self.delta == 0:
            return self.epsilon / m
        return advanced_per_step(self.epsilon, m, self.delta)

    def privacy_of(self, eps_q: float, m: int) -> float:
        """The learner's accountant: total ε at its δ of ``m`` queries at ``eps_q`` each
        (basic, or the better of basic and advanced composition for δ > 0: what
        :meth:`epsilon_per_query` inverts; the audit's per-step accounting check)."""
        return composed_rounds(eps_q, m, self.delta)[0]

    def threshold(self, sample: Sample) -> float:
        """τ = α/(2m): a literal is kept when its noisy answer is below τ."""
        return self.alpha / (2 * n_literals(sample))

    def release(self, sample: Sample, *, rng: np.random.Generator, runs: int | None = None) -> np.ndarray:
        """The noisy literal answers :meth:`fit` thresholds (``(2, d)``; in the monotone
        class only row 0 is noised), or ``(runs, 2, d)`` independent draws at once (the privacy
        audit's batch: one code path with ``fit``)."""
        m = n_literals(sample)
        answers = literal_queries(sample)
        mechanism = Laplace(epsilon=self.epsilon_per_query(m), sensitivity=1 / max(len(sample), 1))
        if runs is not None:
            answers = np.broadcast_to(answers, (runs, *answers.shape))
        if sample.concept_class.monotone:
            return np.stack([mechanism.sample(answers[..., 0, :], rng=rng), answers[..., 1, :]], axis=-2)
        return mechanism.sample(answers, rng=rng)

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> Conjunction:
        return conjunction_from_answers(self.release(sample, rng=rng), self.threshold(sample), sample.concept_class.monotone)
