"""Statistics shared by theory checks and figures: confidence intervals, log–log slopes,
empirical sample complexity, bound checks.

The theory-check CSV of every experiment has the columns of :data:`THEORY_COLUMNS`:
per learner and regime, the fitted log–log slope of the empirical curve with its 95% CI
next to the theoretical exponent, and how many cells' empirical (1−β)-quantile exceeds the
theoretical bound (``bound_kind='bound'``; ``'shape'`` rates with unit constants are not
counted as violations).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

THEORY_COLUMNS = [
    "experiment",
    "learner",
    "regime",
    "x",
    "y",
    "fitted_slope",
    "slope_ci_low",
    "slope_ci_high",
    "theory_exponent",
    "n_points",
    "bound_kind",
    "cells",
    "cells_above_bound",
    "share_above_bound",
]


def clopper_pearson(successes: npt.ArrayLike, trials: npt.ArrayLike, confidence: float = 0.95) -> tuple[npt.NDArray, npt.NDArray]:
    """Exact two-sided binomial confidence interval for a success probability."""
    from scipy import stats  # deferred: ~0.7 s to import, not needed by shard jobs

    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    a = (1 - confidence) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(k > 0, stats.beta.ppf(a, k, n - k + 1), 0.0)
        hi = np.where(k < n, stats.beta.ppf(1 - a, k + 1, n - k), 1.0)
    return lo, hi


def loglog_slope(x: npt.ArrayLike, y: npt.ArrayLike, confidence: float = 0.95) -> tuple[float, float, float, int]:
    """OLS slope of log y on log x with a t-interval: ``(slope, low, high, n_points)``.

    Points with non-positive or non-finite values are dropped; fewer than 3 points give NaNs.
    """
    from scipy import stats  # deferred: ~0.7 s to import, not needed by shard jobs

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    keep = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    lx, ly = np.log(x[keep]), np.log(y[keep])
    m = len(lx)
    if m < 3 or np.ptp(lx) == 0:
        return math.nan, math.nan, math.nan, m
    fit = stats.linregress(lx, ly)
    half = stats.t.ppf((1 + confidence) / 2, m - 2) * fit.stderr
    return float(fit.slope), float(fit.slope - half), float(fit.slope + half), m


def local_exponent(x: npt.ArrayLike, curve: npt.ArrayLike) -> float:
    """Log–log slope of a theoretical curve between the first and last of the points ``x``
    (the exponent the theory predicts over the range an empirical slope was fitted on)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(curve, dtype=float)
    keep = (x > 0) & (y > 0) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if len(x) < 2 or x.max() == x.min():
        return math.nan
    i, j = np.argmin(x), np.argmax(x)
    return float(np.log(y[j] / y[i]) / np.log(x[j] / x[i]))


def learning_regime(x: npt.ArrayLike, y: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Points on the decaying part of a learning curve: positive and at most half of the
    curve's largest value (drops the flat start before learning begins and exact zeros)."""
    y = np.asarray(y, dtype=float)
    return (y > 0) & (y <= 0.5 * np.nanmax(y))


def mean_ci(values: pd.Series, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean and t-interval of the mean."""
    from scipy import stats  # deferred: ~0.7 s to import, not needed by shard jobs

    v = values.dropna().to_numpy(dtype=float)
    if len(v) == 0:
        return math.nan, math.nan, math.nan
    mean = float(v.mean())
    if len(v) < 2:
        return mean, mean, mean
    half = stats.t.ppf((1 + confidence) / 2, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
    return mean, mean - half, mean + half


def summarise(df: pd.DataFrame, by: Sequence[str], metric: str = "error") -> pd.DataFrame:
    """Per group: mean, CI of the mean, and repetitions of ``metric`` (status ok only)."""
    ok = df[df["status"] == "ok"]
    rows = []
    for key, group in ok.groupby(list(by), dropna=False, sort=True):
        mean, lo, hi = mean_ci(group[metric])
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,))), "mean": mean, "lo": lo, "hi": hi, "reps": len(group)})
    return pd.DataFrame(rows)


def sample_complexity(df: pd.DataFrame, by: Sequence[str], alpha: float, beta: float, size: str = "n") -> pd.DataFrame:
    """Empirical ``n*(α)``: smallest size on the grid at which at least ``1−β`` of the
    repetitions reach error ≤ α. ``n_low``/``n_high`` come from the Clopper–Pearson
    interval of the success share (smallest size whose upper / lower bound is ≥ 1−β);
    NaN where the grid never gets there."""
    ok = df[df["status"] == "ok"]
    rows = []
    for key, group in ok.groupby(list(by), dropna=False, sort=True):
        per_size = group.groupby(size)["error"].agg(successes=lambda e: int((e <= alpha).sum()), trials="count").sort_index()
        lo, hi = clopper_pearson(per_size["successes"], per_size["trials"])
        share = per_size["successes"] / per_size["trials"]
        sizes = per_size.index.to_numpy()

        def first(mask) -> float:
            hit = np.flatnonzero(np.asarray(mask))
            return float(sizes[hit[0]]) if len(hit) else math.nan

        rows.append(
            {
                **dict(zip(by, key if isinstance(key, tuple) else (key,))),
                "n_star": first(share >= 1 - beta),
                "n_low": first(hi >= 1 - beta),
                "n_high": first(lo >= 1 - beta),
            }
        )
    return pd.DataFrame(rows)


def bound_violations(df: pd.DataFrame, by: Sequence[str], bound: Callable[[pd.Series], float], beta: float, metric: str = "error") -> tuple[int, int]:
    """``(cells, cells whose empirical (1−β)-quantile of metric exceeds bound(first row))``;
    cells where ``bound`` returns NaN are not counted."""
    ok = df[df["status"] == "ok"]
    cells = above = 0
    for _, group in ok.groupby(list(by), dropna=False):
        b = bound(group.iloc[0])
        if b is None or not np.isfinite(b):
            continue
        cells += 1
        above += int(group[metric].quantile(1 - beta) > b)
    return cells, above


def theory_row(**values: object) -> dict[str, object]:
    """A theory-check row with every column of :data:`THEORY_COLUMNS` (missing → NaN/None)."""
    extra = set(values) - set(THEORY_COLUMNS)
    if extra:
        raise KeyError(f"not theory-check columns: {sorted(extra)}")
    row = dict.fromkeys(THEORY_COLUMNS)
    row.update(values)
    cells, above = row.get("cells"), row.get("cells_above_bound")
    if cells and above is not None:
        row["share_above_bound"] = above / cells
    return row
