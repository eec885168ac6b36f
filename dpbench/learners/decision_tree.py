"""``decision_tree``: scikit-learn's ``DecisionTreeClassifier``, the off-the-shelf
non-private reference a practitioner would reach for (default hyper-parameters; its
``random_state`` drawn from the cell's ``mech`` stream; CART [BFOS84] as implemented by
scikit-learn [PVG11]). Not private.
Utility: no guarantee is claimed; it is the practitioner's reference point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.learners.base import Learner
from dpbench.problems.base import Sample


@register_learner(name="decision_tree", family="batch", problems=("conjunction", "decision_list"))
@dataclass(frozen=True, kw_only=True)
class DecisionTree(Learner):
    max_depth: int | None = None

    def fit(self, sample: Sample, *, rng: np.random.Generator):
        from sklearn.tree import DecisionTreeClassifier  # deferred: sklearn takes seconds to import

        model = DecisionTreeClassifier(max_depth=self.max_depth, random_state=int(rng.integers(2**31)))
        if len(np.unique(sample.y)) < 2:  # one class seen: a constant predictor
            return _Constant(int(sample.y[0]) if len(sample) else 0)
        return model.fit(sample.X, sample.y)


@dataclass(frozen=True)
class _Constant:
    label: int

    def predict(self, X) -> np.ndarray:
        return np.full(len(X), self.label, dtype=np.uint8)
