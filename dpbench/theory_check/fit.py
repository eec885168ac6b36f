"""The statistics under every theory-check row: log–log slopes fitted by OLS on the mean
curve, with a symmetric studentised bootstrap interval over repetitions (resampled as whole
repetitions, since a repetition's points share their samples across x; :func:`studentized_fit`),
percentile-bootstrap intervals of an order statistic (n*) and of a mean, and
Clopper–Pearson intervals of a proportion (C. J. Clopper and E. S. Pearson, "The use of
confidence or fiducial limits illustrated in the case of the binomial", Biometrika 26(4), 1934).

:mod:`dpbench.theory_check.verdict` (the rules), :mod:`dpbench.theory_check.analysis`
(curves, regimes, rows) and :mod:`dpbench.theory_check.nstar` (sample complexities) build on
these functions; this module imports none of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: fewer repetitions than this give no interval (a bootstrap over 2–4 repetitions is not evidence)
MIN_REPS = 5


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


def suffix_exponents(x: npt.ArrayLike, curve: npt.ArrayLike) -> npt.NDArray:
    """``local_exponent(x[i:], curve[i:])`` for every i < len(x) − 1 at once, for increasing
    ``x``: over the points from i on where the curve is positive and finite, the first is the
    smallest x and the last (the same for every i) the largest; NaN where fewer than 2 remain."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(curve, dtype=float)
    kept = np.flatnonzero((x > 0) & (y > 0) & np.isfinite(y))
    if len(kept) < 2:
        return np.full(max(len(x) - 1, 0), np.nan)
    first = kept[np.minimum(np.searchsorted(kept, np.arange(len(x) - 1)), len(kept) - 1)]
    last = kept[-1]
    with np.errstate(all="ignore"):
        e = np.log(y[last] / y[first]) / np.log(x[last] / x[first])
    return np.where(first < last, e, np.nan)


@dataclass(frozen=True)
class SlopeFit:
    """A log–log slope fitted on repetitions: estimate, bootstrap interval over repetitions
    (studentised for slopes of means, percentile for n*), number of x points and the fitted range; ``no_interval`` says why the
    interval is NaN when the slope is not."""

    slope: float
    low: float
    high: float
    n_points: int
    x_min: float
    x_max: float
    no_interval: str = ""
    #: every repetition gave the same values: a deterministic curve, the slope is exact (no
    #: sampling error; low = high = slope) and it counts as one repetition
    exact: bool = False


def per_x_matrix(x: npt.ArrayLike, y: npt.ArrayLike, reps: npt.ArrayLike) -> tuple[npt.NDArray, npt.NDArray]:
    """Sorted distinct x and a (x, repetitions) matrix of the mean y per (x, repetition) (NaN
    where a repetition is missing); x values and repetitions without any finite y are left
    out (what ``pivot_table(aggfunc="mean")`` gives, without its cost)."""
    x, y, reps = np.asarray(x, dtype=float), np.asarray(y, dtype=float), np.asarray(reps)
    seen = ~np.isnan(y)
    xs, i = np.unique(x[seen], return_inverse=True)
    rs, j = np.unique(reps[seen], return_inverse=True)
    total = np.zeros((len(xs), len(rs)))
    count = np.zeros((len(xs), len(rs)))
    np.add.at(total, (i, j), y[seen])
    np.add.at(count, (i, j), 1.0)
    with np.errstate(invalid="ignore"):
        return xs, np.where(count > 0, total / np.maximum(count, 1.0), np.nan)


def masked_ols(lx: npt.NDArray, ly: npt.NDArray, w: npt.NDArray) -> npt.NDArray:
    """Slopes of ly on lx per row (last axis = points) with 0/1 weights ``w``; NaN where
    fewer than 2 distinct weighted points."""
    sw = w.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = (w * lx).sum(-1) / sw
        my = (w * np.where(w > 0, ly, 0.0)).sum(-1) / sw
        dx = lx - mx[..., None]
        sxx = (w * dx**2).sum(-1)
        sxy = (w * dx * np.where(w > 0, ly - my[..., None], 0.0)).sum(-1)
        return np.where(sxx > 0, sxy / sxx, np.nan)


