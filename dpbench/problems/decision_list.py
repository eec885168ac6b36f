r"""k-decision lists under a product distribution ([Riv87]; [BF26, §2–3]).

A decision list ``((f_1, b_1), …, (f_l, b_l), b_{l+1})`` outputs ``b_j`` for the first ``j``
with ``f_j(x) = 1`` and the default ``b_{l+1}`` if no term fires. Here the terms are
conjunctions of at most ``k`` literals over ``d`` Boolean variables (``k = 1``: 1-decision
lists; ``monotone``: no negated literals).

**Feature class** :class:`FeatureClass` ``F``: all conjunctions of ≤ ``k`` literals on distinct
variables plus the constant-true function (index 0), ``|F| = Σ_{i≤k} C(d,i)·2^i`` (or
``Σ C(d,i)`` monotone). A sample's feature matrix ``Φ[j, f] = f(x_j)`` is computed once per
sample (:meth:`FeatureClass.evaluate`, cached on the :class:`~dpbench.problems.base.Sample`).

**Target** (:meth:`DecisionListProblem.draw_target`): ``l`` terms, each a conjunction of
exactly ``k`` literals on distinct variables (signs uniform; positive if ``monotone``); the
``l + 1`` output bits start with a uniform bit and change exactly ``r`` times (``1 ≤ r ≤ l``;
the change points are uniform among the ``l`` gaps). Inputs: independent coordinates with
``P[x_i = 1] = p``; labels ``y = f(x)`` flipped with probability ``noise``.

**Non-degeneracy** (rejection sampling, from the target's own stream, at most 1000 tries):
on 8192 inputs drawn from the target stream, every rule and the default must *decide* (be
the first to fire on) at least a share ``τ = ½·q·(1−q)^l`` of the inputs, where
``q = min(p, 1−p)^k`` is the smallest firing probability of a k-term (``q(1−q)^{j−1}`` is
what rule ``j`` of independent terms would get), and each label must have probability
≥ 0.05. This rules out rules shadowed by earlier ones (e.g. ``x_1`` after ``x_1 ∧ x_2``
is fine, but ``x_1 ∧ x_2`` after ``x_1`` never fires), contradictory terms and near-constant
labels.

**Population error** on a held-out sample of :data:`HOLDOUT_SIZE` inputs from the target's
own seed, against the noiseless labels, with the noise added exactly:
``P[h ≠ y] = η + (1 − 2η)·P[h ≠ f]``.

**Enumerated class** :class:`DecisionListClass` (for ``erm`` / ``exp_mech_erm``, the KLNRS
baseline): every list of distinct non-constant features of F with bits, followed by a default
bit — ``|C| = 2 Σ_{j≤m} m!/(m−j)!·2^j`` with ``m = |F| − 1`` (151,946 lists at d = 3, k = 1;
3.4·10^7 at d = 4). Mistakes of all lists are computed level by level on bit-packed columns
(each list costs one AND + popcount over ``ceil(n/64)`` words per rule).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

import numba
import numpy as np
import numpy.typing as npt

from dpbench.foundation.registry import register_problem
from dpbench.foundation.validation import check_positive_int, check_probability, normalise
from dpbench.kernels import numba_cache  # noqa: F401 (kernel caches stamped with the compiled code they use)
from dpbench.kernels.bitset import pack_columns, popcount_rows
from dpbench.problems.base import Problem, Sample
from dpbench.theory.decision_lists import dl_feature_count, dl_log_class_size

HOLDOUT_SIZE = 50_000
#: Inputs used to check that a drawn target is not degenerate.
CHECK_SIZE = 8192
#: Largest number of non-constant features for which |C| is counted exactly.
_EXACT_COUNT_MAX = 40
#: ``size`` reported for classes too large to count (far above any enumeration cap).
HUGE = 2**62


# --------------------------------------------------------------------------- features


@dataclass(frozen=True)
class FeatureClass:
    """All conjunctions of at most ``k`` literals over ``d`` variables, plus constant true.

    ``literals[f]`` holds feature ``f``'s literals as indices into the extended literal
    columns ``[x_1..x_d, ¬x_1..¬x_d, 1]`` (index ``2d`` pads terms with fewer than ``k``
    literals). Feature 0 is the constant-true function; then all single literals, then all
    pairs, … (variables in increasing order, signs in product order).
    """

    d: int
    k: int
    monotone: bool = False

    @cached_property
    def literals(self) -> npt.NDArray[np.int32]:
        pad = 2 * self.d
        rows = [[pad] * self.k]
        signs = (0,) if self.monotone else (0, 1)
        for size in range(1, self.k + 1):
            for variables in itertools.combinations(range(self.d), size):
                for sign in itertools.product(signs, repeat=size):
                    lits = [v + s * self.d for v, s in zip(variables, sign)]
                    rows.append(lits + [pad] * (self.k - size))
        return np.array(rows, dtype=np.int32).reshape(-1, self.k)

    @cached_property
    def literal_masks(self) -> npt.NDArray[np.uint64]:
        """Feature f's literals as bits of a word (bit i: extended literal column i)."""
        bits = np.left_shift(np.uint64(1), self.literals.astype(np.uint64))
        return np.bitwise_or.reduce(bits, axis=1)

    @property
    def size(self) -> int:
        return dl_feature_count(self.d, self.k, self.monotone)

    def evaluate_packed(self, X: npt.NDArray, *, block: int = 1 << 15) -> npt.NDArray[np.uint8]:
        """``Φ`` packed by rows: ``(n, ceil(|F|/8))`` uint8, bit ``f % 8`` (little-endian) of
        byte ``f // 8`` is ``f(x_j)``: one compiled pass over the examples (d ≤ 31), else
        :meth:`evaluate` in blocks of ``block`` rows (bounded peak memory); the same bits."""
        n_bytes = -(-self.size // 8)
        if 2 * self.d + 1 > 64:  # the literals do not fit one word: numpy, in blocks of rows
            out = np.empty((len(X), n_bytes), dtype=np.uint8)
            for start in range(0, len(X), block):
                out[start : start + block] = np.packbits(self.evaluate(X[start : start + block]), axis=1, bitorder="little")
            return out
        X = np.ascontiguousarray(X, dtype=bool).view(np.uint8).reshape(len(X), self.d)
        return _evaluate_packed(X, self.literal_masks, n_bytes)

    def evaluate(self, X: npt.NDArray) -> npt.NDArray[np.bool_]:
        """``Φ`` of shape ``(n, |F|)``: ``Φ[j, f] = f(x_j)``."""
        X = np.asarray(X, dtype=bool)
        ext = np.concatenate([X, ~X, np.ones((len(X), 1), dtype=bool)], axis=1)
        lits = self.literals
        ext = np.ascontiguousarray(ext.T)  # gather rows, not strided columns
        phi = ext[lits[:, 0]]
        for c in range(1, self.k):
            phi &= ext[lits[:, c]]
        return np.ascontiguousarray(phi.T)

    def describe(self, f: int) -> str:
        lits = [int(i) for i in self.literals[f] if i < 2 * self.d]
        if not lits:
            return "true"
        return " ∧ ".join(f"x{i}" if i < self.d else f"¬x{i - self.d}" for i in lits)


@numba.njit(cache=True, nogil=True)
def _evaluate_packed(X, masks, n_bytes):  # pragma: no cover - compiled
    """Row-packed ``Φ``: per example, its extended literals ``[x, ¬x, 1]`` as the bits of
    one word ``e``; feature f holds iff ``e ⊇ masks[f]`` (all its literals), set at bit
    ``f % 8`` of byte ``f // 8``."""
    n, d = X.shape
    n_features = masks.shape[0]
    out = np.empty((n, n_bytes), dtype=np.uint8)
    for j in range(n):
        e = np.uint64(1) << np.uint64(2 * d)
        for v in range(d):
            e |= np.uint64(1) << np.uint64(v if X[j, v] else v + d)
        for byte in range(n_bytes):
            acc = 0
            for f in range(byte * 8, min(byte * 8 + 8, n_features)):
                acc |= np.int64((e & masks[f]) == masks[f]) << (f & 7)
            out[j, byte] = acc
    return out


# --------------------------------------------------------------------------- hypotheses


@dataclass(frozen=True, eq=False)
class DecisionList:
    """``((f_1, b_1), …, (f_R, b_R), default)`` with ``f_j`` given by literal indices
    (as :attr:`FeatureClass.literals`, pad index ``2d``); ``features`` optionally records the
    feature-class indices of the rules (diagnostics)."""

    d: int
    literals: npt.NDArray[np.int32]
    bits: npt.NDArray[np.uint8]
    default: int
    features: npt.NDArray[np.int64] | None = None

    def predict(self, X: npt.NDArray) -> npt.NDArray[np.uint8]:
        """``b_j`` of the first rule that fires, else the default bit."""
        first = _first_rule(X, self.literals)
        labels = np.append(np.asarray(self.bits, dtype=np.uint8), np.uint8(self.default))
        return labels[first]

    def __len__(self) -> int:
        return len(self.bits)

    @classmethod
    def from_features(cls, features: FeatureClass, indices, bits, default: int = 0) -> DecisionList:
        """The list of the given feature indices, truncated after the first constant-true rule."""
        indices = np.asarray(indices, dtype=np.int64)
        bits = np.asarray(bits, dtype=np.uint8)
        stop = np.flatnonzero(indices == 0)
        if len(stop):
            indices, bits = indices[: stop[0] + 1], bits[: stop[0] + 1]
        return cls(d=features.d, literals=features.literals[indices], bits=bits, default=int(default), features=indices)


# --------------------------------------------------------------------------- enumerated class


@dataclass(frozen=True)
class DecisionListClass:
    """Every F-decision list: a sequence of distinct non-constant features with output bits,
    then a default bit (see the module docstring). Index order: by length ``j``; within a
    length, mixed radix — rule ``t`` picks the ``rank``-th unused feature and a bit, digit
    ``rank·2 + bit`` of radix ``2(m − t + 1)``; the default bit is the last digit."""

    features: FeatureClass

    @property
    def m(self) -> int:
        return self.features.size - 1

    def _level_counts(self) -> list[int]:
        m = self.m
        counts, c = [], 1
        for j in range(m + 1):
            counts.append(2 * c)  # nodes of length j, times the default bit
            c *= 2 * (m - j)
        return counts

    @property
    def size(self) -> int:
        if self.m > _EXACT_COUNT_MAX:
            return HUGE
        return int(sum(self._level_counts()))

    @property
    def log_size(self) -> float:
        return dl_log_class_size(self.features.size)

    def hypothesis(self, index: int) -> DecisionList:
        index = int(index)
        counts = self._level_counts()
        j = 0
        while index >= counts[j]:
            index -= counts[j]
            j += 1
        default, node = index % 2, index // 2
        picks = []
        for t in range(j, 0, -1):
            radix = self.m - (t - 1)
            bit, node = node % 2, node // 2
            rank, node = node % radix, node // radix
            picks.append((rank, bit))
        available = list(range(1, self.m + 1))
        indices, bits = [], []
        for rank, bit in reversed(picks):
            indices.append(available.pop(rank))
            bits.append(bit)
        return DecisionList.from_features(self.features, np.array(indices, dtype=np.int64), np.array(bits, dtype=np.uint8), default)

    def mistakes(self, X: npt.NDArray, y: npt.NDArray) -> npt.NDArray[np.int64]:
        """Training mistakes of every list, in index order (level-by-level, bit-packed)."""
        if self.size == HUGE:
            raise ValueError(f"decision-list class over {self.m} features is too large to enumerate")
        y = np.asarray(y, dtype=bool)
        m = self.m
        phi = self.features.evaluate(X)[:, 1:]
        cols = pack_columns(phi)  # (m, W)
        ypos, yneg = pack_columns(y)[0], pack_columns(~y)[0]
        W = cols.shape[1]
        uncovered = pack_columns(np.ones(len(y), dtype=bool))  # (1, W)
        mist = np.zeros(1, dtype=np.int64)
        used = np.zeros((1, m), dtype=bool)
        out = []
        for j in range(m + 1):
            # hypotheses of length j: node * 2 + default
            d0 = mist + popcount_rows(uncovered & ypos)  # default 0 errs on uncovered positives
            d1 = mist + popcount_rows(uncovered & yneg)
            out.append(np.stack([d0, d1], axis=1).ravel())
            if j == m:
                break
            rem = m - j
            order = np.argsort(used, axis=1, kind="stable")[:, :rem]  # unused features, increasing
            cov = uncovered[:, None, :] & cols[order]  # (N, rem, W)
            err1 = popcount_rows(cov & yneg)  # bit 1 errs on covered negatives
            err0 = popcount_rows(cov & ypos)
            child_mist = mist[:, None, None] + np.stack([err0, err1], axis=2)  # (N, rem, 2)
            left = uncovered[:, None, :] & ~cols[order]  # (N, rem, W)
            child_used = np.repeat(used, rem, axis=0)
            child_used[np.arange(len(child_used)), order.ravel()] = True
            mist = child_mist.reshape(-1)
            uncovered = np.repeat(left.reshape(-1, W), 2, axis=0)
            used = np.repeat(child_used, 2, axis=0)
        return np.concatenate(out)


# --------------------------------------------------------------------------- problem


@register_problem(name="decision_list", family="batch")
@dataclass(frozen=True, kw_only=True)
class DecisionListProblem(Problem):
    """Parameters: ``d`` variables, term size ``k``, list length ``l``, alternations ``r`` of
    the output bits, ``monotone`` terms, input bias ``p``, label-noise rate ``noise``
    (see the module docstring)."""

    d: int = 10
    k: int = 1
    l: int = 4
    r: int = 2
    monotone: bool = False
    p: float = 0.5
    noise: float = 0.0

    def __post_init__(self) -> None:
        check_positive_int(self.d, name="d")
        if not (isinstance(self.k, int) and 1 <= self.k <= self.d):
            raise ValueError(f"k must be an integer in [1, d={self.d}], got {self.k!r}")
        check_positive_int(self.l, name="l")
        if not (isinstance(self.r, int) and 1 <= self.r <= self.l):
            raise ValueError(f"r must be an integer in [1, l={self.l}], got {self.r!r}")
        n_terms = math.comb(self.d, self.k) * (1 if self.monotone else 2**self.k)
        if self.l > n_terms:
            raise ValueError(f"l must be <= the number of {self.k}-terms ({n_terms}), got {self.l!r}")
        if not isinstance(self.monotone, bool):
            raise TypeError(f"monotone must be a boolean, got {self.monotone!r}")
        check_probability(self.p, name="p", closed=False)
        if not 0 <= self.noise < 0.5:
            raise ValueError(f"noise must be in [0, 0.5), got {self.noise!r}")
        normalise(self, p=float(self.p), noise=float(self.noise))

    def n_features(self) -> int:
        """``|F|`` of the feature class (a function of the parameters only)."""
        return dl_feature_count(self.d, self.k, self.monotone)

    def log_class_size(self) -> float:
        """``ln|C|`` of the F-decision lists (read by :mod:`dpbench.orchestration.cost` to size shards)."""
        return dl_log_class_size(self.n_features())

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"d": 3, "k": 1, "l": 2, "r": 1}  # tiny: the enumerated class has 151,946 lists
        yield {"d": 8, "k": 2, "l": 4, "r": 2, "noise": 0.05}
        yield {"d": 6, "k": 1, "l": 3, "r": 3, "monotone": True, "p": 0.3}

    def min_share(self) -> float:
        """``τ = ½·q·(1−q)^l`` with ``q = min(p, 1−p)^k`` (module docstring)."""
        q = min(self.p, 1 - self.p) ** self.k
        return 0.5 * q * (1 - q) ** self.l

    def _draw_list(self, rng: np.random.Generator) -> tuple[npt.NDArray, npt.NDArray]:
        pad = 2 * self.d
        terms: set[tuple[int, ...]] = set()
        while len(terms) < self.l:
            variables = np.sort(rng.choice(self.d, size=self.k, replace=False))
            signs = np.zeros(self.k, dtype=int) if self.monotone else rng.integers(0, 2, size=self.k)
            terms.add(tuple(int(v + s * self.d) for v, s in zip(variables, signs)))
        order = rng.permutation(self.l)
        ordered = sorted(terms)
        literals = np.array([list(ordered[i]) for i in order], dtype=np.int32).reshape(self.l, self.k)
        literals = np.where(literals < pad, literals, pad)
        changes = np.zeros(self.l + 1, dtype=np.int64)
        changes[1 + rng.choice(self.l, size=self.r, replace=False)] = 1
        bits = (int(rng.integers(0, 2)) + np.cumsum(changes)) % 2
        return literals, bits.astype(np.uint8)

    def draw_target(self, *, rng: np.random.Generator) -> DecisionListTarget:
        tau = self.min_share()
        for _ in range(1000):
            literals, bits = self._draw_list(rng)
            concept = DecisionList(d=self.d, literals=literals, bits=bits[:-1], default=int(bits[-1]))
            X = (rng.random((CHECK_SIZE, self.d)) < self.p).astype(np.uint8)
            first = _first_rule(X, literals)
            shares = np.bincount(first, minlength=self.l + 1) / CHECK_SIZE
            positive = float(np.mean(concept.predict(X)))
            if shares.min() >= tau and 0.05 <= positive <= 0.95:
                break
        else:  # pragma: no cover - parameters validated to make this unreachable in practice
            raise ValueError(f"no non-degenerate decision list found for {self!r}")
        return DecisionListTarget(
            concept=concept, p=self.p, noise=self.noise, k=self.k, monotone=self.monotone,
            holdout_seed=int(rng.integers(2**63)),
        )

    @classmethod
    def target_from_json(cls, data: dict) -> DecisionListTarget:
        d = int(data["d"])
        concept = DecisionList(
            d=d,
            literals=np.array(data["literals"], dtype=np.int32).reshape(len(data["bits"]), int(data["k"])),
            bits=np.array(data["bits"], dtype=np.uint8),
            default=int(data["default"]),
        )
        return DecisionListTarget(
            concept=concept, p=float(data["p"]), noise=float(data["noise"]), k=int(data["k"]),
            monotone=bool(data["monotone"]), holdout_seed=int(data["holdout_seed"]),
        )


