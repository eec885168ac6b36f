"""The rules of the theory check: which points of a curve are its learning regime, where it
sits on a floor, and the verdict of a fitted exponent against the theorem's.

Everything here is a plain function of arrays, applied by :func:`dpbench.theory_check.analysis.check_curve`
to the full data *and to every bootstrap resample of the repetitions* (vectorised over
resamples: the first axis of ``means``), so a slope's interval includes the uncertainty of
choosing its range. docs/theory-check.md states the same rules in words.

Regime (:func:`regime_masks`) of one curve with x-grid ``x₁ < … < x_m`` and mean ``ȳ(x)``
over repetitions:

1. *learning*: ``0 < ȳ(x) ≤ MARGIN · trivial`` (the trivial predictor's value: the majority
   label, ½ mistake per round, uniform play; without a trivial level, ``ȳ ≤ ½ max ȳ``);
2. *above the floor*: ``x`` before the floor and not on it (below);
3. *online curves*: from the first checkpoint after the last window in which some
   repetition's incremental rate exceeds ``MARGIN · trivial`` (:func:`window_starts`; the
   cumulative rate averages a learner's late rounds with its first ones);
4. *contiguous*: the last run of consecutive grid points satisfying 1–3 (points that fell
   below the level by chance before a gap are not fitted).

Floor: the trailing points from which the curve cannot go lower —
either *deterministic* (:func:`deterministic_floor`: every repetition gives the same
positive value, at ≥ 2 trailing grid points with one value: a level fixed by the design,
e.g. an SQ tolerance), or a *plateau* (:func:`plateau_start`: ≥ :data:`FLOOR_POINTS`
trailing points whose log–log slope lies in (−:data:`FLOOR_SLOPE`, :data:`FLOOR_RISE`] —
flat, not rising — where the theory predicts a decay at least
twice that). Its level is the deterministic value, else the mean of its points' means
(:func:`floor_levels`: a plateau's mean, not its lowest point); an earlier
point within (1 + :data:`FLOOR_TOL`) × that level, or where most repetitions give the
deterministic floor's value, is on the floor too and is not fitted.

Verdicts (:func:`verdict`, first that applies): see :data:`VERDICTS`.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from dpbench.theory_check.fit import MIN_REPS, masked_ols  # noqa: F401  (MIN_REPS: part of the rules)

#: a point learns when its mean is at most MARGIN × the trivial predictor's value
MARGIN = 0.5
#: a plateau: ≥ FLOOR_POINTS trailing points with |log–log slope| < FLOOR_SLOPE
FLOOR_SLOPE = 0.15
FLOOR_POINTS = 3
#: a plateau does not rise: its log–log slope is at most FLOOR_RISE (noise, not a rising curve)
FLOOR_RISE = 0.05
#: a point whose mean is at most (1 + FLOOR_TOL) × the floor level is on the floor (at 1.5× the
#: floor, a third of its value is the floor: its log–log slope would be biased by it)
FLOOR_TOL = 0.5
#: a floor being approached (:func:`approach_start`): the last local slope is flatter than
#: APPROACH_FRACTION × the steeper of the steepest local slope and the predicted exponent, ...
APPROACH_FRACTION = 1 / 3
#: ... the steepest local slope is at least APPROACH_CURVATURE × the last one (the curve bends) ...
APPROACH_CURVATURE = 1.5
#: ... and the trailing points whose incoming local slope is flatter than APPROACH_HALF × the
#: reference (the predicted exponent, else the steepest local slope) are on the approach
APPROACH_HALF = 0.5
#: an interval needs this many repetitions (the figures draw no band below it either)
#: agrees: the interval overlaps [exponent − TOLERANCE, exponent + TOLERANCE] ...
TOLERANCE = 0.1
#: ... and is at most MAX_WIDTH wide, with the estimate itself within MAX_WIDTH/2 of the exponent
MAX_WIDTH = 0.5

#: The values of the ``verdict`` column, in the order they are tested (the first that
#: applies wins).
VERDICTS = (
    "too_few_points",  # no data, or < 3 points in the regime and no proven bound checked
    "violated",  # a cell lies above a proven bound (its statistic at the bound's level): a contradiction
    "at_chance",  # never clearly below the trivial level (online curves: on late-window rates); before
    #               vacuous_bound, so a curve that does not learn shows as such even under a vacuous bound
    "vacuous_bound",  # the bound is above the trivial level over the whole range: it says nothing
    "floor",  # < 3 regime points because the curve sits on a floor, or is seen approaching one
    "too_few_reps",  # < MIN_REPS repetitions: no interval
    "theory_silent",  # a theory is given but undefined over the whole curve (e.g. a rate from its n₀ on): kept, nothing to compare
    "no_theory",  # no theory at all (a reference learner, a timing without a model)
    "shape_only",  # a reconstructed rate whose constants the source lost: compared by shape only
    "bound_holds",  # a proven bound holds at every cell, and the slope decides nothing more (too few points or
    #                 repetitions, or an interval that neither agrees with nor excludes the bound's exponent)
    "agrees",  # interval overlaps exponent ± TOLERANCE, ≤ MAX_WIDTH wide, estimate within MAX_WIDTH/2
    "inconclusive",  # interval overlaps exponent ± TOLERANCE but is wider (or the estimate is far off)
    "steeper",  # interval entirely beyond exponent ± TOLERANCE, away from 0
    "shallower",  # interval entirely beyond exponent ± TOLERANCE, towards 0
)

#: What a theory row's formula claims (column ``claim``): ``upper`` — an upper bound, proven
#: with constants (``bound_kind`` ``bound``) or an O(·) rate (``shape``): a curve below it may
#: fall faster or slower over a finite range, and only a cell above a *proven* bound
#: contradicts it; ``tight`` — a rate the theorem states as Θ(·) (or with matching lower and
#: upper bounds) on this instance: an interval that excludes its exponent contradicts it;
#: ``lower`` — a lower bound every learner meets (the fair-coin instance): a check of the
#: instance, not a verdict on a learner.
CLAIMS = ("upper", "tight", "lower")

#: verdicts that decide a row (the issue's "decisive"): the rest say why nothing was decided
DECISIVE = ("violated", "floor", "bound_holds", "agrees", "steeper", "shallower")


def contradicts(verdict: str, claim: str | None) -> bool:
    """Does a row with this verdict and claim contradict its theorem? Only if a cell lies
    above a proven bound (``violated``), or if a theorem stating a tight rate (``claim`` =
    ``tight``) is excluded by the interval (``steeper``/``shallower``). A slope steeper or
    shallower than an upper bound's exponent is a description, not a contradiction."""
    return verdict == "violated" or (claim == "tight" and verdict in ("steeper", "shallower"))


