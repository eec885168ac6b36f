"""``exp_mech_grid``: the exponential mechanism over a discretised parameter grid ([MT07];
[BST14, §3]). Low dimension only: the grid has ``g^d`` points.

Candidates: ``Θ_g = {−R, …, R}^d`` with ``g`` equally spaced values per axis. Score
``u(θ) = −n·J_λ(θ; S)`` (the regulariser is data-independent). With ``‖x‖ ≤ 1`` each loss
lies in ``[0, ln(1 + e^{‖θ‖})]``, so replacing one example changes ``u`` by at most

.. math:: \\Delta u = \\ln\\big(1 + e^{R\\sqrt d}\\big),

and ``P[θ] ∝ exp(ε u(θ)/(2Δu))`` (Gumbel-max; :class:`~dpbench.mechanisms.exponential.ExponentialMechanism`).

Privacy: ε-DP, replace-one, features projected onto the unit ball.
Utility: w.p. ``1 − β``, ``J_λ(θ̂) ≤ min_{Θ_g} J_λ + 2Δu(d ln g + ln(1/β))/(εn)``
(the mechanism's utility theorem divided by n): rate ``n^{-1}``, not ``n^{-2}``, plus the
discretisation gap. Cost: ``O(n·g^d)`` — exponential in d; cells with more than
``max_candidates`` grid points are skipped (recorded with the reason).

References
----------
.. [MT07] McSherry & Talwar, "Mechanism design via differential privacy", FOCS 2007.
.. [BST14] Bassily, Smith & Thakurta, FOCS 2014 (exponential mechanism for ERM, Thm 3.2).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpbench.learners.base import Guarantee, Learner
from dpbench.learners.logistic_common import DEFAULT_LAM, LinearClassifier, check_lam, signs, unit_ball
from dpbench.mechanisms.exponential import ExponentialMechanism
from dpbench.problems.base import Sample
from dpbench.registry import register_learner
from dpbench.validation import check_epsilon, check_positive, check_positive_int


def grid(d: int, points: int, radius: float) -> np.ndarray:
    """All ``points^d`` candidates, ``(points^d, d)``."""
    axis = np.linspace(-radius, radius, points)
    return np.array(list(itertools.product(axis, repeat=d)), dtype=np.float64).reshape(-1, d)


def score_sensitivity(d: int, radius: float) -> float:
    """``Δu = ln(1 + e^{R√d})``."""
    return float(np.logaddexp(0.0, radius * math.sqrt(d)))


@register_learner
@dataclass(frozen=True, kw_only=True)
class ExpMechGrid(Learner):
    name: ClassVar[str] = "exp_mech_grid"
    family: ClassVar[str] = "batch"
    private: ClassVar[bool] = True
    problems: ClassVar[tuple[str, ...]] = ("logistic", "halfspace")
    epsilon: float
    lam: float = DEFAULT_LAM
    points: int = 7
    radius: float = 4.0
    max_candidates: int = 20_000

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "lam", check_lam(self.lam))
        object.__setattr__(self, "points", check_positive_int(self.points, name="points"))
        object.__setattr__(self, "radius", check_positive(self.radius, name="radius"))
        object.__setattr__(self, "max_candidates", check_positive_int(self.max_candidates, name="max_candidates"))

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0, "points": 5}
        yield {"epsilon": math.inf, "points": 5}

    @classmethod
    def cost(cls, cell) -> float:
        """Seconds per repetition (shard balancing): ~20 ns per (example, candidate), measured
        on the default grid (d = 2, 31² candidates and d = 1–4, 7^d, n up to 10⁴)."""
        d = int(dict(cell.problem_params).get("d", 10))
        points = int(dict(cell.learner_params).get("points", 7))
        return 2e-8 * cell.size * min(points**d, 1e6)

    def guarantee(self) -> Guarantee:
        return Guarantee(epsilon=self.epsilon, delta=0.0)

    def supports(self, target: Any) -> str | None:
        d = getattr(target, "d", None)
        if d is None:
            return "the problem has no dimension d"
        if self.points**d > self.max_candidates:
            return f"grid has {self.points}^{d} = {self.points**d:.3g} candidates > max_candidates={self.max_candidates}"
        return None

    def scores(self, X: np.ndarray, s: np.ndarray, candidates: np.ndarray, block: int = 1 << 22) -> np.ndarray:
        """``u(θ) = −Σ_i ℓ(θ; x_i, s_i) − nλ‖θ‖²/2`` for every candidate (blocked over examples)."""
        n = len(s)
        total = np.zeros(len(candidates))
        rows = max(1, block // max(len(candidates), 1))
        for start in range(0, n, rows):
            margins = (s[start : start + rows, None] * X[start : start + rows]) @ candidates.T
            total -= np.logaddexp(0.0, -margins).sum(axis=0)
        return total - 0.5 * n * self.lam * np.einsum("ij,ij->i", candidates, candidates)

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> LinearClassifier:
        X, s = unit_ball(sample.X), signs(sample.y)
        d = X.shape[1]
        candidates = grid(d, self.points, self.radius)
        u = self.scores(X, s, candidates)
        mechanism = ExponentialMechanism(epsilon=self.epsilon, sensitivity=score_sensitivity(d, self.radius))
        index = mechanism.select(u, rng=rng)
        return LinearClassifier(candidates[index].copy(), {"updates": len(candidates)})
