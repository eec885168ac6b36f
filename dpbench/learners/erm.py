"""``erm``: empirical risk minimisation over a whole finite class ([BEHW87]).

Returns a hypothesis with the fewest training mistakes, uniformly at random among ties.
The class comes from the problem (``sample.concept_class``: conjunctions, decision lists)
and must provide ``mistakes(X, y)`` for all hypotheses at once (conjunctions: a subcube
transform of the sample's histogram; decision lists: bit-packed), ``size`` and
``hypothesis(i)``. Utility: realizable ``err ≤ 2 ln|C|/n`` (w.h.p.); agnostic
``err ≤ OPT + O(sqrt(ln|C| / n))``. Not private.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.learners.base import Learner
from dpbench.mechanisms.exponential import uniform_argmax
from dpbench.problems.base import Sample

#: Largest class enumerated by default (3^13 ≈ 1.6·10^6 hypotheses).
MAX_HYPOTHESES = 3**13


def class_mistakes(sample: Sample):
    """Mistakes of every hypothesis of ``sample.concept_class`` (cached on the sample)."""
    return sample.cached("class_mistakes", lambda: sample.concept_class.mistakes(sample.X, sample.y))


def unsupported_class(target: Any, max_hypotheses: int) -> str | None:
    concept_class = getattr(target, "concept_class", None)
    if concept_class is None or not hasattr(concept_class, "mistakes"):
        return "the problem has no enumerable hypothesis class"
    if concept_class.size > max_hypotheses:
        return f"class has {concept_class.size} hypotheses > max_hypotheses={max_hypotheses}"
    return None


@register_learner(name="erm", family="batch", problems=("conjunction", "decision_list"))
@dataclass(frozen=True, kw_only=True)
class ERM(Learner):
    max_hypotheses: int = MAX_HYPOTHESES

    def supports(self, target: Any) -> str | None:
        return unsupported_class(target, self.max_hypotheses)

    def fit(self, sample: Sample, *, rng: np.random.Generator):
        index = uniform_argmax(-class_mistakes(sample), rng=rng)
        return sample.concept_class.hypothesis(index)
