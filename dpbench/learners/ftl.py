"""``ftl``: follow the leader ([AHK12]): play an expert of least cumulative loss,
uniformly among ties — Hedge with ``η → ∞``.

Privacy: none. Utility: no sublinear guarantee: on the ``ftl_trap`` sequence
(½, 0), (0, 1), (1, 0), … it always picks the expert about to lose, regret → ½ per
round; on stochastic sequences with a gap it does well.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpbench.foundation.registry import register_learner
from dpbench.learners.base import Learner
from dpbench.learners.experts_common import HedgeLearner


@register_learner(name="ftl", family="experts", private=False, problems=("experts",))
@dataclass(frozen=True, kw_only=True)
class FTL(HedgeLearner, Learner):
    def eta(self, T: int, k: int) -> float:
        return math.inf
