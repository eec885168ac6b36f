"""Decision lists as large-margin halfspaces ([BF26, Lemma 4.10, Thm 4.11]).

Target: a monotone 1-decision list of length ``l`` over ``d`` Boolean variables,
``if x_{i_1}: b_1 elif x_{i_2}: b_2 … else b_{l+1}`` with distinct variables ``i_j`` and
bits ``b_j ∈ {−1,+1}`` drawn uniformly among the non-constant lists (equal bits would make
the target a constant function, learnt by predicting one label). Inputs: independent
``x_i ~ Bernoulli(p)``. The best constant predictor errs with probability
:meth:`~DecisionListHalfspaceTarget.constant_error` (exact), the level a learner must beat.

**[reconstructed]** Lemma 4.10: over the features ``(1, x_1, …, x_d)`` the list equals

.. math:: \\operatorname{sign}\\Big(\\sum_{j=1}^{l} b_j 2^{l+1-j} x_{i_j} + b_{l+1}\\Big),

an odd integer in absolute value ≥ 1, so the halfspace with weights normalised by
``‖·‖₁ = 2^{l+1} − 1`` has margin ``ρ = 1/(2^{l+1} − 1)``. The weights are signed, so the
learners see the ``N = 2(d+1)`` features ``(f, −f)`` ([BF26, §4.3]), where the transformed
target is nonnegative with the same margin. Streams are iid (``order`` is always
``random``); ``rho`` and ``n_features`` are per-target columns.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from dpbench.foundation.registry import register_problem
from dpbench.foundation.validation import check_positive_int, check_probability, normalise
from dpbench.kernels.block_kernels import decision_list_block
from dpbench.kernels.pcg64 import random_below
from dpbench.problems.base import Problem
from dpbench.problems.halfspace import MarginTarget

HOLDOUT_SIZE = 50_000


def dl_margin(l: int) -> float:  # noqa: E741
    """``ρ = 1/(2^{l+1} − 1)`` (Lemma 4.10, [reconstructed])."""
    return 1.0 / (2 ** (l + 1) - 1)


@dataclass(frozen=True)
class DecisionListHalfspaceTarget(MarginTarget):
    """A decision list (``variables``, ``bits``; ``bits[-1]`` is the default) and its halfspace;
    its batch sample has ``X ∈ {0,1}^d`` (uint8), nested across n (:meth:`MarginTarget.sample`)."""

    sample_dtype: ClassVar[type] = np.uint8

    d: int
    p: float
    variables: npt.NDArray[np.int64]
    bits: npt.NDArray[np.int64]
    seed: int

    @property
    def l(self) -> int:  # noqa: E743
        return len(self.variables)

    @property
    def rho(self) -> float:
        return dl_margin(self.l)

    @property
    def n_features(self) -> int:
        return 2 * (self.d + 1)

    def weights(self) -> npt.NDArray[np.float64]:
        """Signed halfspace weights over ``(1, x_1..x_d)``, ‖·‖₁ = 1 (Lemma 4.10)."""
        w = np.zeros(self.d + 1)
        w[0] = self.bits[-1]
        for j, i in enumerate(self.variables):
            w[1 + i] = self.bits[j] * 2.0 ** (self.l - j)
        return w / np.abs(w).sum()

    def to_json(self) -> dict:
        return {"d": self.d, "p": self.p, "variables": self.variables.tolist(), "bits": self.bits.tolist(), "seed": self.seed}

    def columns(self) -> dict[str, object]:
        return {"n_features": self.n_features, "rho": self.rho}

    def constant_error(self) -> float:
        r"""Mistake rate of the best constant predictor (the majority label), exact:
        :math:`\min(P[y = +1], P[y = -1])` with :math:`P[\text{item } j \text{ decides}] =
        p(1-p)^{j-1}` and :math:`P[\text{default}] = (1-p)^l`."""
        decides = np.append(self.p * (1 - self.p) ** np.arange(self.l), (1 - self.p) ** self.l)
        positive = float(decides[self.bits > 0].sum())
        return min(positive, 1.0 - positive)

    def label(self, X: npt.NDArray) -> npt.NDArray[np.int8]:
        """The list's output in {−1,+1} on Boolean rows ``X`` (n, d)."""
        y = np.full(len(X), self.bits[-1], dtype=np.int8)
        for j in range(self.l - 1, -1, -1):  # earlier items override later ones
            y = np.where(X[:, self.variables[j]] > 0, self.bits[j], y).astype(np.int8)
        return y

    def _draw(self, n: int, rng: np.random.Generator) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
        X = (rng.random((n, self.d)) < self.p).astype(np.int8)
        return X, self.label(X)

    def _block(self, b: int, rng: np.random.Generator) -> tuple[npt.NDArray, npt.NDArray]:
        """Features ``(1, x, −1, −x)`` and labels of :meth:`_draw`'s examples, in one pass."""
        return decision_list_block(random_below(rng, (b, self.d), self.p), self.variables, self.bits)  # x = [U < p]

    def population_error(self, hypothesis: Any) -> float:
        holdout = self.sample(HOLDOUT_SIZE, rng=np.random.default_rng(self.seed))
        return float(np.mean(hypothesis.predict(holdout.X) != holdout.y))


@register_problem(name="dl_as_halfspace", family="online")
@dataclass(frozen=True, kw_only=True)
class DlAsHalfspace(Problem):
    """Problem ``dl_as_halfspace``: a random monotone 1-decision list as a margin-ρ halfspace.

    Parameters
    ----------
    d : number of Boolean variables.
    l : list length, ``1 ≤ l ≤ d`` (margin ``1/(2^{l+1} − 1)``).
    p : ``P[x_i = 1]`` (small p lets later items of the list matter).
    """

    d: int = 10
    l: int = 2  # noqa: E741
    p: float = 0.3

    def __post_init__(self) -> None:
        normalise(self, d=check_positive_int(self.d, name="d"))
        l = check_positive_int(self.l, name="l")  # noqa: E741
        if l > self.d:
            raise ValueError(f"l must be <= d={self.d}, got {self.l!r}")
        normalise(self, l=l)
        normalise(self, p=check_probability(self.p, name="p", closed=False))

    @classmethod
    def test_params(cls) -> Iterator[Mapping[str, object]]:
        yield {"d": 6, "l": 2, "p": 0.3}

    def draw_target(self, *, rng: np.random.Generator) -> DecisionListHalfspaceTarget:
        variables = rng.choice(self.d, size=self.l, replace=False).astype(np.int64)
        bits = rng.choice(np.array([-1, 1]), size=self.l + 1).astype(np.int64)
        while np.all(bits == bits[0]):  # a constant function: redraw (probability 2^-l)
            bits = rng.choice(np.array([-1, 1]), size=self.l + 1).astype(np.int64)
        return DecisionListHalfspaceTarget(d=self.d, p=self.p, variables=variables, bits=bits, seed=int(rng.integers(2**62)))

    @classmethod
    def target_from_json(cls, data: Mapping[str, Any]) -> DecisionListHalfspaceTarget:
        return DecisionListHalfspaceTarget(
            d=int(data["d"]), p=float(data["p"]), variables=np.asarray(data["variables"], dtype=np.int64),
            bits=np.asarray(data["bits"], dtype=np.int64), seed=int(data["seed"]),
        )
