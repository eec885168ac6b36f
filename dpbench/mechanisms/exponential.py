"""The exponential mechanism ([MT07]; [DR14, §3.4]).

Sampling is Gumbel-max in log space: ``argmax_r (log-weight_r + G_r)`` with iid standard
Gumbel ``G_r`` is a draw from ``P[r] ∝ exp(log-weight_r)``, never exponentiating raw scores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.special import logsumexp

from dpbench.foundation.validation import check_epsilon, check_positive, normalise
from dpbench.mechanisms.guarantee import Guarantee
from dpbench.mechanisms.laws import recorder


def gumbel_max(logits: npt.ArrayLike, *, rng: np.random.Generator) -> int:
    """One draw from ``P[i] ∝ exp(logits_i)``; ``+inf`` logits are drawn uniformly among themselves."""
    logits = np.asarray(logits, dtype=np.float64)
    top = np.isposinf(logits)
    if top.any():
        return int(rng.choice(np.flatnonzero(top)))
    return int(np.argmax(logits + rng.gumbel(size=logits.shape)))


def uniform_argmax(scores: npt.ArrayLike, *, rng: np.random.Generator) -> int:
    """An index of the maximum, uniform among ties."""
    scores = np.asarray(scores)
    return int(rng.choice(np.flatnonzero(scores == scores.max())))


@dataclass(frozen=True, kw_only=True)
class ExponentialMechanism:
    """``P[r] ∝ exp(ε·u(r) / (2Δu))``.

    Privacy: ε-DP when the score ``u`` has sensitivity ``Δu = sensitivity``.
    Utility: ``P[u(out) ≤ OPT − (2Δu/ε)(ln|R| + t)] ≤ e^{−t}`` (:meth:`utility_gap`).
    ``epsilon = inf`` returns a maximiser, uniform among ties.
    """

    epsilon: float
    sensitivity: float = 1.0

    def __post_init__(self) -> None:
        normalise(
            self,
            epsilon=check_epsilon(self.epsilon),
            sensitivity=check_positive(self.sensitivity, name="sensitivity"),
        )

    def logits(self, scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
        return self.epsilon * np.asarray(scores, dtype=np.float64) / (2 * self.sensitivity)

    def select(self, scores: npt.ArrayLike, *, rng: np.random.Generator) -> int:
        """One draw, ``P ∝ exp(ε u/(2Δ))``. Inside :func:`dpbench.mechanisms.laws.recording_laws`
        the law drawn from is appended to the recording (a ``(1, outcomes)`` log-pmf)."""
        if math.isinf(self.epsilon):
            return uniform_argmax(scores, rng=rng)
        logits = self.logits(scores)
        _record_law(logits)
        return gumbel_max(logits, rng=rng)

    def select_runs(self, scores: npt.ArrayLike, *, runs: int, rng: np.random.Generator) -> npt.NDArray[np.int64]:
        """``runs`` independent draws of :meth:`select` at once (Gumbel-max over runs × outcomes;
        the privacy audit's batch). ``ε = inf``: one :meth:`select` per run."""
        if math.isinf(self.epsilon):
            return np.array([self.select(scores, rng=rng) for _ in range(runs)], dtype=np.int64)
        logits = self.logits(scores)
        _record_law(logits)
        return np.argmax(logits + rng.gumbel(size=(runs, len(logits))), axis=1)

    def log_probabilities(self, scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
        logits = self.logits(scores)
        return logits - logsumexp(logits)

    def utility_gap(self, n_outcomes: int, t: float) -> float:
        """``(2Δu/ε)(ln|R| + t)``: exceeded with probability at most ``e^{−t}``."""
        return 2 * self.sensitivity / self.epsilon * (math.log(n_outcomes) + t)

    def guarantee(self) -> Guarantee:
        return Guarantee(epsilon=self.epsilon, delta=0.0)


def _record_law(logits: npt.NDArray[np.float64]) -> None:
    """Append the law ``softmax(logits)`` a draw is made from to the open law recording
    (:mod:`dpbench.mechanisms.laws`; nothing outside it)."""

    recording = recorder()
    if recording is not None:
        recording.append((logits - logsumexp(logits))[None, :])
