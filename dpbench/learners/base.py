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

from dpbench.foundation.validation import check_delta, check_epsilon, normalise
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


def check_claim(epsilon: float, delta: float) -> tuple[float, float]:
    """(ε, δ) of a private learner's claim, checked: ε > 0 (``inf``: the non-private limit), 0 ≤ δ < 1."""
    return check_epsilon(epsilon), check_delta(delta)


@dataclasses.dataclass(frozen=True, kw_only=True)
class ClaimedDP(Learner):
    """A private learner whose guarantee is its configured (ε, δ) itself, under replace-one
    neighbours: its calibration (of the per-round or per-mechanism budget) composes to at
    most the target, which the subclass asserts where it calibrates. The claim is checked
    once, by :attr:`check_claim` (a subclass may require more, e.g. δ > 0 at finite ε)."""

    private: ClassVar[bool] = True
    #: ``(epsilon, delta) -> (epsilon, delta)``: the claim checked and normalised
    check_claim: ClassVar = staticmethod(check_claim)
    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        epsilon, delta = self.check_claim(self.epsilon, self.delta)
        normalise(self, epsilon=epsilon, delta=delta)

    def guarantee(self) -> Guarantee:
        return Guarantee(epsilon=self.epsilon, delta=self.delta, neighbours=REPLACE_ONE)
