"""``ftl``: follow the leader ([AHK12]): play an expert of least cumulative loss,
uniformly among ties — Hedge with ``η → ∞``.

Privacy: none. Utility: no sublinear guarantee: on the ``ftl_trap`` sequence
(½, 0), (0, 1), (1, 0), … it always picks the expert about to lose, regret → ½ per
round; on stochastic sequences with a gap it does well.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from dpbench.foundation.registry import register_learner
from dpbench.learners.base import Learner
from dpbench.learners.experts_common import HedgeLearner


@register_learner
@dataclass(frozen=True, kw_only=True)
class FTL(HedgeLearner, Learner):
    name: ClassVar[str] = "ftl"
    family: ClassVar[str] = "experts"
    private: ClassVar[bool] = False
    problems: ClassVar[tuple[str, ...]] = ("experts",)

    def eta(self, T: int, k: int) -> float:
        return math.inf
