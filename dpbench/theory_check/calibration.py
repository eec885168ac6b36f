"""A bound that is the theorem's function of ε, and the runs' calibration beside it.

A row against ε judges the theorem's ε-dependence only if its bound is computed from ε — at the
calibration the theorem prescribes for that ε (a learning rate, a noise scale, a firing cap) —
and not read back from what a run recorded: a calibration error would move a read-back bound
and the data together. The prescribed calibration is recomputed on the evaluation side; where a
run recorded another one, the bound is not that run's, and :func:`mark_calibration` says so: a
decisive verdict other than ``violated`` becomes ``inconclusive``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from dpbench.theory_check.verdict import DECISIVE

__all__ = ["CALIBRATION_RTOL", "calibration_mismatch", "mark_calibration"]

#: Relative tolerance between a recorded and a prescribed calibration value (both are computed
#: by the same arithmetic when the run is correct: they agree to the last bits).
CALIBRATION_RTOL = 1e-9


def calibration_mismatch(eps: Iterable[float], recorded: Iterable[float],
                         prescribed: Iterable[float]) -> dict[float, float]:
    """Per ε whose runs recorded another value than the prescribed one (relative difference
    > :data:`CALIBRATION_RTOL`; a missing record counts): the recorded/prescribed ratio farthest
    from 1."""
    eps = np.asarray(list(eps), dtype=float)
    ratio = np.asarray(list(recorded), dtype=float) / np.asarray(list(prescribed), dtype=float)
    far = ~(np.abs(ratio - 1) <= CALIBRATION_RTOL)
    out: dict[float, float] = {}
    for e, r in zip(eps[far], ratio[far]):
        if e not in out or not abs(math.log(r)) <= abs(math.log(out[e])):
            out[float(e)] = float(r)
    return out


def mark_calibration(row: dict, off: dict[float, float], *, prescribed: str, count: int) -> dict:
    """``row`` with its note saying whether every run recorded the ``prescribed`` calibration
    (words, e.g. "η(ε) = …") at its ``count`` values of ε, and, where some did not (``off``:
    :func:`calibration_mismatch`), a decisive verdict other than ``violated`` made
    ``inconclusive``: the bound is not those runs'."""
    if off:
        ratios = ", ".join(f"ε = {e:g}: ×{r:.3g}" for e, r in sorted(off.items()))
        row["note"] += (f"; the recorded calibration is not the prescribed {prescribed} at {len(off)} of {count} ε "
                        f"({ratios}): the bound is not this run's")
        if row["verdict"] in DECISIVE and row["verdict"] != "violated":
            row["verdict"] = "inconclusive"
    else:
        row["note"] += f"; every run recorded the prescribed {prescribed} (at all {count} ε)"
    return row
