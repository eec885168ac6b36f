"""Empirical sample complexity n*(α): located between grid points per repetition, with
intervals over repetitions.

Per repetition r (the repetitions of a curve share their samples across sizes, so each has
a learning curve e_r(n) over the size grid n₁ < … < n_J), the *crossing*
:func:`crossing_sizes` is the size at which e_r first reaches α, interpolated between the
last grid size above α and the first at or below it — log–log when both errors are
positive, linear in the error against log n when the second is 0:

.. math:: \\ln n_r = \\ln n_{j-1} + \\frac{\\ln e_{j-1} - \\ln α}{\\ln e_{j-1} - \\ln e_j}
          (\\ln n_j - \\ln n_{j-1}).

A repetition already at or below α at n₁ crosses at n₁ (an upper bound: *censored*); one
that never gets there crosses at +∞. The empirical n*(α) at level 1 − β is the smallest size
by which at least a share 1 − β of the repetitions have crossed: the ⌈(1−β)R⌉-th smallest
crossing. Its interval, and the interval of a slope of n* in ε or |F|, are percentile
bootstraps over repetitions (one resample of repetition indices at every x: paired). An n*
that is censored, or infinite, is left out of a slope (in each resample as in the data);
fewer than :data:`dpbench.theory_check.verdict.MIN_REPS` repetitions give no interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from dpbench.theory_check import verdict as V
from dpbench.theory_check.analysis import curve_status, judged_row
from dpbench.theory_check.fit import MIN_REPS, SlopeFit, local_exponent, log_range, masked_ols, percentile_fit


def _crossings(E: npt.NDArray, sizes: npt.NDArray, alpha: float) -> npt.NDArray:
    """Crossing sizes of ``E`` (…, J sizes, R repetitions): (…, R); +∞ where never ≤ α."""
    with np.errstate(invalid="ignore"):
        hit = E <= alpha
    first = np.argmax(hit, axis=-2)  # (…, R)
    any_hit = hit.any(axis=-2)
    j = np.maximum(first, 1)
    e1 = np.take_along_axis(E, j[..., None, :], axis=-2)[..., 0, :]
    e0 = np.take_along_axis(E, (j - 1)[..., None, :], axis=-2)[..., 0, :]
    ls = np.log(sizes)
    with np.errstate(invalid="ignore", divide="ignore"):
        loglog = (np.log(e0) - math.log(alpha)) / (np.log(e0) - np.log(e1))
        linear = (e0 - alpha) / (e0 - e1)
        frac = np.where(e1 > 0, loglog, linear)
    frac = np.clip(np.nan_to_num(frac, nan=1.0), 0.0, 1.0)
    out = np.exp(ls[j - 1] + frac * (ls[j] - ls[j - 1]))
    out = np.where(first == 0, sizes[0], out)
    return np.where(any_hit, out, np.inf)


def _per_x_table(rows: pd.DataFrame, *, x: str | None, size: str, y: str) -> tuple[npt.NDArray, pd.DataFrame]:
    """Sorted values of ``x`` (one, 0, when None) and the (x, size) × repetition table of mean
    ``y`` over the repetitions seen at every (x, size)."""
    rows = rows.assign(_x=0.0) if x is None else rows.assign(_x=rows[x].astype(float))
    # pivot_table's table (cells without a value dropped before the unstack, as it drops them)
    # by a group-by and unstack, in a third of its time
    table = rows.groupby(["_x", size, "rep"])[y].mean().dropna().unstack("rep").dropna(axis=1, how="any")
    return np.sort(rows["_x"].unique()).astype(float), table


def crossing_sizes(rows: pd.DataFrame, alpha: float, *, x: str | None = None, size: str = "n", y: str = "error") -> tuple[npt.NDArray, npt.NDArray, npt.NDArray]:
    """``(xs, first, C)``: per value of ``x`` (one value when ``x`` is None) its grid's
    smallest size ``first`` and, per repetition, the interpolated size at which the
    repetition's error first reaches ``alpha`` (module doc) over that value's own size grid;
    ``C`` is (len(xs), R) over the repetitions seen at every (x, size) of the rows."""
    xs, table = _per_x_table(rows, x=x, size=size, y=y)
    C = np.full((len(xs), table.shape[1]), np.inf)
    first = np.full(len(xs), np.nan)
    for i, xv in enumerate(xs):
        at = table.xs(xv, level="_x") if xv in table.index.get_level_values("_x") else table.iloc[:0]
        if len(at) == 0:
            continue
        sizes = at.index.to_numpy(dtype=float)
        first[i] = sizes[0]
        C[i] = _crossings(at.to_numpy(dtype=float), sizes, alpha)
    return xs, first, C


def floor_near_alpha(rows: pd.DataFrame, alpha: float, *, x: str | None = None, size: str = "n", y: str = "error") -> npt.NDArray:
    """Per value of ``x`` (as :func:`crossing_sizes`): does its error curve sit on a floor
    (deterministic or plateau, :mod:`dpbench.theory_check.verdict`) whose level is above α/(1 +
    FLOOR_TOL)? Then where the curve crosses α is decided by the floor, not by the rate, and
    its n* is not fitted."""
    xs, table = _per_x_table(rows, x=x, size=size, y=y)
    out = np.zeros(len(xs), dtype=bool)
    for i, xv in enumerate(xs):
        if xv not in table.index.get_level_values("_x"):
            continue
        at = table.xs(xv, level="_x")
        Y, sizes = at.to_numpy(dtype=float), at.index.to_numpy(dtype=float)
        if len(sizes) < 2 or not (sizes > 0).all():
            continue
        mean = Y.mean(axis=1)
        det = V.deterministic_floor(Y)
        start = int(min(det, V.plateau_start(np.log(sizes), mean[None, :])[0]))
        if start < len(sizes):
            level = float(Y[-1, 0]) if det < len(sizes) else float(V.floor_levels(mean[None, :], np.array([start]))[0])
            out[i] = level > alpha / (1 + V.FLOOR_TOL)
    return out


def n_star_of(C: npt.NDArray, beta: float) -> npt.NDArray:
    """The ⌈(1−β)R⌉-th smallest crossing along the last axis (R repetitions)."""
    R = C.shape[-1]
    k = max(math.ceil((1 - beta) * R - 1e-9), 1) - 1
    return np.sort(C, axis=-1)[..., k]


def sample_complexity(df: pd.DataFrame, by: Sequence[str], alpha: float, beta: float, size: str = "n", *, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Empirical ``n*(α)`` per group ``by`` (columns ``n_star``, ``n_low``, ``n_high``,
    ``censored``): the interpolated n* of the module doc with its 95 % percentile bootstrap
    over repetitions; NaN where the grid never gets there (the bounds NaN too where a
    resample never does), ``censored`` where n* is the grid's smallest size (an upper bound)."""
    ok = df[df["status"] == "ok"]
    out = []
    for key, group in ok.groupby(list(by), dropna=False, sort=True):
        _, first, C = crossing_sizes(group, alpha, size=size)
        C = C[0]
        R = len(C)
        star = n_star_of(C, beta) if R else math.nan
        lo = hi = math.nan
        if R >= MIN_REPS:
            boot = n_star_of(C[np.random.default_rng(seed).integers(0, R, size=(n_boot, R))], beta)
            lo, hi = np.sort(boot)[[int(0.025 * (n_boot - 1)), int(np.ceil(0.975 * (n_boot - 1)))]]  # +∞ stays +∞
        finite = lambda v: float(v) if np.isfinite(v) else math.nan  # noqa: E731
        out.append({
            **dict(zip(by, key if isinstance(key, tuple) else (key,))),
            "n_star": finite(star), "n_low": finite(lo), "n_high": finite(hi),
            "censored": bool(R and np.isfinite(star) and star <= first[0]),
        })
    return pd.DataFrame(out, columns=[*by, "n_star", "n_low", "n_high", "censored"])


