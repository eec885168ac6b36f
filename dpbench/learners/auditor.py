"""``auditor``: the pseudo-learner of the ``privacy_audit`` experiment (issue 10).

One configured ``auditor`` audits one learner or mechanism (``target``, a name registered
in :mod:`dpbench.audits` or a learner with an ``audit_cases`` classmethod) at the claim
(ε, δ) of its cell: it runs the ``correct`` and ``broken`` cases with ``n`` runs per side
(:func:`dpbench.audit.run_case`). It claims no privacy itself; the audited claim is in the
rows (``eps_reported``, ``delta_reported``, ``neighbours``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from dpbench.learners.base import Learner
from dpbench.registry import register_learner
from dpbench.validation import check_delta, check_epsilon

#: predicted seconds per run and side (vectorised samplers: ~0.25 µs measured on 2 idle cores)
SECONDS_PER_RUN = 2.5e-7


@register_learner
@dataclass(frozen=True, kw_only=True)
class Auditor(Learner):
    name: ClassVar[str] = "auditor"
    family: ClassVar[str] = "audit"
    problems: ClassVar[tuple[str, ...]] = ("audit_pairs",)
    target: str
    epsilon: float = 1.0
    delta: float = 1e-6

    def __post_init__(self) -> None:
        from dpbench.audits import audited_names

        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))
        if self.target not in audited_names():
            from dpbench import registry

            if not (registry.is_learner(self.target) and hasattr(registry.learner(self.target), "audit_cases")):
                raise ValueError(f"target: no audit registered for {self.target!r}; audited: {', '.join(audited_names())}")

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"target": "laplace", "epsilon": 1.0, "delta": 0.0}

    @staticmethod
    def cost(cell) -> float:
        """Seconds: both variants, both sides, ``n`` runs each."""
        return 4 * SECONDS_PER_RUN * cell.size + 0.05

    def cases(self) -> list:
        from dpbench.audits import cases_for

        return cases_for(self.target, epsilon=self.epsilon, delta=self.delta)