def last_run(ok: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """Per row of ``ok`` (…, m): only its last run of consecutive True values."""
    ok = np.asarray(ok, dtype=bool)
    m = ok.shape[-1]
    if m == 0:
        return ok
    idx = np.arange(m)
    last = m - 1 - np.argmax(ok[..., ::-1], axis=-1)
    gap = np.where(~ok & (idx < last[..., None]), idx, -1).max(axis=-1)
    return ok & (idx > gap[..., None]) & (idx <= last[..., None])


def deterministic_floor(Y: npt.NDArray) -> int:
    """Index of the first of the trailing grid points at which every repetition gives one
    and the same positive value, the same at each of them (≥ 2 points); ``m`` if none.
    ``Y`` is (m points, R repetitions)."""
    m = Y.shape[0]
    if m < 2 or Y.shape[1] < 2:
        return m
    with np.errstate(invalid="ignore"):
        same = np.all(Y == Y[:, :1], axis=1) & (Y[:, 0] > 0) & np.all(np.isfinite(Y), axis=1)
    if not same[-1]:
        return m
    start = m - 1
    while start > 0 and same[start - 1] and Y[start - 1, 0] == Y[-1, 0]:
        start -= 1
    return start if m - start >= 2 else m


def plateau_start(lx: npt.NDArray, means: npt.NDArray, decays: npt.NDArray[np.bool_] | None = None) -> npt.NDArray:
    """Per row of ``means`` (B, m): index of the first point of the longest trailing run of ≥
    :data:`FLOOR_POINTS` positive points whose OLS log–log slope is flatter than
    :data:`FLOOR_SLOPE` and that does not rise (slope ≤ :data:`FLOOR_RISE`: a slowly rising
    curve is not a floor); ``m`` if none. ``decays[i]`` says whether the theory predicts a decay
    over the points from i on (a predicted flat tail is not a floor); None: everywhere.

    The tails are tried from the shortest (the last FLOOR_POINTS points) to the longest, and a
    row leaves the search at its first tail that is not flat: each tail's OLS slope is fitted
    only for the rows still extending their run (most bootstrap resamples of a decaying curve
    leave at the first tail), with the same arithmetic per row as a fit of every row."""

    B, m = means.shape
    start = np.full(B, m)
    positive = np.isfinite(means) & (means > 0)
    logy = np.log(np.where(positive, means, 1.0))
    idx = np.arange(m)
    rows = np.arange(B)  # the rows whose trailing run is still flat
    for i in range(m - FLOOR_POINTS, -1, -1):
        if decays is not None and not decays[i]:
            break
        rows = rows[positive[rows, i:].all(axis=1)]
        if not len(rows):
            break
        w = np.broadcast_to(idx >= i, (len(rows), m)).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            slope = masked_ols(lx[None, :], logy[rows], w)
        with np.errstate(invalid="ignore"):
            rows = rows[(slope > -FLOOR_SLOPE) & (slope <= FLOOR_RISE)]
        start[rows] = i
    return start


def approach_start(lx: npt.NDArray, means: npt.NDArray, regime: npt.NDArray, predicted: float = math.nan,
                   decays: npt.NDArray[np.bool_] | None = None) -> npt.NDArray:
    r"""Per row of ``means`` (B, m) with its contiguous ``regime`` (B, m): the index of the first
    point on which the curve is seen *approaching* a floor, ``m`` if none — a floor still
    being approached, which :func:`plateau_start` (≥ 3 flat points) misses.

    On the regime's points the local log–log slopes :math:`s_j = \Delta\ln\bar y / \Delta\ln x`
    are formed. A curve :math:`a x^{e} + c` with a floor c has local slopes
    :math:`e\,a x^{e}/(a x^{e} + c)`, which flatten monotonically from e toward 0, while a
    power law's scatter around one value. A floor is being approached when, with ``ref`` the
    steeper of the steepest local slope and the ``predicted`` exponent (NaN: the steepest
    alone):

    - there are ≥ 2 local slopes, the steepest is a decay (< −2·:data:`FLOOR_SLOPE`) and, if
      given, so is the prediction;
    - the last local slope is flatter than the one before it (flattening) and than
      :data:`APPROACH_FRACTION` · ref, and does not rise beyond :data:`FLOOR_RISE`;
    - the steepest local slope is at least :data:`APPROACH_CURVATURE` × the last (the curve bends).

    The approach starts at the first point of the trailing run whose incoming local slope is
    flatter than :data:`APPROACH_HALF` × the predicted exponent (the steepest local slope
    without one): there the floor c is ≥ half the value (e·a xᵉ/(a xᵉ + c) ≥ e/2 ⟺
    c ≤ a xᵉ), which would bias a fitted slope toward 0 by the same factor. As for a plateau,
    only where the theory predicts a decay over those points (``decays``, as in
    :func:`plateau_start`; None: everywhere): a flattening the theory predicts is no floor."""
    means = np.atleast_2d(np.asarray(means, dtype=float))
    regime = np.broadcast_to(np.asarray(regime, dtype=bool), means.shape)
    B, m = means.shape
    out = np.full(B, m)
    if m < 3:
        return out
    with np.errstate(invalid="ignore", divide="ignore"):
        ly = np.where(regime & (means > 0), np.log(np.where(means > 0, means, 1.0)), np.nan)
        s = np.diff(ly, axis=1) / np.diff(lx)[None, :]  # (B, m − 1), NaN outside the regime
    valid = np.isfinite(s)
    nv = valid.sum(axis=1)
    last = np.where(valid.any(axis=1), m - 2 - np.argmax(valid[:, ::-1], axis=1), 0)
    rows = np.arange(B)
    s_last = s[rows, last]
    s_prev = s[rows, np.maximum(last - 1, 0)]
    steepest = np.nanmin(np.where(valid, s, np.inf), axis=1)
    pred = abs(predicted) if np.isfinite(predicted) else 0.0
    ref = np.maximum(np.abs(steepest), pred)
    allowed = not (np.isfinite(predicted) and predicted >= -2 * FLOOR_SLOPE)
    with np.errstate(invalid="ignore"):
        flag = (allowed & (nv >= 2) & (steepest < -2 * FLOOR_SLOPE) & (s_last > s_prev) & (s_last > -APPROACH_FRACTION * ref)
                & (s_last <= FLOOR_RISE) & (np.abs(steepest) >= APPROACH_CURVATURE * np.abs(s_last)))
        half = APPROACH_HALF * (pred if pred > 0 else np.abs(steepest))
        flat = valid & (s > -half[:, None] if np.ndim(half) else s > -half)
    # per row: j = the last local slope at or before ``last`` that is not on the flat run (−1: none)
    off = ~(flat & valid) & (np.arange(m - 1)[None, :] <= last[:, None])
    j = np.where(off.any(axis=1), m - 2 - np.argmax(off[:, ::-1], axis=1), -1)
    ok = flag & (j < last)
    if decays is not None:
        ok &= np.asarray(decays, dtype=bool)[np.minimum(j + 1, m - 1)]
    return np.where(ok, j + 2, out)  # the first point whose incoming slope is on the flat trailing run


def window_starts(xs: npt.NDArray, counts: npt.NDArray, threshold: float) -> npt.NDArray:
    """Per repetition of an online curve (``counts``: (m points, R) cumulative mistakes at the
    checkpoints ``xs``): the index of the first checkpoint after the last window whose
    incremental rate ``(c_i − c_{i−1}) / (x_i − x_{i−1})`` (the first window from 0) exceeds
    ``threshold``; 0 when none does. The regime of a set of repetitions starts at the largest
    of theirs: no fitted point has a repetition still erring above the margin before it."""
    xs = np.asarray(xs, dtype=float)
    prev_x = np.concatenate([[0.0], xs[:-1]])
    prev_c = np.vstack([np.zeros((1, counts.shape[1])), counts[:-1]])
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = (counts - prev_c) / (xs - prev_x)[:, None]
    above = rate > threshold
    m = len(xs)
    last = np.where(above.any(axis=0), m - 1 - np.argmax(above[::-1], axis=0), -1)
    return last + 1


def floor_levels(means: npt.NDArray, floor_from: npt.NDArray) -> npt.NDArray:
    """Per row of ``means`` (B, m): the floor's level, the mean of the row's means from
    ``floor_from`` (B,) on (the plateau's mean); NaN without a floor."""
    on = np.arange(means.shape[-1])[None, :] >= np.asarray(floor_from)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(on.any(axis=1), np.where(on, means, 0.0).sum(axis=1) / on.sum(axis=1), np.nan)


def regime_masks(
    means: npt.NDArray, *, trivial: float | None, floor_from: npt.NDArray, margin: float = MARGIN,
    start: npt.NDArray | None = None, at_floor: npt.NDArray | None = None, level: float | None = None,
) -> npt.NDArray[np.bool_]:
    """Per row of ``means`` (B, m): the regime — learning (positive, ≤ margin·trivial — ``trivial``
    a scalar or one level per point —, or ≤ ½
    the row's largest mean without a trivial level), from ``start`` (B,; online curves:
    :func:`window_starts`), before ``floor_from`` (B,) and not on the floor (a mean at most
    (1 + :data:`FLOOR_TOL`) × the row's floor level — ``level`` when given, a deterministic
    floor's value, else :func:`floor_levels` — or ``at_floor``: (m,) points where most
    repetitions give the deterministic floor's value), the last contiguous run of such
    points."""
    m = means.shape[-1]
    idx = np.arange(m)
    floor_from = np.asarray(floor_from)
    level = floor_levels(means, floor_from) if level is None else np.full(means.shape[0], level)
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(means) & (means > 0) & (idx[None, :] < floor_from[:, None])
        ok &= ~(means <= (1 + FLOOR_TOL) * level[:, None])  # NaN level: nothing is near it
        if at_floor is not None:
            ok &= ~np.asarray(at_floor, dtype=bool)[None, :]
        if start is not None:
            ok &= idx[None, :] >= np.asarray(start)[:, None]
        if trivial is not None and np.all(np.isfinite(trivial)):  # a scalar, or one level per point (m,)
            ok &= means <= margin * np.asarray(trivial, dtype=float)
        else:
            ok &= means <= 0.5 * np.nanmax(np.where(np.isfinite(means), means, -np.inf), axis=-1, keepdims=True)
    return last_run(ok)


def verdict(
    *,
    n_points: int,
    has_data: bool = True,
    vacuous: bool = False,
    at_chance: bool = False,
    on_floor: bool = False,
    reps: int,
    exponent: float,
    low: float,
    high: float,
    reconstructed: bool = False,
    slope: float | None = None,
    theory_given: bool = False,
    bound_cells: int = 0,
    above: int = 0,
) -> str:
    """The verdict of one curve (:data:`VERDICTS`, the first that applies). ``on_floor``: the
    curve learns but fewer than 3 points are left above its floor (or its approach);
    ``theory_given``: a theory was given (a missing exponent then means it is undefined there:
    ``theory_silent``); ``bound_cells``, ``above``: cells at which a *proven* bound was
    checked, and how many lie above it (any: ``violated``; none, with a slope that decides
    nothing more: ``bound_holds``)."""
    checked = bound_cells > 0
    if not has_data:
        return "too_few_points"
    if above > 0:
        return "violated"
    if at_chance:
        return "at_chance"
    if vacuous:
        return "vacuous_bound"
    if n_points < 3:
        return "floor" if on_floor else "bound_holds" if checked else "too_few_points"
    if reps < MIN_REPS:
        return "bound_holds" if checked else "too_few_reps"
    if exponent is None or not np.isfinite(exponent):
        return "bound_holds" if checked else "theory_silent" if theory_given else "no_theory"
    if reconstructed:
        return "shape_only"
    if not (np.isfinite(low) and np.isfinite(high)):
        return "bound_holds" if checked else "inconclusive"
    c = compare(exponent, low, high, slope)
    return "bound_holds" if c == "inconclusive" and checked else c


def compare(exponent: float, low: float, high: float, slope: float | None = None) -> str:
    """``agrees`` / ``inconclusive`` / ``steeper`` / ``shallower`` for an interval
    ``[low, high]`` (and the point estimate ``slope``) against ``exponent``: overlap with
    ``exponent ± TOLERANCE``, width ≤ MAX_WIDTH and the estimate within MAX_WIDTH/2 of the
    exponent agrees; otherwise an overlapping interval is inconclusive (when the regime flips
    between resamples, the interval can reach the prediction while the estimate sits half a
    unit away); an interval entirely beyond the tolerance is steeper when it lies further
    from 0 than the exponent (for a predicted 0, on either side), shallower when nearer to 0."""
    lo_ok, hi_ok = exponent - TOLERANCE, exponent + TOLERANCE
    if high >= lo_ok and low <= hi_ok:
        near = slope is None or not np.isfinite(slope) or abs(slope - exponent) <= MAX_WIDTH / 2
        return "agrees" if high - low <= MAX_WIDTH and near else "inconclusive"
    below = high < lo_ok  # the measured exponent is smaller (more negative) than predicted
    if exponent > 0:
        return "shallower" if below else "steeper"
    if exponent < 0:
        return "steeper" if below else "shallower"
    return "steeper"


def endpoint_note(slope: float, low: float, high: float) -> str:
    """A note when the point estimate sits at an end of its interval (a discrete statistic,
    e.g. an order statistic of few repetitions); empty otherwise."""
    if not (math.isfinite(slope) and math.isfinite(low) and math.isfinite(high)):
        return ""
    tol = 1e-9 * max(1.0, abs(slope))
    if high - low <= tol:
        return "every resample gives the same slope (the repetitions agree exactly at these points): a zero-width interval"
    if abs(slope - low) <= tol or abs(slope - high) <= tol:
        return ("the estimate is an end of its interval: the bootstrap distribution of this statistic is discrete "
                "(an order statistic of few repetitions), so the interval is one-sided there")
    return ""
