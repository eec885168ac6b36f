"""``exp_mech_erm``: the exponential mechanism over a finite class ([MT07];
[KLNRS11]; [DR14, §11.1]).

``P[h] ∝ exp(ε·u(h)/2)`` with score ``u(h) = −#mistakes_S(h)``, sampled by Gumbel-max over
the whole class (the class's mistakes computed once per sample, :mod:`dpbench.learners.erm`).

Privacy: ε-DP under replace-one neighbours (changing one example changes every score by
at most 1: sensitivity 1).
Utility: ``err_S(h) ≤ OPT_S + 2(ln|C| + ln(1/β))/(εn)`` w.p. ``1−β`` ([DR14, §11.1]); private PAC
sample complexity ``n ≥ 8 ln|C| / (α·min(α, ε))`` ([KLNRS11]; constants of [NotesPAC, §1]).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.foundation.validation import check_epsilon, normalise
from dpbench.learners.base import Guarantee, Learner
from dpbench.learners.erm import MAX_HYPOTHESES, class_mistakes, unsupported_class
from dpbench.mechanisms.exponential import ExponentialMechanism
from dpbench.problems.base import Sample


@register_learner(name="exp_mech_erm", twin="erm", family="batch", private=True,
                  problems=("conjunction", "decision_list"))
@dataclass(frozen=True, kw_only=True)
class ExpMechERM(Learner):
    epsilon: float
    max_hypotheses: int = MAX_HYPOTHESES

    def __post_init__(self) -> None:
        normalise(self, epsilon=check_epsilon(self.epsilon))

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0}
        yield {"epsilon": math.inf}

    def guarantee(self) -> Guarantee:
        return Guarantee(epsilon=self.epsilon, delta=0.0)

    def supports(self, target: Any) -> str | None:
        return unsupported_class(target, self.max_hypotheses)

    def mechanism(self) -> ExponentialMechanism:
        """The exponential mechanism on the score ``−mistakes`` (sensitivity 1)."""
        return ExponentialMechanism(epsilon=self.epsilon, sensitivity=1.0)

    def release(self, sample: Sample, *, rng: np.random.Generator, runs: int | None = None):
        """Index of the selected hypothesis (what :meth:`fit` outputs), or ``runs`` independent
        indices at once (the privacy audit's batch: one code path with ``fit``)."""
        scores = -class_mistakes(sample)
        if runs is None:
            return self.mechanism().select(scores, rng=rng)
        return self.mechanism().select_runs(scores, runs=runs, rng=rng)

    def fit(self, sample: Sample, *, rng: np.random.Generator):
        return sample.concept_class.hypothesis(self.release(sample, rng=rng))
