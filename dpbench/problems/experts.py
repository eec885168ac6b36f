"""Problem ``experts``: oblivious loss sequences for prediction with expert advice
([DR14, §11.2]).

``k`` experts, horizon ``T`` (the experiment's size axis), losses in [0, 1]. Every
sequence is **oblivious**: it is fixed by the problem spec, the drawn target and the data
stream before any learner runs, and never looks at the learner's actions. Losses are
stored compactly as ``uint8`` codes (:class:`~dpbench.learners.experts_common.ExpertsLosses`;
loss = code · scale), so T = 10^6, k = 100 is 100 MB.

Kinds
-----
``stochastic``
    iid Bernoulli losses, mean ½ for every expert except the best (drawn index), whose
    mean is ½ − ``gap``.
``coin``
    every expert a fair coin: the Ω(√(T ln k)) lower-bound instance (best-in-hindsight is
    the luckiest coin).
``switching``
    first ⌊T/2⌋ rounds as ``stochastic`` with best expert A; afterwards A's mean becomes
    ½ + gap and another expert B gets ½ − 2·gap (needs gap ≤ ¼). B is the best fixed expert
    in hindsight, but a learner that trusts the first half keeps playing A for a while.
``ftl_trap``
    k = 2, losses (½, 0), (0, 1), (1, 0), (0, 1), … : follow-the-leader always picks the
    expert about to lose and suffers regret ≈ ½ per round (linear).
``realizable``
    the best expert (drawn index) never loses; the others are fair coins.

Sequences are nested across T (a length-T sequence is the prefix of a longer one drawn
from the same stream), except for ``switching``, whose switch point moves with T.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpbench.foundation.registry import register_problem
from dpbench.foundation.validation import check_positive_int, normalise
from dpbench.kernels.pcg64_float32 import bernoulli_fill
from dpbench.problems.base import Problem
from dpbench.problems.losses import ExpertsLosses

KINDS = ("stochastic", "coin", "switching", "ftl_trap", "realizable")

#: Uniforms drawn per numpy call (float32 entries) where the compiled stream does not apply:
#: a buffer that stays in cache. The stream is the same for any chunking (consecutive
#: draws continue it), so sequences are prefix-consistent across T.
CHUNK_ENTRIES = 1 << 16


def bernoulli_codes(T: int, means: np.ndarray, *, rng: np.random.Generator) -> np.ndarray:
    """(T, k) uint8 Bernoulli(means) draws: ``u < mean`` for float32 uniforms ``u`` drawn in
    row order — compiled for PCG64 (:func:`dpbench.kernels.pcg64.bernoulli_fill`, the same numbers
    and final state), else numpy a few rows at a time into one reused buffer."""
    k = len(means)
    out = np.empty((T, k), dtype=np.uint8)
    thresholds = np.asarray(means, dtype=np.float32)
    if bernoulli_fill(out, thresholds, rng):
        return out
    rows = max(1, CHUNK_ENTRIES // k)
    buffer = np.empty((min(rows, T), k), dtype=np.float32)
    for start in range(0, T, rows):
        stop = min(T, start + rows)
        u = buffer[: stop - start]
        rng.random(out=u, dtype=np.float32)
        np.less(u, thresholds, out=out[start:stop], casting="unsafe")
    return out


@dataclass(frozen=True)
class ExpertsTarget:
    """A drawn experts instance: the kind, the best expert and (switching) the second."""

    kind: str
    k: int
    gap: float
    best: int
    second: int

    def to_json(self) -> dict:
        return {"kind": self.kind, "k": self.k, "gap": self.gap, "best": self.best, "second": self.second}

    def columns(self) -> dict[str, object]:
        return {}

    def means(self) -> np.ndarray:
        """Per-expert loss means (first half for ``switching``)."""
        p = np.full(self.k, 0.5)
        if self.kind in ("stochastic", "switching"):
            p[self.best] = 0.5 - self.gap
        elif self.kind == "realizable":
            p[self.best] = 0.0
        return p

    def losses(self, T: int, *, rng: np.random.Generator) -> ExpertsLosses:
        """The oblivious length-T loss sequence (from the ``data`` stream ``rng``)."""
        T = check_positive_int(T, name="T")
        if self.kind == "ftl_trap":
            codes = np.zeros((T, 2), dtype=np.uint8)
            codes[0] = (1, 0)  # (½, 0) with scale ½
            codes[1::2] = (0, 2)  # odd rounds
            codes[2::2] = (2, 0)  # even rounds
            return ExpertsLosses(codes, 0.5)
        if self.kind == "switching":
            half = T // 2
            late = np.full(self.k, 0.5)
            late[self.best] = 0.5 + self.gap
            late[self.second] = 0.5 - 2 * self.gap
            first = bernoulli_codes(half, self.means(), rng=rng)
            second = bernoulli_codes(T - half, late, rng=rng)
            return ExpertsLosses(np.concatenate([first, second]), 1.0)
        return ExpertsLosses(bernoulli_codes(T, self.means(), rng=rng), 1.0)


@register_problem(name="experts", family="experts")
@dataclass(frozen=True, kw_only=True)
class ExpertsProblem(Problem):
    """Parameters: ``kind`` (one of :data:`KINDS`), ``k`` experts, ``gap`` (advantage of the
    best expert; ``stochastic`` and ``switching``)."""

    kind: str = "stochastic"
    k: int = 10
    gap: float = 0.1

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {list(KINDS)}, got {self.kind!r}")
        check_positive_int(self.k, name="k")
        if self.k < 2:
            raise ValueError(f"k must be >= 2, got {self.k!r}")
        if self.kind == "ftl_trap" and self.k != 2:
            raise ValueError(f"k must be 2 for kind 'ftl_trap', got {self.k!r}")
        limit = 0.25 if self.kind == "switching" else 0.5
        if isinstance(self.gap, bool) or not isinstance(self.gap, (int, float)) or not 0 <= self.gap <= limit:
            raise ValueError(f"gap must be in [0, {limit}] for kind {self.kind!r}, got {self.gap!r}")
        normalise(self, gap=float(self.gap))

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"kind": "stochastic", "k": 5, "gap": 0.1}
        yield {"kind": "ftl_trap", "k": 2}
        yield {"kind": "realizable", "k": 8}
        yield {"kind": "switching", "k": 4, "gap": 0.1}
        yield {"kind": "coin", "k": 3}

    def draw_target(self, *, rng: np.random.Generator) -> ExpertsTarget:
        best, second = (int(i) for i in rng.choice(self.k, size=2, replace=False))
        return ExpertsTarget(kind=self.kind, k=self.k, gap=self.gap, best=best, second=second)

    @classmethod
    def target_from_json(cls, data: dict[str, Any]) -> ExpertsTarget:
        return ExpertsTarget(kind=data["kind"], k=int(data["k"]), gap=float(data["gap"]), best=int(data["best"]), second=int(data["second"]))
