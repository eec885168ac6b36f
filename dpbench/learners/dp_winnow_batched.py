"""``dp_winnow_batched`` (ours): DP-Winnow with a batched shadow update.

The algorithm of :mod:`dpbench.learners.dp_winnow` (Bun & Fang, "Privately Learning
Decision Lists and a Differentially Private Winnow", arXiv:2602.07370, 2026, Algorithm
4.2 [BF26]) with one change, made by this project: a firing of the sparse vector sums the first
``B = ⌊(ρ − γ)/η⌋`` cached examples into one multiplicative step (``update='batch'``)
instead of using the first cached example only. Each example still enters at most one
term ``η y x`` of the log-weights, so the privacy analysis (and its accountant, advanced
composition) is unchanged; the firing cap becomes ConfidentWinnow's update bound at the
step ηB, ``M = ⌈ln N/(ηB(ρ − γ) − (ηB)²/2)⌉`` (potential argument in
:mod:`dpbench.learners.dp_winnow`), which is what makes the learner learn within
practical T: at N = 2, ρ = 1, T = 10⁶, δ = 10⁻⁶, ε = 1 it fires at most M = 6 times,
where the source's rule is calibrated to ≈ 2·10⁶ firings.

Privacy: (ε, δ)-DP, replace-one neighbouring streams, oblivious adversary (as the
source's Theorem 4.4; ``calibrate`` recomputes the composition and asserts ≤ target).
Utility: w.p. ≥ 1 − β at most the calibrated ``(M + 1)(2L − B + 1)`` mistakes
(:func:`dpbench.theory.dp_winnow_calibrated_bound`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from dpbench.foundation.registry import register_learner
from dpbench.learners.dp_winnow import DPWinnow


@register_learner(name="dp_winnow_batched")
@dataclass(frozen=True, kw_only=True)
class DPWinnowBatched(DPWinnow):
    """DP-Winnow with this project's batched shadow update (advanced composition)."""

    update: ClassVar[str] = "batch"

    @classmethod
    def test_params(cls) -> Iterator[dict[str, object]]:
        yield {"epsilon": 1.0, "delta": 1e-6}
        yield {"epsilon": 10.0, "delta": 1e-6, "beta": 0.05}
        yield {"epsilon": math.inf, "delta": 0.0}
