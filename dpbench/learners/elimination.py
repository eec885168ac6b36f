"""``elimination``: the consistent learner for conjunctions ([Val84]; [BEHW87]).

Start from the conjunction of all literals (``2d``, or ``d`` monotone ones); every positive
example deletes the literals it falsifies. The result is the most specific conjunction
consistent with the positives, hence consistent with the whole sample when the target is a
conjunction. Utility (realizable): ``n ≥ 2 ln|C| / α`` examples give error ≤ α with
probability ≥ ``1 − e^{−αn/2}``. Not private.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.learners.base import Learner
from dpbench.problems.base import Sample
from dpbench.problems.conjunction import Conjunction


@register_learner(name="elimination", family="batch", problems=("conjunction",))
@dataclass(frozen=True, kw_only=True)
class Elimination(Learner):
    def fit(self, sample: Sample, *, rng: np.random.Generator) -> Conjunction:
        X = np.asarray(sample.X, dtype=bool)
        positives = X[np.asarray(sample.y, dtype=bool)]
        pos = positives.all(axis=0)  # x_i survives iff every positive has x_i = 1
        neg = ~positives.any(axis=0)  # ¬x_i survives iff every positive has x_i = 0
        if sample.concept_class.monotone:
            neg = np.zeros_like(neg)
        return Conjunction(pos=pos, neg=neg)