@dataclass(frozen=True)
class NStarFit:
    """Slope of n*(α) in ``x``: the fit (over the x at which n* is found and not censored),
    the grid ``xs``, n* per x, which are ``censored`` (the grid's smallest size: only an
    upper bound), the paired repetitions ``reps``, and which are ``floored`` (the error curve
    sits on a floor near α: :func:`floor_near_alpha`)."""

    fit: SlopeFit
    xs: npt.NDArray
    n_star: npt.NDArray
    censored: npt.NDArray
    reps: int
    floored: npt.NDArray | None = None

    @property
    def used(self) -> npt.NDArray:
        floored = np.zeros(len(self.xs), dtype=bool) if self.floored is None else self.floored
        return np.isfinite(self.n_star) & ~self.censored & (self.xs > 0) & ~floored


def n_star_fit(
    rows: pd.DataFrame, *, alpha: float, beta: float, x: str = "epsilon", size: str = "n", y: str = "error",
    confidence: float = 0.95, n_boot: int = 2000, seed: int = 0,
) -> NStarFit:
    """Log–log slope of the empirical n*(α) in ``x``, bootstrapped over repetitions (each
    resample recomputes every n*, drops the censored and infinite ones and those whose
    error curve sits on a floor near α (:func:`floor_near_alpha`), refits)."""
    xs, first, C = crossing_sizes(rows, alpha, x=x, size=size, y=y)
    floored = floor_near_alpha(rows, alpha, x=x, size=size, y=y)
    R = C.shape[1]
    star = n_star_of(C, beta) if R else np.full(len(xs), np.inf)
    censored = np.isfinite(star) & (star <= first)
    used = np.isfinite(star) & ~censored & (xs > 0) & ~floored
    m = int(used.sum())
    if m < 3:
        return NStarFit(SlopeFit(math.nan, math.nan, math.nan, m, *log_range(xs[used])), xs, star, censored, R, floored)
    lx = np.log(xs)
    slope = float(masked_ols(lx[used], np.log(star[used]), np.ones(m)))
    if R < MIN_REPS:
        fit = SlopeFit(slope, math.nan, math.nan, m, *log_range(xs[used]), no_interval=f"{R} repetition(s); an interval needs ≥ {MIN_REPS}")
        return NStarFit(fit, xs, star, censored, R, floored)
    idx = np.random.default_rng(seed).integers(0, R, size=(n_boot, R))
    boot = n_star_of(C[:, idx], beta).T  # (n_boot, len(xs))
    w = (np.isfinite(boot) & (boot > first) & (xs > 0) & ~floored).astype(float)
    slopes = masked_ols(lx[None, :], np.log(np.where(w > 0, boot, 1.0)), w)
    fit = percentile_fit(slope, slopes, w, n_boot, confidence, m, xs[used], points=f"values of {x} with an uncensored n*")
    return NStarFit(fit, xs, star, censored, R, floored)