@numba.njit(cache=True)
def _first_rule_kernel(X, literals):  # pragma: no cover - compiled
    n, d = X.shape
    n_rules, k = literals.shape
    out = np.full(n, n_rules, dtype=np.int64)
    for j in range(n):
        for r in range(n_rules):
            fires = True
            for c in range(k):
                lit = literals[r, c]
                if (lit < d and X[j, lit] == 0) or (d <= lit < 2 * d and X[j, lit - d] != 0):
                    fires = False
                    break
            if fires:
                out[j] = r
                break
    return out


def _first_rule(X: npt.NDArray, literals: npt.NDArray) -> npt.NDArray[np.int64]:
    """Index of the first rule that fires on each input (``len(literals)``: the default)."""
    return _first_rule_kernel(np.ascontiguousarray(X, dtype=np.uint8), np.ascontiguousarray(literals, dtype=np.int32))


@dataclass(frozen=True)
class DecisionListTarget:
    """A drawn decision list with its product input distribution and label noise."""

    concept: DecisionList
    p: float
    noise: float
    k: int
    monotone: bool
    holdout_seed: int
    _holdout: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def d(self) -> int:
        return self.concept.d

    @cached_property
    def features(self) -> FeatureClass:
        return FeatureClass(d=self.d, k=self.k, monotone=self.monotone)

    @cached_property
    def concept_class(self) -> DecisionListClass:
        return DecisionListClass(features=self.features)

    def to_json(self) -> dict:
        return {
            "d": self.d,
            "k": self.k,
            "literals": self.concept.literals.tolist(),
            "bits": self.concept.bits.tolist(),
            "default": int(self.concept.default),
            "p": self.p,
            "noise": self.noise,
            "monotone": self.monotone,
            "holdout_seed": self.holdout_seed,
        }

    def columns(self) -> dict[str, object]:
        return {"n_features": self.features.size, "log_class_size": self.concept_class.log_size}

    def sample(self, n: int, *, rng: np.random.Generator) -> Sample:
        """``n`` labelled examples; a sample of size m is the prefix of one of size n > m."""
        u = rng.random((n, self.d + 1))
        X = (u[:, : self.d] < self.p).astype(np.uint8)
        y = self.concept.predict(X) ^ (u[:, self.d] < self.noise)
        return Sample(X, y.astype(np.uint8), concept_class=self.concept_class)

    def _holdout_sample(self) -> tuple[npt.NDArray, npt.NDArray]:
        if "X" not in self._holdout:
            rng = np.random.default_rng(self.holdout_seed)
            X = (rng.random((HOLDOUT_SIZE, self.d)) < self.p).astype(np.uint8)
            self._holdout["X"], self._holdout["f"] = X, self.concept.predict(X)
        return self._holdout["X"], self._holdout["f"]

    def disagreement(self, h) -> float:
        """``P[h(x) ≠ f(x)]`` estimated on the noiseless held-out sample."""
        X, f = self._holdout_sample()
        return float(np.mean(np.asarray(h.predict(X)) != f))

    def population_error(self, h) -> float:
        """``P[h(x) ≠ y] = η + (1 − 2η)·P[h ≠ f]`` (disagreement on the held-out sample)."""
        return self.noise + (1 - 2 * self.noise) * self.disagreement(h)
