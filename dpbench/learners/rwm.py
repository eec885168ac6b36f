"""``rwm``: Randomized Weighted Majority / Hedge / MW ([LW94]; [FS97];
[DR14, Alg. 15–16, Thm 11.1]).

.. math:: P[a_t = i] \\propto \\exp\\Big(-\\eta \\sum_{s<t} \\ell^s_i\\Big),\\qquad \\eta = \\sqrt{\\ln k / T}.

Privacy: none (the non-private baseline).
Utility: ``E[Regret] ≤ η + ln k/(ηT) = 2 sqrt(ln k / T)`` for any oblivious sequence
([DR14, Thm 11.1]; :func:`dpbench.theory.regret_hedge`).

References
----------
.. [DR14] Dwork & Roth, *The Algorithmic Foundations of Differential Privacy*, §11.2.
.. [AHK12] Arora, Hazan & Kale, "The multiplicative weights update method", ToC 2012.
"""

from __future__ import annotations

from dataclasses import dataclass

from dpbench.foundation.registry import register_learner
from dpbench.learners.base import Learner
from dpbench.learners.experts_common import HedgeLearner, rwm_eta


@register_learner(name="rwm", family="experts", private=False, problems=("experts",))
@dataclass(frozen=True, kw_only=True)
class RWM(HedgeLearner, Learner):
    def eta(self, T: int, k: int) -> float:
        return rwm_eta(T, k)
