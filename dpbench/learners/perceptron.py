"""``perceptron``: the non-private additive baseline ([Ros58]; [Nov62]).

Predict ``sign⟨w_t, x_t⟩`` with ``w_1 = 0``; on a mistake (``y⟨w,x⟩ ≤ 0``)
``w ← w + y x``. Utility (Novikoff): at most ``(R/ρ₂)²`` mistakes for ℓ2 radius ``R`` and
ℓ2 margin ``ρ₂``; for ``x ∈ {−1,+1}^N`` and ``‖u‖₁ = 1`` the ℓ2 margin can be as small as
``ρ/sqrt(N)``, giving the ``N/ρ²`` shape that Winnow's ``ln N/ρ²`` beats on sparse targets.
Privacy: none.

References
----------
.. [Nov62] Novikoff, "On convergence proofs for perceptrons", 1962.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.learners.base import Learner
from dpbench.learners.online import PERCEPTRON, OnlineTrace, reference_nonprivate, run_nonprivate


@register_learner(name="perceptron", family="online", private=False, problems=("halfspace", "dl_as_halfspace"))
@dataclass(frozen=True, kw_only=True)
class Perceptron(Learner):
    """Additive-update online linear classifier (no parameters)."""

    def run(self, stream: Any, *, rng: np.random.Generator) -> OnlineTrace:
        """Cumulative mistakes at the stream's checkpoints (``rng`` unused: deterministic)."""
        return run_nonprivate(stream, PERCEPTRON, 0.0, 0.0)

    def _reference_run(self, stream: Any, *, rng: np.random.Generator) -> OnlineTrace:
        return reference_nonprivate(stream, PERCEPTRON, 0.0, 0.0)

    @classmethod
    def test_params(cls) -> Iterator[dict[str, object]]:
        yield {}
