"""``audit_pairs``: the pseudo-problem of the ``privacy_audit`` experiment (issue 10).

Its "data" are the fixed neighbouring pairs of :mod:`dpbench.audits` (one per audited
learner or mechanism, built in code, not drawn), so the target is empty; it exists so that
audit cells run through the same config → cell → shard → Parquet path as every experiment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpbench.foundation.registry import register_problem
from dpbench.problems.base import Problem


@dataclass(frozen=True)
class AuditPairsTarget:
    """No drawn quantity: the pairs are fixed by the audit modules."""

    def to_json(self) -> dict:
        return {}

    def columns(self) -> dict[str, object]:
        return {}


@register_problem(name="audit_pairs", family="audit")
@dataclass(frozen=True, kw_only=True)
class AuditPairs(Problem):
    def draw_target(self, *, rng: np.random.Generator) -> AuditPairsTarget:
        return AuditPairsTarget()

    @classmethod
    def target_from_json(cls, data: dict[str, Any]) -> AuditPairsTarget:
        return AuditPairsTarget()
