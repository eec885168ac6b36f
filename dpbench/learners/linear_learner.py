"""``linear_learner``: LinearLearner, private learning of linear losses over the simplex
([DR14, Alg. 17, Thms 11.5–11.6]).

Experts are the basis vectors ``e_1..e_d``; the loss vector of round t is the data point
``x_t`` (here mapped to ``(x_t + 1)/2 ∈ [0, 1]^d``, see :mod:`dpbench.problems.linear_loss`);
RWM plays ``a_t`` with the private calibration of :mod:`private_rwm`,
``η = min(ε/sqrt(32 T ln(1/δ)), sqrt(ln d / T))``, and the output is
``θ^T = (1/T) Σ_t e_{a_t}`` (trace ``counts / T``).

Privacy: (ε, δ)-DP w.r.t. replacing one data point ([DR14, Thm 11.5]; the actions are the
output, θ^T is post-processing).
Utility: excess population loss ``O(sqrt(ln(1/δ)) ln(d/β) / (ε sqrt T))`` w.p. 1−β
([DR14, Thm 11.6]; :func:`dpbench.theory.rate_linear_learner`,
:func:`dpbench.theory.excess_linear_learner_bound`).

References
----------
.. [DR14] Dwork & Roth, §11.3.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from dpbench.foundation.registry import register_learner
from dpbench.learners.experts_common import ExpertsLosses, ExpertsTrace
from dpbench.learners.private_rwm import PrivateHedge


@register_learner(name="linear_learner", problems=("linear_loss",))
@dataclass(frozen=True, kw_only=True)
class LinearLearner(PrivateHedge):
    track_p: ClassVar[bool] = True

    @staticmethod
    def theta(trace: ExpertsTrace) -> npt.NDArray[np.float64]:
        """The released ``θ^T = (1/T) Σ e_{a_t}``."""
        return trace.counts / trace.counts.sum()

    def fit(self, losses: ExpertsLosses, *, rng: np.random.Generator) -> npt.NDArray[np.float64]:
        return self.theta(self.run(losses, rng=rng))
