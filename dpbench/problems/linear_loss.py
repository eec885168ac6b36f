"""Problem ``linear_loss``: linear losses on the simplex ([DR14, §11.3]).

Data ``x ∈ {−1, +1}^d`` with independent coordinates, ``E[x_i] = μ_i``; the loss of a
parameter ``θ`` in the simplex is ``<θ, x>``, so the population loss is exactly
``<θ, μ>`` and the optimum is ``min_i μ_i``. The target draws the means:
``μ = gap · π(linspace(−1, 1, d))`` for a random permutation π (best mean −gap, spread
evenly up to +gap).

As an experts sequence (LinearLearner, Algorithm 17) the loss of expert ``e_i`` in round
t is ``(x_{t,i} + 1)/2 ∈ {0, 1}``, stored as uint8 codes; the affine map leaves every
argmin unchanged and halves excess losses. The stream is oblivious and nested across T.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from dpbench.foundation.registry import register_problem
from dpbench.foundation.validation import check_positive_int, normalise
from dpbench.problems.base import Problem
from dpbench.problems.experts import bernoulli_codes
from dpbench.problems.losses import ExpertsLosses


@dataclass(frozen=True)
class LinearLossTarget:
    mu: npt.NDArray[np.float64]

    @property
    def d(self) -> int:
        return len(self.mu)

    def to_json(self) -> dict:
        return {"mu": [float(m) for m in self.mu]}

    def columns(self) -> dict[str, object]:
        return {}

    def losses(self, T: int, *, rng: np.random.Generator) -> ExpertsLosses:
        """Codes ``(x + 1)/2`` of T iid draws of x, P[x_i = +1] = (1 + μ_i)/2."""
        return ExpertsLosses(bernoulli_codes(check_positive_int(T, name="T"), (1 + self.mu) / 2, rng=rng), 1.0)

    def population_loss(self, theta: npt.ArrayLike) -> float:
        """Exact ``E <θ, x> = <θ, μ>``."""
        return float(np.asarray(theta, dtype=float) @ self.mu)

    def excess_loss(self, theta: npt.ArrayLike) -> float:
        """``<θ, μ> − min_i μ_i`` (≥ 0 on the simplex)."""
        return self.population_loss(theta) - float(self.mu.min())


@register_problem(name="linear_loss", family="experts")
@dataclass(frozen=True, kw_only=True)
class LinearLossProblem(Problem):
    """Parameters: dimension ``d`` (the number of experts) and ``gap`` (spread of the means)."""

    d: int = 10
    gap: float = 0.2

    def __post_init__(self) -> None:
        check_positive_int(self.d, name="d")
        if self.d < 2:
            raise ValueError(f"d must be >= 2, got {self.d!r}")
        if isinstance(self.gap, bool) or not isinstance(self.gap, (int, float)) or not 0 < self.gap <= 1:
            raise ValueError(f"gap must be in (0, 1], got {self.gap!r}")
        normalise(self, gap=float(self.gap))

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"d": 5, "gap": 0.3}

    def draw_target(self, *, rng: np.random.Generator) -> LinearLossTarget:
        return LinearLossTarget(mu=self.gap * rng.permutation(np.linspace(-1.0, 1.0, self.d)))

    @classmethod
    def target_from_json(cls, data: dict[str, Any]) -> LinearLossTarget:
        return LinearLossTarget(mu=np.array(data["mu"], dtype=float))
