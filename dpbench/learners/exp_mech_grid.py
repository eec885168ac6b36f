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
from typing import Any

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.foundation.validation import check_positive, check_positive_int, normalise
from dpbench.learners.log_loss_kernel import grid_log_loss_sums, log_loss_sums
from dpbench.learners.logistic_common import LinearClassifier, PureDPLogistic, projected
from dpbench.mechanisms.exponential import ExponentialMechanism
from dpbench.problems.base import Sample


def grid_axis(points: int, radius: float) -> np.ndarray:
    """The ``points`` equally spaced values of one coordinate, ``−R … R``."""
    return np.linspace(-radius, radius, points)


def grid(d: int, points: int, radius: float) -> np.ndarray:
    """All ``points^d`` candidates, ``(points^d, d)`` (``itertools.product`` order: the last
    coordinate fastest)."""
    return np.array(list(itertools.product(grid_axis(points, radius), repeat=d)), dtype=np.float64).reshape(-1, d)


def score_sensitivity(d: int, radius: float) -> float:
    """``Δu = ln(1 + e^{R√d})``."""
    return float(np.logaddexp(0.0, radius * math.sqrt(d)))


@register_learner(name="exp_mech_grid")
@dataclass(frozen=True, kw_only=True)
class ExpMechGrid(PureDPLogistic):
    points: int = 7
    radius: float = 4.0
    max_candidates: int = 20_000

    def __post_init__(self) -> None:
        super().__post_init__()
        normalise(
            self,
            points=check_positive_int(self.points, name="points"),
            radius=check_positive(self.radius, name="radius"),
            max_candidates=check_positive_int(self.max_candidates, name="max_candidates"),
        )

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0, "points": 5}
        yield {"epsilon": math.inf, "points": 5}


    def supports(self, target: Any) -> str | None:
        d = getattr(target, "d", None)
        if d is None:
            return "the problem has no dimension d"
        if self.points**d > self.max_candidates:
            return f"grid has {self.points}^{d} = {self.points**d:.3g} candidates > max_candidates={self.max_candidates}"
        return None

    def scores(self, X: np.ndarray, s: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """``u(θ) = −Σ_i ℓ(θ; x_i, s_i) − nλ‖θ‖²/2`` for every candidate (the loss sums in one
        compiled pass: :func:`~dpbench.learners.log_loss_kernel.log_loss_sums`)."""
        return self._with_regulariser(-log_loss_sums(s[:, None] * X, candidates), len(s), candidates)

    def grid_scores(self, X: np.ndarray, s: np.ndarray) -> np.ndarray:
        """:meth:`scores` of the whole grid (:func:`grid`), the same bits, by the grid kernel
        (:func:`~dpbench.learners.log_loss_kernel.grid_log_loss_sums`: margins built as
        shared prefixes, ≈ one addition per candidate and example)."""
        candidates = grid(X.shape[1], self.points, self.radius)
        losses = grid_log_loss_sums(s[:, None] * X, grid_axis(self.points, self.radius))
        return self._with_regulariser(-losses, len(s), candidates)

    def _with_regulariser(self, total: np.ndarray, n: int, candidates: np.ndarray) -> np.ndarray:
        return total - 0.5 * n * self.lam * np.einsum("ij,ij->i", candidates, candidates)

    def mechanism(self, d: int) -> ExponentialMechanism:
        """The exponential mechanism on the grid in dimension ``d`` (score sensitivity
        :func:`score_sensitivity`)."""
        return ExponentialMechanism(epsilon=self.epsilon, sensitivity=score_sensitivity(d, self.radius))

    def sample_scores(self, sample: Sample) -> np.ndarray:
        """The candidates' scores on ``sample`` (they do not depend on ε: computed once per
        sample for every cell of the shard that sees it, a deterministic function of (X, y))."""
        X, s, _ = projected(sample)
        return sample.cached(f"exp_mech_grid_scores:{self.points}:{self.radius!r}:{self.lam!r}", lambda: self.grid_scores(X, s))

    def release(self, sample: Sample, *, rng: np.random.Generator, runs: int | None = None):
        """Grid index of the selected candidate (what :meth:`fit` outputs), or ``runs``
        independent indices at once (the privacy audit's batch: one code path with ``fit``)."""
        u, mechanism = self.sample_scores(sample), self.mechanism(sample.X.shape[1])
        if runs is None:
            return mechanism.select(u, rng=rng)
        return mechanism.select_runs(u, runs=runs, rng=rng)

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> LinearClassifier:
        candidates = grid(sample.X.shape[1], self.points, self.radius)
        index = self.release(sample, rng=rng)
        return LinearClassifier(candidates[index].copy(), {"updates": len(candidates)})
