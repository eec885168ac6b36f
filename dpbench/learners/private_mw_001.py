"""``private_mw_001``: MW with the privacy calibration of the lecture notes (001 §2,
Theorem 3; algorithms.md §4).

MW multiplies weights by ``e^{α r_t(i)}`` for rewards ``r = 1 − ℓ`` — the same
distributions as Hedge with ``η = α``. The notes state MW is ``(12Tα², e^{−Tα})``-DP
(their Theorem 4 of Lecture 4, advanced composition of T ``2α``-DP rounds), so

.. math:: \\alpha = \\sqrt{\\varepsilon/(12T)},\\qquad \\delta_{MW} = e^{-T\\alpha} = e^{-\\sqrt{\\varepsilon T/12}}.

The learner takes a target (ε, δ) and runs only where ``δ_MW ≤ δ``, i.e.
``T ≥ 12 ln²(1/δ)/ε``; shorter horizons are recorded as ``skipped`` with that reason.
``ε = ∞`` runs the non-private twin ``rwm`` (α = sqrt(ln K/T)) by convention.

Privacy: (12Tα², e^{−Tα}) = (ε, δ_MW)-DP ≤ (ε, δ), replace-one reward vector.
Utility: expected reward ≥ best − αT − ln K/α (Thm 2), i.e. average regret ≤
``α + ln K/(αT) = O(ln K/sqrt(εT))`` (Thm 3).

References
----------
.. [001] Lecture notes "Online learning with experts", Theorems 2–3.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from dpbench.learners.base import REPLACE_ONE, Guarantee, Learner
from dpbench.learners.experts_common import HedgeLearner, rwm_eta
from dpbench.learners.private_rwm import check_private_params
from dpbench.registry import register_learner


def calibrate(epsilon: float, delta: float, T: int, k: int) -> tuple[float, float, float]:
    """``(α, ε_MW, δ_MW)`` with ε_MW = 12Tα² = ε and δ_MW = e^{−Tα} (001 Thm 3)."""
    epsilon, delta = check_private_params(epsilon, delta)
    if math.isinf(epsilon):
        return rwm_eta(T, k), math.inf, 0.0
    alpha = math.sqrt(epsilon / (12 * T))
    eps_mw = 12 * T * alpha**2
    assert eps_mw <= epsilon * (1 + 1e-12)
    return alpha, eps_mw, math.exp(-T * alpha)


@register_learner
@dataclass(frozen=True, kw_only=True)
class PrivateMW001(HedgeLearner, Learner):
    name: ClassVar[str] = "private_mw_001"
    family: ClassVar[str] = "experts"
    private: ClassVar[bool] = True
    problems: ClassVar[tuple[str, ...]] = ("experts",)
    epsilon: float
    delta: float

    def __post_init__(self) -> None:
        epsilon, delta = check_private_params(self.epsilon, self.delta)
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0, "delta": 0.01}
        yield {"epsilon": math.inf, "delta": 1e-6}

    def eta(self, T: int, k: int) -> float:
        return calibrate(self.epsilon, self.delta, T, k)[0]

    def supports_horizon(self, T: int, k: int) -> str | None:
        _, _, delta_mw = calibrate(self.epsilon, self.delta, T, k)
        if delta_mw > self.delta:
            return f"001 Thm 3 gives delta=exp(-sqrt(eps*T/12))={delta_mw:.3g} > target {self.delta:g} at T={T}"
        return None

    def guarantee(self) -> Guarantee:
        """(ε, δ) wherever it runs (``supports_horizon`` skips T with δ_MW > δ)."""
        return Guarantee(epsilon=self.epsilon, delta=self.delta, neighbours=REPLACE_ONE)
