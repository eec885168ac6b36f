"""``sq_conjunction`` and ``private_sq_conjunction``: learning conjunctions from statistical
queries (Kearns 1998; 000 §11.1, 002; algorithms.md §2).

For each literal ``ℓ`` (``2d``, or ``d`` monotone) ask ``φ_ℓ(x, y) = 1[y = 1 ∧ ℓ(x) = 0]``
and keep ``ℓ`` iff the answer is below the tolerance ``τ = α/(2m)`` (``m`` literals): a
literal of the target is never falsified on a positive example (answer 0 without noise),
and omitting only literals with ``P[y=1 ∧ ℓ=0] < τ`` costs error at most ``m·τ = α/2``.

The private version answers each query with the Laplace mechanism: a query is a mean over
``n`` rows (replace-one sensitivity ``1/n``); with basic composition over the ``m`` queries
each answer gets ``Lap(m/(εn))`` (ε-DP); with ``delta > 0`` the per-query budget comes from
advanced composition instead ((ε, δ)-DP). Utility (000): ``n = O(max(m ln m/(εα), ln m/α²))``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from dpbench.learners.base import Guarantee, Learner
from dpbench.mechanisms.composition import advanced_per_step
from dpbench.mechanisms.laplace import Laplace
from dpbench.problems.base import Sample
from dpbench.problems.conjunction import Conjunction
from dpbench.registry import register_learner
from dpbench.validation import check_delta, check_epsilon, check_probability


def literal_queries(sample: Sample) -> npt.NDArray[np.float64]:
    """Answers of ``φ_ℓ`` on the sample: row 0 the literals ``x_i``, row 1 the ``¬x_i``."""
    X = np.asarray(sample.X, dtype=bool)
    positive = np.asarray(sample.y, dtype=bool)[:, None]
    n = max(len(sample), 1)
    falsify_pos = (positive & ~X).sum(axis=0) / n  # x_i = 0 on a positive
    falsify_neg = (positive & X).sum(axis=0) / n  # ¬x_i = 0 on a positive
    return np.stack([falsify_pos, falsify_neg])


def n_literals(sample: Sample) -> int:
    d = sample.X.shape[1]
    return d if sample.concept_class.monotone else 2 * d


def conjunction_from_answers(answers: npt.NDArray, tau: float, monotone: bool) -> Conjunction:
    keep = answers < tau
    neg = np.zeros_like(keep[1]) if monotone else keep[1]
    return Conjunction(pos=keep[0], neg=neg)


@register_learner
@dataclass(frozen=True, kw_only=True)
class SQConjunction(Learner):
    """Non-private SQ learner; ``alpha`` is the target error (τ = α/(2m))."""

    name: ClassVar[str] = "sq_conjunction"
    family: ClassVar[str] = "batch"
    problems: ClassVar[tuple[str, ...]] = ("conjunction",)
    alpha: float = 0.05

    def __post_init__(self) -> None:
        check_probability(self.alpha, name="alpha", closed=False)

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> Conjunction:
        tau = self.alpha / (2 * n_literals(sample))
        return conjunction_from_answers(literal_queries(sample), tau, sample.concept_class.monotone)


@register_learner
@dataclass(frozen=True, kw_only=True)
class PrivateSQConjunction(Learner):
    """SQ learner with Laplace-noised answers; ε-DP (``delta = 0``, basic composition) or
    (ε, δ)-DP (``delta > 0``, advanced composition), replace-one neighbours."""

    name: ClassVar[str] = "private_sq_conjunction"
    family: ClassVar[str] = "batch"
    private: ClassVar[bool] = True
    problems: ClassVar[tuple[str, ...]] = ("conjunction",)
    epsilon: float
    delta: float = 0.0
    alpha: float = 0.05

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))
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

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> Conjunction:
        m = n_literals(sample)
        answers = literal_queries(sample)
        mechanism = Laplace(epsilon=self.epsilon_per_query(m), sensitivity=1 / max(len(sample), 1))
        if sample.concept_class.monotone:
            answers = np.stack([mechanism.sample(answers[0], rng=rng), answers[1]])
        else:
            answers = mechanism.sample(answers, rng=rng)
        return conjunction_from_answers(answers, self.alpha / (2 * m), sample.concept_class.monotone)
