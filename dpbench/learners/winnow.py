"""``winnow``: Littlestone's Winnow, normalised multiplicative weights ([Lit88]).

Predict ``sign⟨w_t, x_t⟩`` with ``w_1 = 1/N``; on a mistake (``y⟨w,x⟩ ≤ 0``)
``w_i ← w_i exp(η y x_i)``, renormalised to ``‖w‖₁ = 1``.
Utility: for ``x ∈ [−1,1]^N`` and a target ``u ≥ 0``, ``‖u‖₁ = 1`` with margin ρ, the
relative-entropy potential gives at most ``ln N/(ηρ − η²/2)`` mistakes, i.e.
``2 ln N/ρ²`` with the default ``η = ρ`` (:func:`dpbench.theory.winnow_mistake_bound`).
Privacy: none.

References
----------
.. [Lit88] Littlestone, "Learning quickly when irrelevant attributes abound", 1988.
.. [MRT18] Mohri, Rostamizadeh & Talwalkar, *Foundations of ML*, 2nd ed., §8.3.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.foundation.validation import check_positive, normalise
from dpbench.learners.base import Learner
from dpbench.learners.online import WINNOW, OnlineTrace, reference_nonprivate, run_nonprivate


@register_learner(name="winnow", family="online", private=False, problems=("halfspace", "dl_as_halfspace"))
@dataclass(frozen=True, kw_only=True)
class Winnow(Learner):
    """Parameters
    ----------
    eta_scale : learning rate as a multiple of the stream's margin, ``η = eta_scale·ρ``
        (default 1: the rate of the ``2 ln N/ρ²`` bound).
    """

    eta_scale: float = 1.0

    def __post_init__(self) -> None:
        normalise(self, eta_scale=check_positive(self.eta_scale, name="eta_scale"))

    def eta(self, rho: float) -> float:
        return self.eta_scale * rho

    def run(self, stream: Any, *, rng: np.random.Generator) -> OnlineTrace:
        """Cumulative mistakes at the stream's checkpoints (``rng`` unused: deterministic)."""
        return run_nonprivate(stream, WINNOW, self.eta(stream.rho), 0.0)

    def _reference_run(self, stream: Any, *, rng: np.random.Generator) -> OnlineTrace:
        return reference_nonprivate(stream, WINNOW, self.eta(stream.rho), 0.0)

    @classmethod
    def test_params(cls) -> Iterator[dict[str, object]]:
        yield {}
        yield {"eta_scale": 0.5}
