"""Large-margin halfspaces, online and batch ([Lit88]; [BF26, §4]).

Target: ``u ∈ R^d`` with ``‖u‖₁ = 1`` supported on ``s`` random coordinates with equal
magnitudes ``1/s``; nonnegative when ``monotone`` (the setting of Winnow), otherwise with
random signs. Inputs: ``x`` uniform on ``{−1,+1}^d`` (``domain='boolean'``) or on
``[−1,1]^d`` (``domain='cube'``); label ``y = sign⟨u,x⟩`` (a fair coin where it is 0).
The margin ``y⟨u,x⟩ ≥ ρ`` is guaranteed by construction: while an example's margin is
below ρ, its target coordinates (in a random order) are set to the label's side,
``x_i ← y·sign(u_i)``; each such step raises the margin by ``|u_i|(1 + |x_i|)`` and
when every target coordinate agrees the margin is ``‖u‖₁ = 1 ≥ ρ``.

Signed targets are learned over ``N = 2d`` features by the transform of [BF26, §4.3],
``x ↦ (x, −x)``, ``u ↦ (u⁺, u⁻) ≥ 0``, which keeps ``‖u‖₁ = 1`` and the margin; the
learners always see the ``N`` learner features (``n_features`` column).

Streams (``order``): ``random`` — iid examples in the order drawn; ``adversarial`` — an
*oblivious* adversary fixed before the learner runs: within each block of
:func:`block_rows` examples, the examples nearest the margin come first (a stable sort
by ``y⟨u,x⟩``). Blocks keep the memory bounded at T = 10^8; for T at most one block
the whole stream is sorted. Streams are nested across T (a length-m stream is the prefix
of a length-T one with the same seed) and re-iterable.

The batch view ``sample(n, *, rng)`` returns the iid examples as a
:class:`~dpbench.problems.base.Sample` with ``X ∈ [−1,1]^d`` (float, original ``d``
coordinates) and ``y ∈ {0,1}`` (1 ⇔ label +1), for batch learners; its population error
is measured on a held-out sample of :data:`HOLDOUT_SIZE` examples.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from dpbench.foundation.registry import register_problem
from dpbench.foundation.validation import check_positive_int, check_probability, normalise
from dpbench.kernels.block_kernels import signs_from_bytes, single_coordinate_labels
from dpbench.kernels.pcg64 import skip_coin_flips
from dpbench.problems.base import Problem, Sample

HOLDOUT_SIZE = 50_000
#: Rows × features generated per block of a stream (bounds memory; see ``order``).
BLOCK_CELLS = 2**20
ORDERS = ("random", "adversarial")
DOMAINS = ("boolean", "cube")


def block_rows(n_features: int) -> int:
    """Examples per stream block: ``max(1024, BLOCK_CELLS // n_features)``."""
    return max(1024, BLOCK_CELLS // max(1, n_features))


def log_checkpoints(T: int, per_decade: int = 8) -> npt.NDArray[np.int64]:
    """Log-spaced checkpoints ``1 ≤ t ≤ T`` (``per_decade`` per factor 10), always ending at T."""
    grid = np.unique(np.round(np.logspace(0, np.log10(T), max(2, int(per_decade * np.log10(max(T, 10))) + 1))).astype(np.int64))
    grid = grid[(grid >= 1) & (grid <= T)]
    return np.unique(np.append(grid, T)).astype(np.int64)


@dataclass
class OnlineStream:
    """A re-iterable, lazily generated stream of ``T`` labelled examples.

    ``blocks()`` yields ``(X, y)`` with ``X`` of shape ``(b, n_features)`` (int8 for
    {−1,+1} features, float64 otherwise) and ``y ∈ {−1,+1}`` (int8), each pass from a copy
    of the stored generator, so every pass sees the same examples. ``rho`` is the
    guaranteed margin (public information the learners may use); ``checkpoints`` the
    rounds ``t`` at which learners report cumulative mistakes.

    A stream made by :meth:`stored` holds its blocks (read-only arrays, generated once) in
    ``stored_blocks`` and the wall seconds their generation took in ``generation_seconds``;
    ``blocks()`` then yields the same arrays on every pass.
    """

    T: int
    n_features: int
    rho: float
    make_block: Callable[[int, np.random.Generator], tuple[npt.NDArray, npt.NDArray]]
    rng: np.random.Generator
    checkpoints: npt.NDArray[np.int64] = None  # type: ignore[assignment]
    block_size: int = 0
    stored_blocks: tuple | None = None
    generation_seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.checkpoints is None:
            self.checkpoints = log_checkpoints(self.T)
        if not self.block_size:
            self.block_size = block_rows(self.n_features)

    def blocks(self) -> Iterator[tuple[npt.NDArray, npt.NDArray]]:
        if self.stored_blocks is not None:
            yield from self.stored_blocks
            return
        rng = copy.deepcopy(self.rng)
        done = 0
        while done < self.T:
            X, y = self.make_block(self.block_size, rng)
            take = min(self.block_size, self.T - done)
            yield X[:take], y[:take]
            done += take

    def stored(self, max_bytes: float) -> OnlineStream | None:
        """This stream with every block generated now and kept (the same examples as
        :meth:`blocks` yields, as read-only arrays), or None if its blocks would take more
        than ``max_bytes`` (judged from the first block's bytes per row × T)."""
        start = time.perf_counter()
        parts = []
        for X, y in self.blocks():
            if not parts and (X.nbytes + y.nbytes) / max(1, len(y)) * self.T > max_bytes:
                return None
            X.setflags(write=False)
            y.setflags(write=False)
            parts.append((X, y))
        return dataclasses.replace(self, stored_blocks=tuple(parts), generation_seconds=time.perf_counter() - start)

    def materialise(self) -> tuple[npt.NDArray, npt.NDArray]:
        """The whole stream as two arrays (small T only: tests and audits)."""
        parts = list(self.blocks())
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def enforce_margin(X: npt.NDArray[np.float64], y: npt.NDArray, u: npt.NDArray[np.float64], rho: float, rng: np.random.Generator) -> None:
    """Raise every row's margin ``y⟨u,x⟩`` to ≥ ρ in place by setting target coordinates
    (in a random order per row) to the label's side, ``x_i ← y·sign(u_i)``."""
    support = np.flatnonzero(u)
    signs = np.sign(u[support])
    margin = y * (X @ u)
    low = np.flatnonzero(margin < rho - 1e-12)
    if len(low) == 0:
        return
    order = np.argsort(rng.random((len(low), len(support))), axis=1)
    for j in range(len(support)):
        still = margin[low] < rho - 1e-12
        if not still.any():
            break
        rows = low[still]
        cols = support[order[still, j]]
        new = y[rows] * signs[order[still, j]]
        margin[rows] += np.abs(u[cols]) * (new - X[rows, cols]) * y[rows] * signs[order[still, j]]
        X[rows, cols] = new


@dataclass(frozen=True)
class LinearHypothesis:
    """``h(x) = 1[⟨w, x⟩ > 0]`` on the original ``d`` coordinates (batch view)."""

    w: npt.NDArray[np.float64]

    def predict(self, X: npt.NDArray) -> npt.NDArray[np.uint8]:
        return (np.asarray(X, dtype=np.float64) @ self.w > 0).astype(np.uint8)


#: examples per draw of a batch sample (:meth:`MarginTarget.sample`)
SAMPLE_BLOCK = 4096


class MarginTarget:
    """Shared by the targets whose learners see margin-ρ halfspace features (``halfspace``,
    ``dl_as_halfspace``): the online stream over blocks of :meth:`_block` and the batch
    sample over blocks of :meth:`_draw`. A subclass provides ``n_features``, ``rho``,
    ``_block(b, rng) -> (features, labels)`` and ``_draw(b, rng) -> (X, y)``, ``y ∈ {−1, +1}``;
    :attr:`sample_dtype` is the dtype of a sample's ``X``."""

    sample_dtype: ClassVar[type] = np.float64

    def stream(self, T: int, *, rng: np.random.Generator, checkpoints: npt.ArrayLike | None = None) -> OnlineStream:
        """A length-``T`` stream over the learner features (see the module docstring)."""
        cps = None if checkpoints is None else np.asarray(checkpoints, dtype=np.int64)
        return OnlineStream(T=int(T), n_features=self.n_features, rho=self.rho, make_block=self._block, rng=rng, checkpoints=cps)

    def sample(self, n: int, *, rng: np.random.Generator) -> Sample:
        """``n`` iid examples: ``X`` of :attr:`sample_dtype`, ``y ∈ {0,1}`` (1 ⇔ +1).

        Generated in blocks of :data:`SAMPLE_BLOCK` examples, so a size-m sample is the prefix
        of a size-n one drawn with the same seed."""
        Xs, ys, done = [], [], 0
        while done < n:
            X, y = self._draw(SAMPLE_BLOCK, rng)
            Xs.append(X)
            ys.append(y)
            done += SAMPLE_BLOCK
        X, y = np.concatenate(Xs)[:n], np.concatenate(ys)[:n]
        return Sample(X=X.astype(self.sample_dtype), y=(y > 0).astype(np.uint8))


@dataclass(frozen=True)
class HalfspaceTarget(MarginTarget):
    """A drawn halfspace ``u`` with its input distribution and stream order."""

    u: npt.NDArray[np.float64]
    rho: float
    order: str
    domain: str
    monotone: bool
    seed: int  # hold-out seed (drawn from the target stream)
    _holdout: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def d(self) -> int:
        return len(self.u)

    @property
    def n_features(self) -> int:
        """N: learner features (d, or 2d for signed targets)."""
        return self.d if self.monotone else 2 * self.d

    def u_features(self) -> npt.NDArray[np.float64]:
        """The nonnegative target over the learner features, ``(u⁺, u⁻)`` if signed."""
        if self.monotone:
            return self.u.copy()
        return np.concatenate([np.maximum(self.u, 0), np.maximum(-self.u, 0)])

    def to_json(self) -> dict:
        return {"u": self.u.tolist(), "rho": self.rho, "order": self.order, "domain": self.domain, "monotone": self.monotone, "seed": self.seed}

    def columns(self) -> dict[str, object]:
        return {"n_features": self.n_features}

    # -------------------------------------------------------------- examples
    def _single_boolean(self) -> bool:
        """A one-coordinate target on Boolean inputs: every example's margin is exactly
        ``|u_j| = 1 ≥ ρ`` (nothing to enforce, no tie to break: :meth:`_draw`'s fast path)."""
        return self.domain == "boolean" and np.count_nonzero(self.u) == 1

    def _draw(self, n: int, rng: np.random.Generator) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int8]]:
        if self.domain == "boolean":  # 8 fair bits per random byte
            X = signs_from_bytes(rng.integers(0, 256, size=(n, (self.d + 7) // 8), dtype=np.uint8), self.d)
        else:
            X = rng.uniform(-1.0, 1.0, size=(n, self.d))
        support = np.flatnonzero(self.u)
        if self._single_boolean():  # y = sign(u_j x_j) exactly, never a tie: the coins below are drawn
            skip_coin_flips(rng, n)  # only to keep the generator in step (not made: same state after)
            return X, single_coordinate_labels(X, int(support[0]), int(np.sign(self.u[support[0]])))
        Xs = X[:, support].astype(np.float64)  # only the target's coordinates matter
        us = self.u[support]
        score = Xs @ us
        coin = 2 * rng.integers(0, 2, size=n) - 1
        y = np.where(score > 0, 1, np.where(score < 0, -1, coin)).astype(np.int8)
        enforce_margin(Xs, y.astype(np.float64), us, self.rho, rng)
        X[:, support] = Xs
        return X, y

    def _features(self, X: npt.NDArray[np.float64]) -> npt.NDArray:
        F = X if self.monotone else np.concatenate([X, -X], axis=1)
        return np.ascontiguousarray(F)

    def _block(self, b: int, rng: np.random.Generator) -> tuple[npt.NDArray, npt.NDArray]:
        X, y = self._draw(b, rng)
        if self.order == "adversarial" and not self._single_boolean():  # else every margin is 1: the stable sort is the identity
            support = np.flatnonzero(self.u)
            idx = np.argsort(y * (X[:, support] @ self.u[support]), kind="stable")
            X, y = X[idx], y[idx]
        return self._features(X), y

    def population_error(self, hypothesis: Any) -> float:
        """Error on a held-out sample of HOLDOUT_SIZE drawn once from the target's seed."""
        if "sample" not in self._holdout:
            self._holdout["sample"] = self.sample(HOLDOUT_SIZE, rng=np.random.default_rng(self.seed))
        holdout = self._holdout["sample"]
        return float(np.mean(hypothesis.predict(holdout.X) != holdout.y))


@register_problem(name="halfspace", family="online")
@dataclass(frozen=True, kw_only=True)
class Halfspace(Problem):
    """Problem ``halfspace``: margin-ρ halfspace streams (see the module docstring).

    Parameters
    ----------
    d : input dimension (≥ 1).
    s : target sparsity, ``1 ≤ s ≤ d`` (0 means ``s = d``).
    rho : guaranteed margin, in (0, 1].
    order : ``random`` or ``adversarial`` (oblivious; nearest-the-margin first).
    domain : ``boolean`` ({−1,+1}^d) or ``cube`` ([−1,1]^d).
    monotone : nonnegative target (Winnow's setting); ``False`` draws signed weights and
        the learners see ``N = 2d`` features.
    """

    d: int = 20
    s: int = 0
    rho: float = 0.2
    order: str = "random"
    domain: str = "boolean"
    monotone: bool = True

    def __post_init__(self) -> None:
        normalise(self, d=check_positive_int(self.d, name="d"))
        if isinstance(self.s, bool) or not isinstance(self.s, (int, np.integer)) or not 0 <= self.s <= self.d:
            raise ValueError(f"s must be an integer in [0, d={self.d}], got {self.s!r}")
        normalise(self, s=int(self.s))
        rho = check_probability(self.rho, name="rho")
        if rho <= 0:
            raise ValueError(f"rho must be in (0, 1], got {self.rho!r}")
        normalise(self, rho=rho)
        if self.order not in ORDERS:
            raise ValueError(f"order must be one of {list(ORDERS)}, got {self.order!r}")
        if self.domain not in DOMAINS:
            raise ValueError(f"domain must be one of {list(DOMAINS)}, got {self.domain!r}")
        if self.order == "adversarial" and self.domain == "boolean" and (self.s or self.d) == 1:
            # every example's margin is |u_j x_j| = 1: nearest-the-margin-first is no order at
            # all, so such a stream has the random order's law (a grid would repeat its cells)
            raise ValueError("order='adversarial' is the random order for a one-coordinate target on boolean inputs "
                             "(every margin is 1): use order='random'")
        if not isinstance(self.monotone, (bool, np.bool_)):
            raise TypeError(f"monotone must be a bool, got {self.monotone!r}")

    @classmethod
    def test_params(cls) -> Iterator[Mapping[str, object]]:
        yield {"d": 8, "s": 3, "rho": 0.3}
        yield {"d": 6, "s": 2, "rho": 0.5, "order": "adversarial", "domain": "cube", "monotone": False}

    def draw_target(self, *, rng: np.random.Generator) -> HalfspaceTarget:
        s = self.s or self.d
        u = np.zeros(self.d)
        support = rng.choice(self.d, size=s, replace=False)
        signs = np.ones(s) if self.monotone else rng.choice([-1.0, 1.0], size=s)
        u[support] = signs / s
        return HalfspaceTarget(u=u, rho=self.rho, order=self.order, domain=self.domain, monotone=bool(self.monotone), seed=int(rng.integers(2**62)))

    @classmethod
    def target_from_json(cls, data: Mapping[str, Any]) -> HalfspaceTarget:
        return HalfspaceTarget(
            u=np.asarray(data["u"], dtype=np.float64), rho=float(data["rho"]), order=str(data["order"]),
            domain=str(data["domain"]), monotone=bool(data["monotone"]), seed=int(data["seed"]),
        )
