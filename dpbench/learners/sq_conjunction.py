"""``sq_conjunction``: learning conjunctions from statistical queries ([Kea98];
[DR14, §11.1]). Its private twin is :mod:`dpbench.learners.private_sq_conjunction`.

For each literal ``ℓ`` (``2d``, or ``d`` monotone) ask ``φ_ℓ(x, y) = 1[y = 1 ∧ ℓ(x) = 0]``
and keep ``ℓ`` iff the answer is below the tolerance ``τ = α/(2m)`` (``m`` literals): a
literal of the target is never falsified on a positive example (answer 0 without noise),
and omitting only literals with ``P[y=1 ∧ ℓ=0] < τ`` costs error at most ``m·τ = α/2``.

Utility ([Kea98]; [DR14, §11.1]): ``n = O(ln m/α²)`` for ``m`` queries of tolerance α.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpbench.foundation.registry import register_learner
from dpbench.foundation.validation import check_probability
from dpbench.learners.base import Learner
from dpbench.problems.base import Sample
from dpbench.problems.conjunction import Conjunction


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


@register_learner(name="sq_conjunction", family="batch", problems=("conjunction",))
@dataclass(frozen=True, kw_only=True)
class SQConjunction(Learner):
    """Non-private SQ learner; ``alpha`` is the target error (τ = α/(2m))."""

    alpha: float = 0.05

    def __post_init__(self) -> None:
        check_probability(self.alpha, name="alpha", closed=False)

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> Conjunction:
        tau = self.alpha / (2 * n_literals(sample))
        return conjunction_from_answers(literal_queries(sample), tau, sample.concept_class.monotone)
