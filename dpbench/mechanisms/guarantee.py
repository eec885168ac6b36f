"""A differential-privacy guarantee: what a mechanism or a learner claims, in one type.

This lives in the mechanisms layer (a mechanism knows nothing of learners); learners
re-export it from :mod:`dpbench.learners.base`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

REPLACE_ONE = "replace-one"
ADD_REMOVE = "add/remove-one"


@dataclass(frozen=True)
class Guarantee:
    """A differential-privacy guarantee: (ε, δ)-DP with respect to ``neighbours``.

    ``epsilon = inf`` means no privacy (the non-private limit of a private learner).
    ``dp_event`` optionally carries a ``dp_accounting.DpEvent`` describing the mechanism.
    """

    epsilon: float
    delta: float = 0.0
    neighbours: str = REPLACE_ONE
    dp_event: Any = field(default=None, compare=False)


NON_PRIVATE = Guarantee(epsilon=math.inf, delta=0.0, neighbours="none")
