"""Conjunctions under a product distribution ([Val84]; [KLNRS11]).

Target: a conjunction of ``k`` literals over ``d`` Boolean variables. Inputs: independent
coordinates, ``P[x_i = 1] = p_i``; each target literal is negated with probability ½
(unless ``monotone``). The target's coordinates have ``p_i = p``. With ``skew = 0`` so do
all others; with ``skew > 0`` the irrelevant coordinates get ``P[x_i = 0]`` log-spaced from
½ down to ``½·10^{-skew}`` (in a random order): rare zeros make irrelevant literals hard to
eliminate, so the error decays like a power law in n over the range of ``1/P[x_i = 0]`` —
the regime the ``1/n`` bounds describe — instead of dropping to 0 after a handful of
positive examples. Labels: ``y = f(x)`` flipped with probability ``noise`` (agnostic
when ``noise > 0``). Population error of a conjunction hypothesis is exact:

.. math:: P[h \\ne f] = P[h=1] + P[f=1] - 2P[h=1, f=1],\\qquad
          P[h \\ne y] = \\eta + (1 - 2\\eta)\\,P[h \\ne f],

each probability a product of ``p`` / ``1-p`` over the literals involved. Any other
hypothesis (e.g. a decision tree) is scored on a held-out sample of
:data:`HOLDOUT_SIZE` examples drawn from the target's own seed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import numpy.typing as npt

from dpbench.foundation.registry import register_problem
from dpbench.foundation.validation import check_positive_int, check_probability, normalise
from dpbench.problems.base import Problem, Sample

HOLDOUT_SIZE = 50_000


@dataclass(frozen=True)
class Conjunction:
    """``h(x) = ∧_{i∈pos} x_i ∧ ∧_{i∈neg} ¬x_i`` (the empty conjunction is constant 1)."""

    pos: npt.NDArray[np.bool_]
    neg: npt.NDArray[np.bool_]

    def predict(self, X: npt.NDArray) -> npt.NDArray[np.uint8]:
        X = np.asarray(X, dtype=bool)
        return (X[:, self.pos].all(axis=1) & ~X[:, self.neg].any(axis=1)).astype(np.uint8)

    def literals(self) -> int:
        return int(self.pos.sum() + self.neg.sum())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Conjunction) and np.array_equal(self.pos, other.pos) and np.array_equal(self.neg, other.neg)

    def __hash__(self) -> int:
        return hash((self.pos.tobytes(), self.neg.tobytes()))


@dataclass(frozen=True)
class ConjunctionClass:
    """All conjunctions over ``d`` variables: ``2^d`` monotone or ``3^d`` with negations.

    Hypothesis ``i`` has base-``b`` digits ``c_j`` (``b = 2`` or ``3``, coordinate ``j``
    weighted ``b^j``): ``c_j = 0`` leaves ``x_j`` out, ``1`` adds ``x_j``, ``2`` adds ``¬x_j``.
    """

    d: int
    monotone: bool

    @property
    def base(self) -> int:
        return 2 if self.monotone else 3

    @property
    def size(self) -> int:
        return self.base**self.d

    @property
    def log_size(self) -> float:
        return self.d * math.log(self.base)

    def hypothesis(self, index: int) -> Conjunction:
        digits = np.array([(int(index) // self.base**j) % self.base for j in range(self.d)])
        return Conjunction(pos=digits == 1, neg=digits == 2)

    def mistakes(self, X: npt.NDArray, y: npt.NDArray) -> npt.NDArray[np.int64]:
        """Training mistakes of every hypothesis, in index order (exact integers).

        With ``f(x) = #{i: x_i = x, y_i = 1} − #{i: x_i = x, y_i = 0}``, the signed
        histogram of the sample over ``{0,1}^d``, a conjunction ``h`` makes
        ``#pos(y) − Σ_{x ⊨ h} f(x)`` mistakes (it errs on the positives it rejects and the
        negatives it accepts). The sums over the subcubes ``{x ⊨ h}`` of all ``3^d`` (``2^d``)
        conjunctions are one coordinate-wise transform of ``f`` — the zeta transform of the
        subcube lattice: per coordinate, digit 0 (free) gets ``f(x_j=0) + f(x_j=1)``, digit 1
        (``x_j``) ``f(x_j=1)`` and digit 2 (``¬x_j``) ``f(x_j=0)`` — ``O(n·d + d·3^d)``
        additions in all, whatever n.
        """
        X = np.asarray(X, dtype=bool).reshape(len(y), self.d)
        y = np.asarray(y, dtype=bool)
        codes = X.astype(np.int64) @ (np.int64(1) << np.arange(self.d, dtype=np.int64))  # bit j = x_j
        size = 1 << self.d
        f = np.bincount(codes[y], minlength=size) - np.bincount(codes[~y], minlength=size)
        g = f.reshape((2,) * self.d)  # axis a is coordinate d − 1 − a (C order), as the index's digits
        for axis in range(self.d):
            zero, one = np.take(g, 0, axis=axis), np.take(g, 1, axis=axis)
            g = np.stack([zero + one, one] if self.monotone else [zero + one, one, zero], axis=axis)
        return np.int64(y.sum()) - g.ravel().astype(np.int64)

    def mistakes_dense(self, X: npt.NDArray, y: npt.NDArray, indices: npt.NDArray) -> npt.NDArray[np.int64]:
        """Reference evaluation of the given hypotheses with dense numpy (tests, benchmark)."""
        X = np.asarray(X, dtype=np.float32)
        hyps = [self.hypothesis(i) for i in indices]
        P = np.array([h.pos for h in hyps], dtype=np.float32)
        N = np.array([h.neg for h in hyps], dtype=np.float32)
        violated = (1 - X) @ P.T + X @ N.T  # (n, H): literals each example falsifies
        predictions = violated == 0
        return (predictions != np.asarray(y, dtype=bool)[:, None]).sum(axis=0).astype(np.int64)


@register_problem(name="conjunction", family="batch")
@dataclass(frozen=True, kw_only=True)
class ConjunctionProblem(Problem):
    """Parameters: ``d`` variables, ``k`` target literals, ``monotone``, input bias ``p``,
    ``skew`` of the input biases, label-noise rate ``noise`` (see the module docstring)."""

    d: int = 10
    k: int = 3
    monotone: bool = False
    p: float = 0.5
    skew: float = 0.0
    noise: float = 0.0

    def __post_init__(self) -> None:
        check_positive_int(self.d, name="d")
        if not (isinstance(self.k, int) and 0 <= self.k <= self.d):
            raise ValueError(f"k must be an integer in [0, d={self.d}], got {self.k!r}")
        if not isinstance(self.monotone, bool):
            raise TypeError(f"monotone must be a boolean, got {self.monotone!r}")
        check_probability(self.p, name="p", closed=False)
        if not 0 <= self.noise < 0.5:
            raise ValueError(f"noise must be in [0, 0.5), got {self.noise!r}")
        if not (isinstance(self.skew, (int, float)) and 0 <= self.skew <= 12):
            raise ValueError(f"skew must be in [0, 12], got {self.skew!r}")
        normalise(self, p=float(self.p), skew=float(self.skew), noise=float(self.noise))

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"d": 5, "k": 2, "monotone": True}
        yield {"d": 6, "k": 3, "monotone": False, "noise": 0.1}
        yield {"d": 6, "k": 2, "monotone": False, "skew": 3.0}

    def draw_target(self, *, rng: np.random.Generator) -> "ConjunctionTarget":
        support = rng.choice(self.d, size=self.k, replace=False)
        p = np.full(self.d, self.p)
        others = np.setdiff1d(np.arange(self.d), support)
        if self.skew > 0 and len(others):
            ranks = rng.permutation(len(others)) / max(len(others) - 1, 1)
            p[others] = 1 - 0.5 * 10 ** (-self.skew * ranks)
        negated = np.zeros(self.d, dtype=bool) if self.monotone else rng.random(self.d) < 0.5
        pos = np.zeros(self.d, dtype=bool)
        neg = np.zeros(self.d, dtype=bool)
        pos[support] = ~negated[support]
        neg[support] = negated[support]
        return ConjunctionTarget(
            concept=Conjunction(pos=pos, neg=neg),
            p=p,
            noise=self.noise,
            monotone=self.monotone,
            holdout_seed=int(rng.integers(2**63)),
        )

    @classmethod
    def target_from_json(cls, data: dict) -> "ConjunctionTarget":
        return ConjunctionTarget(
            concept=Conjunction(pos=np.array(data["pos"], dtype=bool), neg=np.array(data["neg"], dtype=bool)),
            p=np.array(data["p"], dtype=float),
            noise=data["noise"],
            monotone=data["monotone"],
            holdout_seed=data["holdout_seed"],
        )


@dataclass(frozen=True)
class ConjunctionTarget:
    """A drawn conjunction with its product input distribution."""

    concept: Conjunction
    p: npt.NDArray[np.float64]  # P[x_i = 1] per coordinate
    noise: float
    monotone: bool
    holdout_seed: int
    _holdout: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def d(self) -> int:
        return len(self.concept.pos)

    @cached_property
    def concept_class(self) -> ConjunctionClass:
        return ConjunctionClass(d=self.d, monotone=self.monotone)

    def to_json(self) -> dict:
        return {
            "pos": self.concept.pos.tolist(),
            "neg": self.concept.neg.tolist(),
            "p": self.p.tolist(),
            "noise": self.noise,
            "monotone": self.monotone,
            "holdout_seed": self.holdout_seed,
        }

    def columns(self) -> dict[str, object]:
        return {"log_class_size": self.concept_class.log_size}

    def sample(self, n: int, *, rng: np.random.Generator) -> Sample:
        """``n`` labelled examples; a sample of size m is the prefix of one of size n > m."""
        u = rng.random((n, self.d + 1))
        X = (u[:, : self.d] < self.p).astype(np.uint8)
        y = self.concept.predict(X) ^ (u[:, self.d] < self.noise)
        return Sample(X, y.astype(np.uint8), concept_class=self.concept_class)

    def _positive_probability(self, pos: npt.NDArray, neg: npt.NDArray) -> float:
        if np.any(pos & neg):
            return 0.0
        return float(np.prod(self.p[pos]) * np.prod(1 - self.p[neg]))

    def disagreement(self, h: Conjunction) -> float:
        """Exact ``P[h(x) ≠ f(x)]`` under the product distribution."""
        f = self.concept
        both = self._positive_probability(h.pos | f.pos, h.neg | f.neg)
        return self._positive_probability(h.pos, h.neg) + self._positive_probability(f.pos, f.neg) - 2 * both

    def population_error(self, h) -> float:
        """``P[h(x) ≠ y]``: exact for conjunctions, else on the held-out sample."""
        if isinstance(h, Conjunction):
            return self.noise + (1 - 2 * self.noise) * self.disagreement(h)
        if "sample" not in self._holdout:
            self._holdout["sample"] = self.sample(HOLDOUT_SIZE, rng=np.random.default_rng(self.holdout_seed))
        holdout = self._holdout["sample"]
        return float(np.mean(h.predict(holdout.X) != holdout.y))