def sample_complexity_slope(rows: pd.DataFrame, *, alpha: float, beta: float, x: str = "epsilon", size: str = "n", y: str = "error", **kw) -> SlopeFit:
    """The slope of :func:`n_star_fit` alone."""
    return n_star_fit(rows, alpha=alpha, beta=beta, x=x, size=size, y=y, **kw).fit


def check_n_star(
    rows: pd.DataFrame, *, experiment: str, learner: str, regime: str, alpha: float, beta: float, x: str = "epsilon",
    theory_n: Callable[[npt.NDArray], npt.ArrayLike] | None = None, reconstructed: bool = False, kind: str | None = None,
    shape_why: str = "",
) -> dict[str, object] | None:
    """The judged theory-check row of an n*(α)-vs-``x`` curve: slope (:func:`n_star_fit`)
    beside the local exponent of ``theory_n(xs)`` (the theorem's n(α) along x) over the
    fitted range, ``bound_ratio`` = the largest empirical n* / theorem n* there. ``kind`` is
    the theory's bound kind (``bound``: a proven sufficient sample size, with constants —
    checked at every value of ``x``, :func:`n_star_bound_cells`; ``shape``; default ``shape``
    with a theory, ``none`` without). None (no row) with fewer than 3 values of ``x``."""
    if len(rows) and rows[x].nunique() < 3:
        return None
    kind = kind or ("shape" if theory_n is not None else "none")
    silent_note = ""
    if theory_n is not None and len(rows):
        # fit only where the theory's n* is defined; undefined everywhere: theory_silent
        grid = np.unique(rows[x].to_numpy(dtype=float))
        with np.errstate(all="ignore"):
            tg = np.broadcast_to(np.asarray(theory_n(grid), dtype=float), grid.shape)
        defined = np.isfinite(tg) & (tg > 0)
        if not defined.any():
            silent_note = f"; the theory's n* is undefined at every value of {x}: no exponent (theory_silent)"
        elif not defined.all():
            rows = rows[np.isin(rows[x].to_numpy(dtype=float), grid[defined])]
            silent_note = (f"; fitted only where the theory's n* is defined ({x} in [{grid[defined].min():g}, "
                           f"{grid[defined].max():g}]; undefined at {int((~defined).sum())} of {len(grid)} values)")
    nf = n_star_fit(rows, alpha=alpha, beta=beta, x=x)
    fit, used = nf.fit, nf.used
    exponent, ratio = math.nan, math.nan
    cells = above = None
    if kind == "bound" and theory_n is not None and not reconstructed and len(nf.xs):
        largest = float(rows["n"].max()) if "n" in rows else math.inf
        cells, above, ratio_all = n_star_bound_cells(nf, theory_n, largest)
    if theory_n is not None and np.isfinite(fit.x_min):
        span = np.geomspace(fit.x_min, fit.x_max, 16)
        exponent = local_exponent(span, theory_n(span))
        th = np.asarray(theory_n(nf.xs[used]), dtype=float)
        good = np.isfinite(th) & (th > 0)
        if good.any() and not reconstructed:
            ratio = float(np.max(nf.n_star[used][good] / th[good]))
    if cells is not None and not np.isfinite(ratio):
        ratio = ratio_all
    status, note = curve_status(n_values=len(rows), fit=fit)
    found = int(np.isfinite(nf.n_star).sum())
    if status == "too_few_points":
        note = f"n*(α={alpha}) found at {found} of {len(nf.xs)} values of {x}"
    if nf.censored.any():
        note += (f"; at {int(nf.censored.sum())} value(s) of {x} n* is the grid's smallest n (learned before the grid "
                 "starts: only an upper bound), not fitted")
    note += silent_note
    floored = nf.floored if nf.floored is not None else np.zeros(len(nf.xs), dtype=bool)
    if floored.any():
        note += (f"; at {int(floored.sum())} value(s) of {x} the error curve sits on a floor above α/1.5: n* there is set "
                 "by the floor, not the rate, and is not fitted")
    note += f"; n* interpolated per repetition between grid sizes, the {1 - beta:g} order statistic over repetitions"
    return judged_row(
        fit, status=status, note=note, exponent=exponent, reps=nf.reps, reconstructed=reconstructed,
        on_floor=bool(floored.any()) and fit.n_points < 3,
        has_data=len(rows) > 0, theory_given=theory_n is not None, experiment=experiment, learner=learner, regime=regime, x=x, y="n_star",
        bound_kind=kind, bound_ratio=ratio, cells=cells, cells_above_bound=above, shape_why=shape_why,
    )


