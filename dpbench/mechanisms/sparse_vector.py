"""AboveThreshold / the sparse vector technique ([DNRRV09]; [DR14, §3.6];
[BF26, Lemma 4.3]).

Interface of [BF26] (after [AFKT23]): ``AboveThreshold.init(epsilon, L, beta, rng=)``,
``add_query(q)``, ``test_above_threshold()``. The noisy threshold is
``T̂ = L + Lap(2/ε)``; each sensitivity-1 query gets fresh ``ν ~ Lap(4/ε)`` and the
instance fires (and stops accepting queries) at the first ``q_i + ν_i ≥ T̂``.

Privacy: ε-DP for any adaptively chosen sequence of sensitivity-1 queries that halts at
the first ⊤ ([DR14, Thm 3.23]), hence ε²/2-zCDP.
Utility ([DR14, Thm 3.24]): with probability ≥ 1 − β over ``k`` queries, every query
before the first ⊤ has ``q_i ≤ L + α`` and the ⊤ query has ``q_i ≥ L − α``, with
``α = 8(ln k + ln(2/β))/ε`` (:func:`accuracy`). :func:`accuracy_tight` gives the direct
union bound of the Laplace tails, ``(2 ln(2/β) + 4 ln(2k/β))/ε``, which is smaller.

Vectorised form: :func:`first_above` finds the firing index of one instance over an
array of queries with pre-drawn noise; :class:`AboveThreshold` is the step-by-step
reference. ``epsilon = inf`` adds no noise (the non-private limit). Not hardened against
floating-point attacks (see :mod:`dpbench.mechanisms`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from dpbench.foundation.validation import check_epsilon, check_probability
from dpbench.mechanisms.guarantee import Guarantee


def accuracy(epsilon: float, k: int, beta: float) -> float:
    """``α = 8(ln k + ln(2/β))/ε`` ([DR14, Thm 3.24]); 0 when ε = ∞."""
    if math.isinf(epsilon):
        return 0.0
    return 8.0 * (math.log(max(k, 1)) + math.log(2.0 / beta)) / epsilon


def accuracy_tight(epsilon: float, k: int, beta: float) -> float:
    """``α = (2 ln(2/β) + 4 ln(2k/β))/ε``: ``P[|T̂ − L| > (2/ε)ln(2/β)] = β/2`` and a union
    bound over ``k`` queries gives ``P[max_i|ν_i| > (4/ε)ln(2k/β)] ≤ β/2``; 0 when ε = ∞."""
    if math.isinf(epsilon):
        return 0.0
    return (2.0 * math.log(2.0 / beta) + 4.0 * math.log(2.0 * max(k, 1) / beta)) / epsilon


def threshold_noise(epsilon: float, *, rng: np.random.Generator, size=None):
    """``Lap(2/ε)`` (0 when ε = ∞); ``size``: an array of iid draws (the privacy audit's batch)."""
    if size is not None:
        return np.zeros(size) if math.isinf(epsilon) else rng.laplace(0.0, 2.0 / epsilon, size=size)
    return 0.0 if math.isinf(epsilon) else float(rng.laplace(0.0, 2.0 / epsilon))


def query_noise(epsilon: float, size: int, *, rng: np.random.Generator) -> npt.NDArray[np.float64]:
    """``size`` iid ``Lap(4/ε)`` (zeros when ε = ∞)."""
    if math.isinf(epsilon):
        return np.zeros(size)
    return rng.laplace(0.0, 4.0 / epsilon, size=size)


def first_above(queries: npt.ArrayLike, noise: npt.ArrayLike, noisy_threshold: float) -> int:
    """Index of the first ``q_i + ν_i ≥ T̂``, or −1 if none (vectorised AboveThreshold)."""
    hit = np.flatnonzero(np.asarray(queries, dtype=np.float64) + np.asarray(noise) >= noisy_threshold)
    return int(hit[0]) if len(hit) else -1


@dataclass
class AboveThreshold:
    """One AboveThreshold instance (mutable: it consumes queries). Use :meth:`init`."""

    epsilon: float
    L: float
    beta: float
    rng: np.random.Generator = field(repr=False)
    noisy_threshold: float = 0.0
    fired: bool = False
    last_query: float | None = None
    n_queries: int = 0

    @classmethod
    def init(cls, epsilon: float, L: float, beta: float, *, rng: np.random.Generator) -> "AboveThreshold":
        """A new instance: privacy ``epsilon``, threshold ``L``, failure probability ``beta``."""
        epsilon = check_epsilon(epsilon)
        beta = check_probability(beta, name="beta", closed=False)
        inst = cls(epsilon=epsilon, L=float(L), beta=beta, rng=rng)
        inst.noisy_threshold = float(L) + threshold_noise(epsilon, rng=rng)
        return inst

    def add_query(self, q: float) -> None:
        """Add a sensitivity-1 query; raises once the instance has fired."""
        if self.fired:
            raise RuntimeError("AboveThreshold has fired and accepts no further queries")
        self.n_queries += 1
        self.last_query = float(q) + float(query_noise(self.epsilon, 1, rng=self.rng)[0])

    def test_above_threshold(self) -> bool:
        """Whether the most recent query was (noisily) above the threshold; firing halts it."""
        if self.last_query is None:
            return False
        if self.last_query >= self.noisy_threshold:
            self.fired = True
        return self.fired

    def alpha(self, k: int) -> float:
        """The accuracy ``α`` of [DR14, Thm 3.24] for ``k`` queries."""
        return accuracy(self.epsilon, k, self.beta)

    def guarantee(self) -> Guarantee:
        return Guarantee(epsilon=self.epsilon, delta=0.0)
