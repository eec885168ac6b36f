"""Bit-packed Boolean columns: 64 examples per ``uint64`` word.

Evaluating a whole finite class on a sample reduces to AND and popcount over packed
columns (``np.bitwise_count``, numpy ≥ 2.0). Padding bits beyond ``n`` are 0 in every
packed column produced by :func:`pack_columns`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def pack_columns(columns: npt.ArrayLike) -> npt.NDArray[np.uint64]:
    """Pack a Boolean ``(n, m)`` array column-wise into ``(m, ceil(n/64))`` uint64 words."""
    cols = np.asarray(columns, dtype=bool)
    if cols.ndim == 1:
        cols = cols[:, None]
    n, m = cols.shape
    n_words = max(1, -(-n // 64))
    padded = np.zeros((n_words * 64, m), dtype=bool)
    padded[:n] = cols
    packed = np.packbits(padded, axis=0, bitorder="little")  # (n_words*8, m) uint8
    return np.ascontiguousarray(packed.T).view(np.uint64).reshape(m, n_words)


def popcount_rows(words: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
    """Number of set bits in each row of a packed array (last axis summed)."""
    return np.bitwise_count(words).sum(axis=-1, dtype=np.int64)