def n_star_bound_cells(nf: NStarFit, theory_n, largest: float) -> tuple[int, int, float]:
    """``(cells, cells above, largest ratio)`` of a proven sufficient sample size
    ``theory_n(x)`` against the empirical n* at each value of x where it is finite: n* (the
    (1 − β)-order statistic of the crossings) above it is a cell above the bound. A censored n*
    (learned before the grid starts) is an upper bound of the true one: below the bound when
    the grid's first size is. A value of x is a cell only where the grid reaches the bound's n:
    below it the empirical n* (≤ the grid's largest n) cannot come out above the bound, so the
    bound is not tested there, however far below it the data sit. An n* the grid never reaches
    is above the bound where the grid goes beyond the bound's n (the bound says ≥ 1 − β of the
    repetitions have learnt by then). Values whose error sits on a floor near α are
    not cells either (:func:`floor_near_alpha`: the rate does not set their n*)."""
    with np.errstate(all="ignore"):
        th = np.broadcast_to(np.asarray(theory_n(nf.xs), dtype=float), nf.xs.shape)
    floored = np.zeros(len(nf.xs), dtype=bool) if nf.floored is None else nf.floored
    ok = np.isfinite(th) & (th > 0) & ~floored
    star = nf.n_star
    decided = ok & (largest >= th)
    over = decided & (star > th)
    with np.errstate(all="ignore"):
        ratios = np.where(decided & np.isfinite(star), star / th, np.nan)
    ratio = float(np.nanmax(ratios)) if np.isfinite(ratios).any() else math.nan
    return int(decided.sum()), int(over.sum()), ratio