def fit_slope(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    reps: npt.ArrayLike,
    *,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> SlopeFit:
    """Log–log slope of the mean of ``y`` in ``x``, with a bootstrap over repetitions.

    The estimate is the OLS slope of ``log mean_r y(x, r)`` on ``log x``. The interval is the
    symmetric studentised interval (:func:`studentized_fit`) of the same slope over ``n_boot``
    resamples of the repetitions (one
    resample of repetition indices is used at every x: the repetitions of a curve share
    their samples across x, so their values are paired). Points whose mean is ≤ 0 are left
    out of that fit. Fewer than 3 points with positive mean (or fewer than
    :data:`dpbench.theory_check.verdict.MIN_REPS` repetitions for the interval) give NaN. ``seed`` fixes the resampling, so the CSV is reproducible.
    """
    xs, Y = per_x_matrix(x, y, reps)
    keep = xs > 0
    xs, Y = xs[keep], Y[keep]
    Y = Y[:, np.all(np.isfinite(Y), axis=0)]  # repetitions seen at every x (paired)
    mean = Y.mean(axis=1) if Y.size else np.full(len(xs), np.nan)
    pos = np.isfinite(mean) & (mean > 0)
    m = int(pos.sum())
    if m < 3 or np.ptp(np.log(xs[pos])) == 0:
        return SlopeFit(math.nan, math.nan, math.nan, m, *(log_range(xs[pos])))
    lx = np.log(xs[pos])
    slope = float(masked_ols(lx, np.log(mean[pos]), np.ones(m)))
    R = Y.shape[1]
    if R > 1 and identical(Y[pos]):
        return SlopeFit(slope, slope, slope, m, *log_range(xs[pos]), exact=True)
    if R < MIN_REPS:
        return SlopeFit(slope, math.nan, math.nan, m, *log_range(xs[pos]), no_interval=f"{R} repetition(s) seen at every x; an interval needs ≥ {MIN_REPS}")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, R, size=(n_boot, R))
    Yb = Y[pos][:, idx]  # (m, n_boot, R)
    boot_mean = Yb.mean(axis=2).T  # (n_boot, m)
    w = (boot_mean > 0).astype(float)
    with np.errstate(divide="ignore"):
        slopes = masked_ols(lx[None, :], np.log(np.where(w > 0, boot_mean, 1.0)), w)
    se = float(slope_se(lx, Y[pos], np.ones(m)))
    ses = slope_se(lx, np.moveaxis(Yb, 1, 0), w, ybar=boot_mean)
    return studentized_fit(slope, se, slopes, ses, w, n_boot, confidence, m, xs[pos])


def identical(Y: npt.NDArray) -> bool:
    """Do all repetitions (columns of ``Y``) give the same values?"""
    return bool(Y.size) and bool(np.all(Y == Y[:, :1]))


