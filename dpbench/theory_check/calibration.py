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
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from dpbench.foundation import registry
from dpbench.theory_check.verdict import DECISIVE

__all__ = ["CALIBRATION_RTOL", "calibration_mismatch", "mark_calibration", "prescribed_along_epsilon"]

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


def prescribed_along_epsilon(curve, value: Callable[[Any], float], recorded: str,
                             certified: Callable[[Any, float], bool] | None = None):
    """``(at(ε), mismatch)`` of a curve against ε: ``value(learner)`` of the learner the curve's
    row describes (its registry class, its ``lp_*`` parameters, the row's δ) built at each of the
    curve's ε — the calibration the rule prescribes, recomputed from ε — log-log interpolated
    between them (a bound's local exponent is read on a finer grid than the calibrations are
    worth computing on), and, per ε whose rows recorded another value in column ``recorded``
    (missing: every ε counts as off), the ratio (:func:`calibration_mismatch`).

    ``certified(learner, v)``: a check, cheaper than the rule's search and independent of
    its path, that ``v`` is the calibration the rule prescribes at the learner's ε (e.g. the
    accountant's ε at the recorded noise meets the target and at 0.1 % less noise does not).
    Where every run at an ε recorded one value and it is certified, that value is the
    prescribed one; elsewhere (no record, several, or not certified) ``value`` recomputes it."""
    r, rows = curve.row, curve.rows
    params = {k[3:]: v for k, v in r.items()
              if k.startswith("lp_") and v is not None and not (isinstance(v, float) and np.isnan(v))}
    cls = registry.learner(curve.learner)
    grid = np.unique(rows["epsilon"].to_numpy(dtype=float))
    got = rows[recorded].astype(float) if recorded in rows else pd.Series(np.nan, index=rows.index)

    def prescribed(e: float) -> float:
        learner = cls.from_cell(epsilon=e, delta=float(r["delta"]), params=params)
        seen = np.unique(got[rows["epsilon"].to_numpy(dtype=float) == e].to_numpy())
        if certified is not None and len(seen) == 1 and np.isfinite(seen[0]) and certified(learner, float(seen[0])):
            return float(seen[0])
        return float(value(learner))

    values = np.array([prescribed(float(e)) for e in grid])
    off = calibration_mismatch(rows["epsilon"], got, rows["epsilon"].map(dict(zip(grid, values))))

    def at(eps):
        return np.exp(np.interp(np.log(np.asarray(eps, dtype=float)), np.log(grid), np.log(values)))

    return at, off