def check_n_star_at(
    rows: pd.DataFrame, *, experiment: str, learner: str, regime: str, alpha: float, beta: float, n_bound: float,
) -> dict[str, object] | None:
    """The judged row of one curve's n*(α) (error against ``n``, one setting) against a proven
    sufficient sample size ``n_bound`` (e.g. the finite-class bound of a consistent learner,
    :func:`dpbench.theory.n_finite_class`): ``bound_holds`` when the (1 − β)-order statistic
    of the per-repetition crossings (:func:`crossing_sizes`) is at most ``n_bound`` — a crossing
    censored at the grid's first size counts as that size, an upper bound — and ``violated``
    when it is above (or never reached on a grid that goes beyond ``n_bound``);
    ``bound_ratio`` = n*/n_bound. None (no row) for a curve with fewer than 3 sizes."""
    if len(rows) == 0 or rows["n"].nunique() < 3:
        return None
    xs, first, C = crossing_sizes(rows, alpha, x=None)
    R = C.shape[1]
    star = float(n_star_of(C[0], beta)) if R else math.inf
    largest = float(rows["n"].max())
    decided = largest >= n_bound  # below the bound's n the data cannot come out above it
    above = int(decided and star > n_bound)
    ratio = star / n_bound if np.isfinite(star) else math.nan
    censored = np.isfinite(star) and star <= first[0]
    fit = SlopeFit(math.nan, math.nan, math.nan, 0, math.nan, math.nan)
    where = ("never reached on the grid (largest n " + f"{largest:g})" if not np.isfinite(star)
             else f"n*(α={alpha}) = {star:.4g}" + (" (censored: the grid's smallest n, an upper bound)" if censored else ""))
    note = (f"{where}, the {1 - beta:g} order statistic of {R} repetitions' interpolated crossings, against the sufficient "
            f"sample size {n_bound:.4g} of the bound")
    if not decided:
        note += "; the grid ends before the bound's n, so no n* on it could exceed the bound: untested"
    row = judged_row(
        fit, status="too_few_points", note=note + "; one n*, no slope (status too_few_points): the bound decides the verdict", exponent=math.nan, reps=R, has_data=True,
        theory_given=True, experiment=experiment, learner=learner, regime=regime, x="n", y="n_star", bound_kind="bound",
        cells=int(decided), cells_above_bound=above, bound_ratio=ratio,
    )
    return row
