"""What every learner provides (docs/plugins.md).

Learners are frozen hyper-parameter records: ``fit``/``run`` are pure in (params, data,
rng) and return a new result object; nothing is fitted onto the learner. Every private
learner states its guarantee in one place, :meth:`Learner.guarantee`, computed from its own
parameters — the same object the results record (``eps_reported``, ``delta_reported``,
``neighbours``) and the privacy tests check.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from dpbench.mechanisms.guarantee import ADD_REMOVE, NON_PRIVATE, REPLACE_ONE, Guarantee  # noqa: F401 (re-exported)


class Learner:
    """Base of all learners (a mixin for frozen dataclasses).

    Class attributes
    ----------------
    name : the catalogue name (registry key, config, Parquet ``learner`` column, legend).
    family : ``batch`` (``fit(sample, *, rng)``), ``online`` or ``experts`` (``run``).
    private : whether the learner claims differential privacy.
    problems : names of the problems it runs on.
    twin : a private learner's non-private twin (a learner name), whose output its ε → ∞
        limit must match on the same samples (checked by ``dpbench check``), or None.
    """

    name: ClassVar[str]
    family: ClassVar[str]
    private: ClassVar[bool] = False
    problems: ClassVar[tuple[str, ...]] = ()
    twin: ClassVar[str | None] = None

    def guarantee(self) -> Guarantee:
        """The privacy guarantee of this configured learner."""
        return NON_PRIVATE

    def supports(self, target: Any) -> str | None:
        """``None`` if the learner can run on ``target``, else the reason it cannot."""
        return None

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def from_cell(cls, *, epsilon: float, delta: float, params: Mapping[str, object]) -> "Learner":
        """Construct from a grid cell: ε and δ are passed only to learners that take them."""
        kwargs = dict(params)
        names = cls.field_names()
        if "epsilon" in names:
            kwargs["epsilon"] = epsilon
        if "delta" in names:
            kwargs["delta"] = delta
        return cls(**kwargs)

    @classmethod
    def test_params(cls) -> Iterator[dict[str, object]]:
        """Small, fast parameter sets used by the conformance tests."""
        yield {}

