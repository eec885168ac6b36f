"""Oblivious loss sequences, the data of the experts and linear-loss problems ([DR14, §11.2]).

Losses are stored as small integer codes (``uint8``; a loss is ``code · scale``) so that
cumulative losses are exact integers; the learners' Hedge kernel
(:mod:`dpbench.learners.experts_common`) relies on this.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class ExpertsLosses:
    """An oblivious loss sequence: ``codes`` (T, k) uint8, loss = ``codes * scale`` ∈ [0, 1]."""

    codes: npt.NDArray[np.uint8]
    scale: float = 1.0

    def __post_init__(self) -> None:
        if self.codes.dtype != np.uint8 or self.codes.ndim != 2:
            raise ValueError(f"codes must be a 2-d uint8 array, got {self.codes.dtype} {self.codes.shape}")
        if not 0 < self.scale <= 1:
            raise ValueError(f"scale must be in (0, 1], got {self.scale!r}")

    @property
    def T(self) -> int:
        return int(self.codes.shape[0])

    @property
    def k(self) -> int:
        return int(self.codes.shape[1])

    @cached_property
    def top(self) -> int:
        """The largest code (0 if T = 0): one pass over the codes, once per sequence (the
        learners' range check and weight table both need it)."""
        return int(self.codes.max()) if self.codes.size else 0

    def losses(self) -> npt.NDArray[np.float64]:
        """Dense float losses (tests and small T only)."""
        return self.codes.astype(np.float64) * self.scale

    def prefix(self, T: int) -> "ExpertsLosses":
        return ExpertsLosses(self.codes[:T], self.scale)
