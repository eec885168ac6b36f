"""``confident_winnow``: [BF26, Alg. 4.1], **[reconstructed constants]**.

Winnow that also updates when it is correct but not confident: update iff
``y⟨w_t,x_t⟩ < γ`` (``γ = ρ/2``), with ``w_i ← w_i exp(η y x_i)``, renormalised
(``η = ρ/2``). Mistakes are rounds with ``y⟨w,x⟩ ≤ 0``.
Utility ([BF26, Lemma 4.2], [reconstructed]): for any sequence of update instructions on
rounds with ``y⟨w,x⟩ < γ``, the number of updates is at most
``ln N/(η(ρ − γ) − η²/2)`` = ``8 ln N/ρ²`` with these choices
(:func:`dpbench.theory.confident_winnow_update_bound`); mistakes ≤ updates.
Privacy: none — it is DP-Winnow's shadow learner (``dp_winnow`` at ε = ∞ equals it).

References
----------
.. [BF26] Bun & Fang, "Privately learning decision lists and a differentially private
   Winnow", arXiv:2602.07370, 2026, §4.1 and Appendix B.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.learners.base import Learner
from dpbench.learners.online import CONFIDENT_WINNOW, OnlineTrace, reference_nonprivate, run_nonprivate

#: [reconstructed] confidence γ = GAMMA_RATIO·ρ and step η = ETA_RATIO·ρ.
GAMMA_RATIO = 0.5
ETA_RATIO = 0.5


@register_learner(name="confident_winnow", family="online", private=False, problems=("halfspace", "dl_as_halfspace"))
@dataclass(frozen=True, kw_only=True)
class ConfidentWinnow(Learner):
    """ConfidentWinnow with ``γ = η = ρ/2`` (no free parameters)."""

    def run(self, stream: Any, *, rng: np.random.Generator) -> OnlineTrace:
        """Cumulative mistakes/updates at the stream's checkpoints (deterministic)."""
        return run_nonprivate(stream, CONFIDENT_WINNOW, ETA_RATIO * stream.rho, GAMMA_RATIO * stream.rho)

    def _reference_run(self, stream: Any, *, rng: np.random.Generator) -> OnlineTrace:
        return reference_nonprivate(stream, CONFIDENT_WINNOW, ETA_RATIO * stream.rho, GAMMA_RATIO * stream.rho)

    @classmethod
    def test_params(cls) -> Iterator[dict[str, object]]:
        yield {}