def slope_se(lx: npt.NDArray, Y: npt.NDArray, w: npt.NDArray, ybar: npt.NDArray | None = None) -> npt.NDArray:
    r"""Delta-method standard error of the OLS slope of ``log mean_r Y`` on ``lx`` over the
    points of weight ``w`` (0/1), per leading index: ``Y`` is (…, m points, R repetitions),
    ``w`` (…, m).

    The slope is :math:`\hat s = \sum_j c_j \ln \bar y_j` with
    :math:`c_j = w_j (\ell_j - \bar\ell_w) / \sum_k w_k (\ell_k - \bar\ell_w)^2` and
    :math:`\bar y_j = \frac1R \sum_r y_{jr}`. Its derivative in repetition r's values gives
    the influence :math:`z_r = \sum_j c_j y_{jr} / \bar y_j` (the repetitions are paired
    across the points, so one z per repetition carries their covariance), and
    :math:`\widehat{\mathrm{se}}^2 = \widehat{\mathrm{Var}}_r(z_r)/R` (sample variance, R − 1 in
    the denominator): the first-order (infinitesimal-jackknife) variance of a smooth function
    of R i.i.d. vectors (B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*,
    Chapman & Hall, 1993, §21.3). NaN with fewer than 2 weighted points; 0 when every
    repetition gives the same values at the weighted points. ``ybar``: the means
    ``Y.mean(-1)`` when the caller has them (a bootstrap's resampled means).

    The (…, m, R) terms :math:`c_j y_{jr}/\bar y_j` are formed in one buffer laid out as ``Y``,
    divided only at weighted points (0 elsewhere), so each z is the same sum in the same order
    as forming every quotient and masking it."""
    Y = np.asarray(Y, dtype=float)
    w = np.broadcast_to(np.asarray(w, dtype=float), Y.shape[:-1])
    R = Y.shape[-1]
    sw = w.sum(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = (w * lx).sum(-1, keepdims=True) / sw
        d = w * (lx - mx)
        c = d / (d * (lx - mx)).sum(-1, keepdims=True)
        ybar = Y.mean(-1) if ybar is None else ybar
        terms = np.zeros_like(Y)
        np.divide(Y, np.where(ybar > 0, ybar, 1.0)[..., None], out=terms, where=(w > 0)[..., None])
        np.multiply(c[..., None], terms, out=terms)
        z = terms.sum(-2)  # (…, R)
        return np.sqrt(z.var(-1, ddof=1) / R) if R > 1 else np.full(z.shape[:-1], np.nan)


def studentized_fit(
    slope: float, se: float, slopes: npt.NDArray, ses: npt.NDArray, w: npt.NDArray, n_boot: int, confidence: float, m: int,
    xs: npt.NDArray, points: str = "points with a positive mean",
) -> SlopeFit:
    r"""The point slope with the *symmetric studentised* bootstrap interval
    :math:`\hat s \pm q\,\widehat{\mathrm{se}}`, where q is the ``confidence``-quantile of
    :math:`|\hat s^*_b - \hat s| / \widehat{\mathrm{se}}^*_b` over the bootstrap resamples
    (each resample's slope ``slopes`` and standard error ``ses`` from :func:`slope_se`, both on
    the resample's own points ``w``; resamples with < 3 points are dropped and fewer than half
    usable give no interval). P. Hall, "On symmetric bootstrap confidence intervals", J. R.
    Stat. Soc. B 50(1), 1988: the pivot :math:`|t|` makes the coverage error O(R⁻²), against
    O(R⁻¹) for the percentile interval, which is too narrow by about √((R − 1)/R) and
    ignores skewness. In the simulation shipped with the suite (tests/test_coverage.py:
    skewed noise, 10–50 paired repetitions, regime chosen in every resample) it covers a known
    slope ≥ 0.93 of the time, where the percentile interval under-covers. A resample whose
    repetitions are all equal (se* = 0) has |t| = ∞ unless its slope equals the estimate."""
    keep = (w.sum(1) >= 3) & np.isfinite(slopes)
    slopes, ses = slopes[keep], ses[keep]
    if len(slopes) < n_boot // 2 or not np.isfinite(se):
        why = f"only {len(slopes)} of {n_boot} bootstrap resamples have ≥ 3 {points}"
        return SlopeFit(slope, math.nan, math.nan, m, *log_range(xs), no_interval=why)
    dev = np.abs(slopes - slope)
    tol = 1e-9 * max(1.0, abs(slope))  # rounding: a slope the repetitions cannot move (e.g. per-repetition factors only)
    if se <= tol * 1e-3 and float(dev.max()) <= tol:
        return SlopeFit(slope, slope - float(dev.max()), slope + float(dev.max()), m, *log_range(xs))
    q = studentized_quantile(dev, ses, confidence, tol)
    if not np.isfinite(q):
        return SlopeFit(slope, math.nan, math.nan, m, *log_range(xs), no_interval="more than 5% of the bootstrap resamples have no spread (se* = 0)")
    return SlopeFit(slope, float(slope - q * se), float(slope + q * se), m, *log_range(xs))


def studentized_quantile(dev: npt.NDArray, ses: npt.NDArray, confidence: float, tol: float = 0.0) -> float:
    r"""The ``confidence``-quantile q of the symmetric studentised pivot
    :math:`|t^*_b| = |\hat\theta^*_b - \hat\theta| / \widehat{\mathrm{se}}^*_b` over bootstrap
    resamples (``dev`` = :math:`|\hat\theta^*_b - \hat\theta|`, ``ses`` their standard errors; a
    deviation ≤ ``tol`` counts as 0, a resample without spread (se* = 0 or NaN) with a deviation as
    ∞): the interval is :math:`\hat\theta \pm q\,\widehat{\mathrm{se}}` (P. Hall, "On symmetric
    bootstrap confidence intervals", J. R. Stat. Soc. B 50(1), 1988). NaN/∞ when too many
    resamples have no spread."""
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(dev <= tol, 0.0, dev / np.where(np.isfinite(ses), ses, 0.0))
    return float(np.quantile(t, confidence))


def percentile_fit(
    slope: float, slopes: npt.NDArray, w: npt.NDArray, n_boot: int, confidence: float, m: int, xs: npt.NDArray,
    points: str = "points with a positive mean",
) -> SlopeFit:
    """The point slope with the percentile interval of the bootstrap ``slopes`` (each fitted
    on the resample's points of weight ``w``, ``points`` saying what those are; resamples with
    < 3 points are dropped, and fewer than half usable resamples give no interval)."""
    slopes = slopes[(w.sum(1) >= 3) & np.isfinite(slopes)]
    if len(slopes) < n_boot // 2:
        why = f"only {len(slopes)} of {n_boot} bootstrap resamples have ≥ 3 {points}"
        return SlopeFit(slope, math.nan, math.nan, m, *log_range(xs), no_interval=why)
    a = (1 - confidence) / 2
    lo, hi = np.quantile(slopes, [a, 1 - a])
    return SlopeFit(slope, float(lo), float(hi), m, *log_range(xs))


def log_range(xs: npt.NDArray) -> tuple[float, float]:
    return (float(xs.min()), float(xs.max())) if len(xs) else (math.nan, math.nan)


def bootstrap_mean_ci(
    values: npt.ArrayLike, *, confidence: float = 0.95, n_boot: int = 2000, seed: int = 0,
    draws: dict[int, npt.NDArray] | None = None,
) -> tuple[float, float, float]:
    """Mean and percentile-bootstrap interval of the mean of repetition values (NaN interval
    with fewer than 2 values). The resampled indices depend only on ``seed``, ``n_boot`` and
    the number of values: a caller with many curves passes one ``draws`` dict (per number of
    values, its index matrix) for all calls with the same seed and n_boot."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if len(v) == 0:
        return math.nan, math.nan, math.nan
    if len(v) < 2:
        return float(v.mean()), math.nan, math.nan
    draws = {} if draws is None else draws
    if len(v) not in draws:
        draws[len(v)] = np.random.default_rng(seed).integers(0, len(v), size=(n_boot, len(v)))
    boot = v[draws[len(v)]].mean(axis=1)
    a = (1 - confidence) / 2
    lo, hi = np.quantile(boot, [a, 1 - a])
    return float(v.mean()), float(lo), float(hi)
