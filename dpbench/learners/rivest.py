r"""``rivest``: Rivest's (1987) consistent learner for F-decision lists ([Riv87]).

Repeat: among the unused features ``f ∈ F`` (all conjunctions of ≤ k literals and the
constant-true function) pick a pair ``(f, b)`` such that every remaining example with
``f(x) = 1`` has label ``b`` and at least one such example exists; append it; delete the
examples it covers; stop when none remain; append a default bit (the majority label of the
examples left uncovered, if the sample is not realizable and no consistent pair exists,
else of the whole sample).

``choice='greedy'`` (default) takes a consistent pair covering the most remaining examples
(ties uniform, from ``rng``); ``choice='uniform'`` takes a uniformly random consistent pair —
both are instances of Rivest's "pick any". The covering loop is shared with
:mod:`dpbench.learners.privdl`: per-feature positive/negative counts over the remaining
examples are kept incrementally (:class:`CoverState`), so a run costs ``O(n|F| + |F|²)``.

Utility (realizable): the output is consistent with the sample and lies in the class of
F-decision lists, so w.p. ≥ 1 − β its error is at most ``(ln|C| + ln(1/β))/n`` with
``ln|C| = O(|F| ln|F|)`` (Occam; :func:`dpbench.theory.rate_rivest`). Not private.

References
----------
.. [Riv87] R. L. Rivest, "Learning decision lists", Machine Learning 2(3), 1987.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from dpbench.foundation.registry import register_learner
from dpbench.kernels import numba_cache  # noqa: F401 (kernel caches stamped with the compiled code they use)
from dpbench.learners.base import Learner
from dpbench.problems.base import Sample
from dpbench.problems.decision_list import DecisionList, FeatureClass

#: Selection rule: ``(pos, neg, available, rng) -> (feature, bit)`` or ``None`` to stop.
Select = Callable[[npt.NDArray, npt.NDArray, npt.NDArray, np.random.Generator], "tuple[int, int] | None"]


def feature_class(sample: Sample) -> FeatureClass:
    return sample.concept_class.features


def feature_matrix(sample: Sample) -> npt.NDArray[np.uint8]:
    """``Φ`` of the sample packed by rows (``n × ceil(|F|/8)`` uint8, little-endian bits:
    :meth:`FeatureClass.evaluate_packed`), computed once and cached on the sample — 8×
    smaller than a Boolean matrix, since the runner keeps many samples alive."""
    return sample.cached("dl_feature_matrix_packed", lambda: feature_class(sample).evaluate_packed(sample.X))


def feature_counts(sample: Sample) -> npt.NDArray[np.int64]:
    """``(2, |F|)``: per feature, how many negative (row 0) and positive (row 1) examples of
    the sample satisfy it — where every covering run starts; cached on the sample."""
    def count():
        sums = _accumulate_bits(feature_matrix(sample), np.arange(len(sample.y)), np.asarray(sample.y, dtype=bool), _BITS)
        return sums[:, : feature_class(sample).size]

    return sample.cached("dl_feature_counts", count)


def unsupported_features(target: Any) -> str | None:
    concept_class = getattr(target, "concept_class", None)
    if concept_class is None or not isinstance(getattr(concept_class, "features", None), FeatureClass):
        return "the problem has no decision-list feature class"
    return None


#: ``_BITS[v, b]`` = bit b of the byte v (little-endian), to add a byte's 8 bits at once.
_BITS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.int64)


@numba.njit(cache=True, nogil=True, inline="always")
def _add_row(packed, i, target, bits):  # pragma: no cover - compiled
    """``target[f] += Φ[i, f]`` for every feature (8 at a time from the byte table)."""
    for byte in range(packed.shape[1]):
        v = packed[i, byte]
        if v != 0:
            base = byte * 8
            for b in range(8):
                target[base + b] += bits[v, b]


@numba.njit(cache=True, nogil=True)
def _accumulate_bits(packed, rows, y, bits):  # pragma: no cover - compiled
    """Per label, the column sums of the packed rows ``rows`` (``(2, 8·bytes)``)."""
    n_bytes = packed.shape[1]
    out = np.zeros((2, n_bytes * 8), dtype=np.int64)
    for i in rows:
        _add_row(packed, i, out[1] if y[i] else out[0], bits)
    return out


@numba.njit(cache=True, nogil=True)
def _split_covered(packed, rows, f, y, bits):  # pragma: no cover - compiled
    """``rows`` without the examples feature ``f`` covers (order kept), and per label the
    column sums of the covered rows (``(2, 8·bytes)``) — one pass."""
    n_bytes = packed.shape[1]
    byte, shift = f >> 3, f & 7
    keep = np.empty_like(rows)
    n_keep = 0
    out = np.zeros((2, n_bytes * 8), dtype=np.int64)
    for i in rows:
        if (packed[i, byte] >> shift) & 1:
            _add_row(packed, i, out[1] if y[i] else out[0], bits)
        else:
            keep[n_keep] = i
            n_keep += 1
    return keep[:n_keep].copy(), out


def _accumulate(packed, rows, y, pos, neg, sign):
    """``pos/neg += sign·Φ[i]`` for each example ``i`` in ``rows`` by its label (in place;
    ``packed`` is Φ packed by rows, little-endian bits)."""
    sums = _accumulate_bits(packed, rows, y, _BITS)
    m = len(pos)
    pos += sign * sums[1, :m]
    neg += sign * sums[0, :m]


class CoverLearner(Learner):
    """Shared by the covering learners (``rivest``, ``privdl``, ``privdl_composition``): they
    need the problem's feature class (their cost model: ``cover`` in
    :data:`dpbench.orchestration.cost_table.COST_TABLE`, from |F| and n)."""

    def supports(self, target: Any) -> str | None:
        return unsupported_features(target)


class CoverState:
    """Remaining examples of a covering run and, per feature, how many of them are
    positive / negative and satisfy it.

    ``incremental=True`` (the algorithm as specified): the counts are computed once,
    ``O(n|F|)``, and decremented by the rows of the examples a rule removes — each example
    is removed once, so all updates cost ``O(n|F|)`` in total. ``incremental=False``
    recounts from scratch after every rule (``O(n|F|)`` per round; the benchmark's baseline).
    """

    def __init__(self, packed: npt.NDArray[np.uint8], y: npt.NDArray, n_features: int, *, incremental: bool = True, counts: npt.NDArray | None = None):
        self.packed = np.ascontiguousarray(packed)
        self.y = np.asarray(y, dtype=bool)
        self.incremental = incremental
        self.alive = np.arange(len(self.y))
        self.available = np.ones(n_features, dtype=bool)
        if counts is not None:  # the sample's counts (:func:`feature_counts`), copied
            self.neg, self.pos = np.array(counts[0], dtype=np.int64), np.array(counts[1], dtype=np.int64)
        else:
            self.pos = np.zeros(n_features, dtype=np.int64)
            self.neg = np.zeros(n_features, dtype=np.int64)
            _accumulate(self.packed, self.alive, self.y, self.pos, self.neg, 1)

    @property
    def remaining(self) -> int:
        return len(self.alive)

    def cover(self, f: int) -> None:
        """Use feature ``f``: remove it and the remaining examples it covers."""
        self.available[f] = False
        if self.incremental:
            self.alive, sums = _split_covered(self.packed, self.alive, f, self.y, _BITS)
            m = len(self.pos)
            self.pos -= sums[1, :m]
            self.neg -= sums[0, :m]
        else:
            hit = ((self.packed[self.alive, f >> 3] >> (f & 7)) & 1).astype(bool)
            self.alive = self.alive[~hit]
            self.pos[:] = 0
            self.neg[:] = 0
            _accumulate(self.packed, self.alive, self.y, self.pos, self.neg, 1)


def run_cover(packed: npt.NDArray[np.uint8], y: npt.NDArray, n_features: int, select: Select, *, rng: np.random.Generator, incremental: bool = True, counts: npt.NDArray | None = None) -> tuple[list[int], list[int], CoverState]:
    """The covering loop on packed ``Φ``: while examples remain, ``select`` a pair and cover with it.

    Returns the chosen features, bits and the final state (``select`` returning ``None``
    stops early, e.g. when no consistent pair exists). ``counts``: the starting counts if
    known (:func:`feature_counts`), else computed.
    """
    state = CoverState(packed, y, n_features, incremental=incremental, counts=counts)
    features: list[int] = []
    bits: list[int] = []
    while state.remaining and state.available.any():
        pick = select(state.pos, state.neg, state.available, rng)
        if pick is None:
            break
        f, b = pick
        features.append(int(f))
        bits.append(int(b))
        state.cover(int(f))
    return features, bits, state


def _majority(y: npt.NDArray) -> int:
    return int(2 * np.count_nonzero(y) > len(y)) if len(y) else 0


@register_learner(name="rivest", family="batch", problems=("decision_list",))
@dataclass(frozen=True, kw_only=True)
class Rivest(CoverLearner):
    """Rivest's consistent decision-list learner (module docstring); ``choice`` is
    ``'greedy'`` (most covered examples) or ``'uniform'`` among the consistent pairs."""

    choice: str = "greedy"

    def __post_init__(self) -> None:
        if self.choice not in ("greedy", "uniform"):
            raise ValueError(f"choice must be one of ['greedy', 'uniform'], got {self.choice!r}")

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {}
        yield {"choice": "uniform"}


    def _select(self, pos, neg, available, rng):
        consistent = available & (((pos > 0) & (neg == 0)) | ((neg > 0) & (pos == 0)))
        if not consistent.any():
            return None
        if self.choice == "greedy":
            coverage = np.where(consistent, pos + neg, -1)
            candidates = np.flatnonzero(coverage == coverage.max())
        else:
            candidates = np.flatnonzero(consistent)
        f = int(rng.choice(candidates))
        return f, int(pos[f] > 0)

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> DecisionList:
        features, bits, state = run_cover(feature_matrix(sample), sample.y, feature_class(sample).size, self._select, rng=rng, counts=feature_counts(sample))
        left = sample.y[state.alive] if state.remaining else sample.y
        return DecisionList.from_features(feature_class(sample), features, bits, _majority(left))
