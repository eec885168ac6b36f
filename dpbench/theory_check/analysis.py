"""Statistics shared by theory checks and figures: curves that never pool settings, log–log
slopes fitted on repetitions, a status flag per curve, empirical sample complexity, bound
checks.

The theory-check CSV of every experiment has the columns of :data:`THEORY_COLUMNS`: per
curve (learner × every identity column that varies, see :func:`curves`), the fitted log–log
slope with its 95 % bootstrap interval over repetitions next to the theoretical exponent
over the same range (``x_min``–``x_max``, the curve's *regime*), how many cells exceed a
proven bound (``bound_kind='bound'``; ``'shape'`` rates with unit constants are never
counted) and ``bound_ratio`` (the largest empirical/bound ratio in the regime), a
``status`` (data sufficiency, one of :data:`STATUSES`), a ``verdict`` (does the curve
follow the theorem: :data:`dpbench.theory_check.verdict.VERDICTS`), the detected ``floor_level``, the
number of paired repetitions ``reps``, and a ``note`` in words. docs/theory-check.md
explains the rules.

An experiment writes its theory check in a few lines::

    rows = []
    for curve in curves(df):                      # one per learner × varying setting
        rate = lambda n: my_rate(curve.learner, n, curve.row)   # or None
        rows.append(check_curve(curve, experiment="x", x="n", y="error", rate=rate,
                                kind="bound", trivial=0.125, holds_with=1 - BETA))
    return pd.DataFrame(rows)

:func:`check_curve` fits the slope on the curve's regime — learning (at most half the
trivial predictor's value), above any floor, contiguous — chosen again in every bootstrap
resample of the repetitions (:func:`fit_regime`, rules in :mod:`dpbench.theory_check.verdict`), checks
the bound at the stated level (:func:`bound_check`: the maximum over repetitions for a
deterministic bound, the ``holds_with``-quantile for one that holds with that
probability), and sets status (:func:`curve_status`) and verdict
(:func:`dpbench.theory_check.verdict.verdict`). Sample complexities n*(α) are in :mod:`dpbench.theory_check.nstar`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from dpbench.theory_check import verdict as V
from dpbench.theory_check.fit import (  # noqa: F401
    SlopeFit,
    bootstrap_mean_ci,
    clopper_pearson,
    fit_slope,
    identical,
    local_exponent,
    log_range,
    masked_ols,
    per_x_matrix,
    percentile_fit,
    slope_se,
    studentized_fit,
    suffix_exponents,
)

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
    "status",
    "verdict",
    "note",
    "x_min",
    "x_max",
    "bound_ratio",
    "floor_level",
    "reps",
    "claim",
    "role",
]

#: The values of the ``status`` column, in the order they are tested (the first that
#: applies wins): no data; the curve never drops clearly below the trivial predictor (tested
#: before the next, so a curve that does not learn is never hidden behind a vacuous bound); the
#: bound is above the trivial predictor's value over the whole range (it says nothing); fewer
#: than 3 points to fit a slope on; a slope fitted (the only status with a slope).
STATUSES = ("no_points", "at_chance", "vacuous_bound", "too_few_points", "ok")


def theory_row(**values: object) -> dict[str, object]:
    """A theory-check row with every column of :data:`THEORY_COLUMNS` (missing → NaN/None)."""
    extra = set(values) - set(THEORY_COLUMNS)
    if extra:
        raise KeyError(f"not theory-check columns: {sorted(extra)}")
    row = dict.fromkeys(THEORY_COLUMNS)
    row.update(values)
    if row["verdict"] is None and row["status"] == "no_points":
        row["verdict"] = "too_few_points"
    cells, above = row.get("cells"), row.get("cells_above_bound")
    if cells and above is not None:
        row["share_above_bound"] = above / cells
    return row


# --------------------------------------------------------------------------- curves

#: Columns that identify a setting, besides the learner: the distribution (its id and
#: parameters), privacy, and the learner's own parameters (``lp_*``, see
#: :func:`with_learner_params`). A curve never pools rows that differ in one of them.
PROBLEM_COLUMNS = ("problem", "d", "k", "l", "r", "s", "rho", "noise", "p", "skew", "gap", "monotone", "kind", "order", "domain", "n_features")
PRIVACY_COLUMNS = ("epsilon", "delta")


def with_learner_params(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with one ``lp_<name>`` column per learner parameter, read from ``cell_key``
    (the results schema records learner parameters only there). Learners without the
    parameter get None."""
    import json

    if "cell_key" not in df or df.empty or any(c.startswith("lp_") for c in df.columns):
        return df
    parsed = {key: json.loads(key).get("learner_params", {}) for key in df["cell_key"].dropna().unique()}
    names = sorted({name for params in parsed.values() for name in params})
    if not names:
        return df
    out = df.copy()
    for name in names:
        lookup = {key: params.get(name) for key, params in parsed.items()}
        out[f"lp_{name}"] = out["cell_key"].map(lookup)
    return out


def varying_identity(df: pd.DataFrame, *, exclude: Sequence[str] = ()) -> list[str]:
    """The identity columns (problem parameters, ε, δ, learner parameters ``lp_*``) whose
    value differs between rows of the same learner, in a fixed order. ``problem_id`` is
    added when two distributions differ in nothing that is recorded as a column."""
    df = with_learner_params(df)
    candidates = [c for c in (*PROBLEM_COLUMNS, *PRIVACY_COLUMNS) if c in df] + sorted(c for c in df if c.startswith("lp_"))
    candidates = [c for c in candidates if c not in exclude]
    # distinct values per learner, compared as text (NaN, None and mixed types alike)
    codes = pd.DataFrame({c: _text_codes(df[c]) for c in candidates}, index=df.index)
    distinct = codes.groupby(df["learner"].to_numpy(), sort=False).nunique(dropna=False)
    varying = [c for c in candidates if (distinct[c] > 1).any()]
    if "problem_id" in df and "problem_id" not in exclude:
        shown = [c for c in varying if c in PROBLEM_COLUMNS]
        per_problem = df.groupby("problem_id", sort=False)
        if per_problem.ngroups > 1 and (not shown or df.drop_duplicates(shown).shape[0] < per_problem.ngroups):
            varying.append("problem_id")
    return varying


def _text_codes(col: pd.Series) -> npt.NDArray:
    """Values equal exactly where ``col.astype(str)`` is equal, without writing every value
    as text (the slow part of :func:`varying_identity` on a wide frame): a NumPy float column's
    bits with every NaN given one code (its text is "nan" whatever the payload; distinct floats
    have distinct text, −0.0 and 0.0 included), a NumPy integer or boolean column itself
    (its text is one-to-one), any other column (strings, objects, nullable types) its text."""
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iub":
        return col.to_numpy()
    if isinstance(col.dtype, np.dtype) and col.dtype == np.float64:
        values = col.to_numpy()
        bits = values.view(np.int64).copy()
        bits[np.isnan(values)] = np.array([np.nan]).view(np.int64)[0]
        return bits
    return col.astype(str).to_numpy()


def _fmt(value: object) -> str:
    if isinstance(value, float | np.floating):
        return "∞" if math.isinf(value) else f"{value:g}"
    return str(value)


_SYMBOL = {"epsilon": "ε", "delta": "δ", "rho": "ρ", "n_features": "|F|"}


def setting_label(values: dict[str, object]) -> str:
    """Readable label of a setting: ``"ε = 0.1, noise = 0.05"`` (learner parameters without
    their ``lp_`` prefix)."""
    parts = []
    for col, value in values.items():
        name = _SYMBOL.get(col, col.removeprefix("lp_"))
        parts.append(f"{name} = {_fmt(value)}")
    return ", ".join(parts)


@dataclass(frozen=True)
class Curve:
    """The rows of one learner in one setting: ``key`` holds the value of every identity
    column that varies in the results (:func:`varying_identity`), ``label`` says it in words,
    ``row`` is a representative row (problem parameters, recorded calibrations)."""

    learner: str
    key: dict
    rows: pd.DataFrame

    @property
    def label(self) -> str:
        setting = setting_label(self.key)
        return f"{self.learner} ({setting})" if setting else self.learner

    @functools.cached_property
    def row(self) -> pd.Series:
        """The first row (read, never modified): taken once per curve, as ``iloc`` on a
        wide frame of mixed types builds a Series each time (the theory checks and figures
        ask for it many times per curve)."""
        return self.rows.iloc[0]


def curves(df: pd.DataFrame, *, exclude: Sequence[str] = (), ok_only: bool = True) -> list[Curve]:
    """Split results into curves: one per learner and value of every varying identity column
    (minus ``exclude``, e.g. a column that is the x-axis), status ``ok`` rows only by
    default, in legend order of the learners."""
    df = with_learner_params(df)
    if ok_only and "status" in df:
        df = df[df["status"] == "ok"]
    if df.empty:
        return []
    by = varying_identity(df, exclude=exclude)
    out = []
    for key, group in df.groupby(["learner", *by], sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        values = {
            c: (v.item() if isinstance(v, np.generic) else v)
            for c, v in zip(by, key[1:])
            if not (c.startswith("lp_") and (v is None or (isinstance(v, float) and math.isnan(v))))  # not this learner's
        }
        out.append(Curve(learner=key[0], key=values, rows=group))
    return out


# --------------------------------------------------------------------------- slopes on repetitions


# --------------------------------------------------------------------------- bound checks, regime, status, verdict


def bound_check(
    rows: pd.DataFrame, bound: Callable[[npt.NDArray], npt.ArrayLike], *, x: str, y: str = "error", holds_with: float = 1.0,
    shared: dict | None = None,
) -> tuple[int, int]:
    """``(cells, cells above the bound)`` of one curve.

    Per value of ``x`` the statistic compared with ``bound(x)`` is the maximum over
    repetitions for a deterministic bound (``holds_with = 1``), else the empirical
    ``holds_with``-quantile (a bound holding with probability ``1 − cβ`` is checked at
    ``holds_with = 1 − cβ``). A bound on the expectation (``holds_with = "mean"``) is checked
    on the mean over repetitions less two standard errors: a cell is above it only when the
    data are significantly above. Cells where the bound is NaN or infinite are not counted.
    ``shared``: one dict passed to this and :func:`bound_ratio` on the same rows and bound, so
    the per-x statistics and the bound are computed once."""
    stat, b = _bound_stat(rows, bound, x=x, y=y, holds_with=holds_with, lower=True, shared=shared)
    finite = np.isfinite(b)
    return int(finite.sum()), int((stat.to_numpy()[finite] > b[finite]).sum())


def _bound_stat(rows: pd.DataFrame, bound, *, x: str, y: str, holds_with: float | str,
                lower: bool = False, shared: dict | None = None) -> tuple[pd.Series, npt.NDArray]:
    """Per x: the statistic a bound is checked on (:func:`bound_check`; ``lower``: for an
    expectation bound, the mean less two standard errors, else the mean) and the bound
    (kept in ``shared``, when given, for the next call on the same rows and bound)."""
    key = (x, y, holds_with, lower and holds_with == "mean")
    if shared is not None and key in shared:
        return shared[key]
    per_x = rows.groupby(x)[y]
    if holds_with == "mean":
        stat = per_x.mean() - (2 * per_x.sem().fillna(0.0) if lower else 0.0)
    elif isinstance(holds_with, str) or not 0 < holds_with <= 1:
        raise ValueError(f"holds_with must be in (0, 1] or 'mean', got {holds_with!r}")
    else:
        stat = per_x.max() if holds_with == 1 else per_x.quantile(holds_with)
    b = np.broadcast_to(np.asarray(bound(stat.index.to_numpy(dtype=float)), dtype=float), stat.shape)
    if shared is not None:
        shared[key] = (stat, b)
    return stat, b


def bound_ratio(rows: pd.DataFrame, bound, *, x: str, y: str, holds_with: float | str, within: npt.ArrayLike,
                shared: dict | None = None) -> float:
    """The largest ratio (statistic of :func:`bound_check`; the mean for an expectation bound)
    / bound over the values of ``x`` in ``within`` (the regime): how close the data come to the
    bound (≤ 1 where it holds; 1/ratio is how loose the theorem is there). NaN without a finite
    positive bound."""
    stat, b = _bound_stat(rows, bound, x=x, y=y, holds_with=holds_with, shared=shared)
    keep = np.isin(stat.index.to_numpy(dtype=float), np.asarray(within, dtype=float)) & np.isfinite(b) & (b > 0)
    return float(np.max(stat.to_numpy()[keep] / b[keep])) if keep.any() else math.nan


@dataclass(frozen=True)
class RegimeFit:
    """A slope fitted on a curve's regime (:mod:`dpbench.theory_check.verdict`), the regime chosen again
    inside every bootstrap resample: ``fit`` (its x range is the full-data regime's),
    ``xs`` the curve's grid, ``regime`` the full-data regime over ``xs``, ``floor_from`` the
    index of the first floor point (``len(xs)`` if none) and ``floor_level`` the mean of
    its means, ``learned`` whether some mean is ≤ margin·trivial, ``reps`` the repetitions seen
    at every x (paired)."""

    fit: SlopeFit
    xs: npt.NDArray
    regime: npt.NDArray
    floor_from: int
    floor_level: float
    learned: bool
    reps: int
    #: the floor was seen being approached (local slopes flattening, verdict.approach_start)
    approached: bool = False

    @property
    def on_floor(self) -> bool:
        """The curve learns, a floor was found, and fewer than 3 regime points remain."""
        return self.floor_from < len(self.xs) and self.learned and int(self.regime.sum()) < 3


def fit_regime(
    x: npt.ArrayLike, y: npt.ArrayLike, reps: npt.ArrayLike, *, trivial: float | None, rate=None,
    margin: float | None = None, confidence: float = 0.95, n_boot: int = 2000, seed: int = 0,
    counts: npt.ArrayLike | None = None, predicted: float | None = None,
) -> RegimeFit:
    """Log–log slope of the mean of ``y`` in ``x`` over the curve's regime (learning,
    above its floor, contiguous: :func:`dpbench.theory_check.verdict.regime_masks`), with a symmetric
    studentised bootstrap interval over repetitions (:func:`dpbench.theory_check.fit.studentized_fit`)
    in which every resample chooses its own regime and floor (the interval includes the
    choice). ``rate`` (the theory's curve, or None) decides where a plateau counts as a floor
    (where the theory predicts a decay); a floor still being approached
    (:func:`dpbench.theory_check.verdict.approach_start`) is judged against ``predicted`` (the
    theory's exponent; None: the local exponent of ``rate`` over the grid). ``counts`` (online
    curves: the cumulative count of which ``y`` is the rate, aligned with ``x``): the regime
    starts after the last window in which a repetition's incremental rate exceeds
    margin·trivial (:func:`dpbench.theory_check.verdict.window_starts`), again in every resample. No
    interval with fewer than :data:`dpbench.theory_check.verdict.MIN_REPS` repetitions."""
    margin = V.MARGIN if margin is None else margin
    xs, Y = per_x_matrix(x, y, reps)
    keep = xs > 0
    xs, Y = xs[keep], Y[keep]
    C = None
    if counts is not None:
        _, C = per_x_matrix(x, counts, reps)
        C = C[keep]
    if Y.size:
        seen = np.all(np.isfinite(Y), axis=0) & (np.all(np.isfinite(C), axis=0) if C is not None else True)
        Y = Y[:, seen]
        C = C[:, seen] if C is not None else None
    else:
        Y = Y.reshape(len(xs), 0)
    m, R = Y.shape
    if m == 0 or R == 0:
        empty = SlopeFit(math.nan, math.nan, math.nan, 0, math.nan, math.nan)
        return RegimeFit(empty, xs, np.zeros(m, dtype=bool), m, math.nan, False, R)
    lx = np.log(xs)
    mean = Y.mean(axis=1)
    if callable(trivial):  # a trivial level that varies along x (uniform play's regret against k)
        trivial = np.asarray(trivial(xs), dtype=float)
    trivial = trivial if trivial is not None and np.all(np.isfinite(trivial)) else None
    decays = _theory_decays(xs, rate)
    if predicted is None:
        predicted = _theory_exponent(xs, rate)
    det = V.deterministic_floor(Y)
    starts = V.window_starts(xs, C, margin * trivial) if C is not None and trivial is not None else None
    start = None if starts is None else np.array([starts.max()])
    at_floor = np.mean(Y == Y[-1, 0], axis=1) > 0.5 if det < m else None  # most repetitions on the design's floor value
    det_level = float(Y[-1, 0]) if det < m else None

    def choose(means, floor_from, begin):
        """The regime and floor of each row of ``means``: plateau/deterministic floor first,
        then a floor being approached on the remaining regime (verdict.approach_start)."""
        w = V.regime_masks(means, trivial=trivial, floor_from=floor_from, margin=margin, start=begin, at_floor=at_floor, level=det_level)
        near = V.approach_start(lx, means, w, predicted, decays)
        moved = near < floor_from
        if moved.any():
            floor_from = np.minimum(floor_from, near)
            w = V.regime_masks(means, trivial=trivial, floor_from=floor_from, margin=margin, start=begin, at_floor=at_floor, level=det_level)
        return w, floor_from, moved

    floor0 = np.array([int(min(det, V.plateau_start(lx, mean[None, :], decays)[0]))])
    w0, floor0, moved0 = choose(mean[None, :], floor0, start)
    regime, floor_from, approached = w0[0], int(floor0[0]), bool(moved0[0])
    learned = bool(np.any(mean <= margin * trivial)) if trivial is not None else True
    floor_level = det_level if det_level is not None else float(V.floor_levels(mean[None, :], np.array([floor_from]))[0])
    pts = int(regime.sum())
    if pts < 3:
        fit = SlopeFit(math.nan, math.nan, math.nan, pts, *log_range(xs[regime]))
        return RegimeFit(fit, xs, regime, floor_from, floor_level, learned, R, approached)
    with np.errstate(divide="ignore"):
        slope = float(masked_ols(lx, np.log(np.where(regime, mean, 1.0)), regime.astype(float)))
    if R > 1 and identical(Y):
        return RegimeFit(SlopeFit(slope, slope, slope, pts, *log_range(xs[regime]), exact=True), xs, regime, floor_from, floor_level, learned, 1, approached)
    if R < V.MIN_REPS:
        fit = SlopeFit(slope, math.nan, math.nan, pts, *log_range(xs[regime]), no_interval=f"{R} repetition(s); an interval needs ≥ {V.MIN_REPS}")
        return RegimeFit(fit, xs, regime, floor_from, floor_level, learned, R, approached)
    idx = np.random.default_rng(seed).integers(0, R, size=(n_boot, R))
    Yb = np.moveaxis(Y[:, idx], 1, 0)  # (n_boot, m, R)
    boot = Yb.mean(axis=2)  # (n_boot, m)
    boot_floor = np.minimum(det, V.plateau_start(lx, boot, decays))
    boot_start = None if starts is None else starts[idx].max(axis=1)
    w, _, _ = choose(boot, boot_floor, boot_start)
    w = w.astype(float)
    with np.errstate(divide="ignore"):
        slopes = masked_ols(lx[None, :], np.log(np.where(w > 0, boot, 1.0)), w)
    se = float(slope_se(lx, Y, regime.astype(float)))
    ses = slope_se(lx, Yb, w, ybar=boot)
    fit = studentized_fit(slope, se, slopes, ses, w, n_boot, confidence, pts, xs[regime], points="points in the regime")
    return RegimeFit(fit, xs, regime, floor_from, floor_level, learned, R, approached)


def _theory_exponent(xs: npt.NDArray, rate) -> float:
    """The theory's local exponent over the grid points where it is defined (NaN: none)."""
    if rate is None or len(xs) < 2:
        return math.nan
    with np.errstate(all="ignore"):
        ry = np.broadcast_to(np.asarray(rate(xs), dtype=float), xs.shape)
    ok = np.isfinite(ry) & (ry > 0)
    return local_exponent(xs[ok], ry[ok]) if ok.sum() >= 2 else math.nan


def _theory_decays(xs: npt.NDArray, rate) -> npt.NDArray | None:
    """Per grid index i: does the theory's curve fall over x_i … x_max with a local exponent
    steeper than −2·V.FLOOR_SLOPE (so a plateau there is a floor, not the prediction)? None
    without a theory (every plateau is a floor)."""
    if rate is None or len(xs) < 2:
        return None
    with np.errstate(all="ignore"):
        ry = np.broadcast_to(np.asarray(rate(xs), dtype=float), xs.shape)
    e = suffix_exponents(xs, ry)  # local_exponent(xs[i:], ry[i:]) for every i
    with np.errstate(invalid="ignore"):
        return np.append(~np.isfinite(e) | (e < -2 * V.FLOOR_SLOPE), True)


def late_window_rate(rows: pd.DataFrame, *, t: str = "t", count: str = "mistakes") -> npt.NDArray:
    """Per repetition of an online curve: the rate of ``count`` per round over the last
    checkpoint interval of the stream (from the previous checkpoint to the end; the last
    37 % of the rounds at 5 checkpoints per decade) — what the learner does late, which the
    cumulative ``count/t`` averages with its first rounds."""
    if "T" in rows and len(rows):
        rows = rows[rows["T"] == rows["T"].max()]  # one stream per repetition
    rows = rows[rows["rep"].notna()]
    if not len(rows):
        return np.asarray([], dtype=float)
    ts, cs = rows[t].to_numpy(dtype=float), rows[count].to_numpy(dtype=float)
    _, group = np.unique(rows["rep"].to_numpy(), return_inverse=True)  # repetitions in sorted order
    # the order of rows.sort_values(t).groupby("rep"): by t (quicksort, NaN last), then
    # stably by repetition — without a DataFrame per repetition
    finite = np.flatnonzero(~np.isnan(ts))
    by_t = np.concatenate([finite[ts[finite].argsort(kind="quicksort")], np.flatnonzero(np.isnan(ts))])
    order = by_t[np.argsort(group[by_t], kind="stable")]
    ts, cs, group = ts[order], cs[order], group[order]
    last = np.append(np.flatnonzero(np.diff(group)), len(group) - 1)  # each repetition's last checkpoint
    two = last > np.append(0, last[:-1] + 1)  # it has an earlier checkpoint
    t0 = np.where(two, ts[last - 1], 0.0)
    c0 = np.where(two, cs[last - 1], 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ts[last] > t0, (cs[last] - c0) / (ts[last] - t0), math.nan)


def curve_status(
    *, n_values: int, fit: SlopeFit | None, trivial: float | None = None, learned: bool = True,
    bound_vacuous: bool = False, regime: bool = False,
) -> tuple[str, str]:
    """``(status, note)`` of one curve, the first of :data:`STATUSES` that applies (data
    sufficiency; whether the slope agrees with the theory is the verdict). ``regime``: the
    slope was fitted on a regime chosen in every resample (:func:`fit_regime`; n* and
    fixed-range slopes have none)."""
    if n_values == 0:
        return "no_points", "no status-ok rows for this curve"
    vacuous = f"the bound is above the trivial predictor's value ({trivial:.3g}) over the whole range: it says nothing here" if bound_vacuous else ""
    if trivial is not None and not learned:
        chance = f"the curve never drops clearly below the trivial predictor's value ({trivial:.3g}): no learning on this grid"
        return "at_chance", "; ".join(filter(None, [chance, vacuous]))
    if bound_vacuous:
        return "vacuous_bound", vacuous
    if fit is None or not np.isfinite(fit.slope):
        m = 0 if fit is None else fit.n_points
        return "too_few_points", f"{m} point(s) in the learning regime; a slope needs ≥ 3"
    chosen = ", regime chosen in every resample" if regime else ""
    ci = f"no interval ({fit.no_interval or 'too few repetitions'})" if not np.isfinite(fit.low) else "exact slope" if fit.exact else f"95% bootstrap CI [{fit.low:.2f}, {fit.high:.2f}] over repetitions{chosen}"
    return "ok", f"slope fitted on {fit.n_points} points, x in [{fit.x_min:g}, {fit.x_max:g}]; {ci}"


def judged_row(
    fit: SlopeFit, *, status: str, note: str, exponent: float, reps: int, reconstructed: bool = False,
    vacuous: bool = False, at_chance: bool = False, on_floor: bool = False, has_data: bool = True, theory_given: bool = False,
    shape_why: str = "", **values,
) -> dict[str, object]:
    """A theory-check row with its verdict (:func:`dpbench.theory_check.verdict.verdict`) and the fit's
    columns; ``values`` are the other columns (experiment, learner, regime, x, y, …). A proven
    bound (``bound_kind`` ``bound``) checked at ``cells`` cells decides the row where the slope
    does not (``bound_holds``) and contradicts it where a cell lies above (``violated``);
    ``claim`` (default ``upper`` with a theory, see :data:`dpbench.theory_check.verdict.CLAIMS`)
    says whether a slope that excludes the exponent is a contradiction. ``shape_why``: why no
    bound with constants can be stated (the note of a ``shape_only`` row)."""
    if fit.exact:
        reps = 1
    cells = values.get("cells")
    above = values.get("cells_above_bound")
    proven = values.get("bound_kind") == "bound" and cells is not None and not reconstructed
    cells_n = int(cells) if proven and cells == cells else 0
    above_n = int(above) if proven and above is not None and above == above else 0
    verdict = V.verdict(
        n_points=fit.n_points, has_data=has_data, vacuous=vacuous, at_chance=at_chance, on_floor=on_floor,
        reps=V.MIN_REPS if fit.exact else reps, exponent=exponent, low=fit.low, high=fit.high, reconstructed=reconstructed, slope=fit.slope,
        theory_given=theory_given, bound_cells=cells_n, above=above_n,
    )
    if values.get("claim") is None:
        values["claim"] = "upper" if theory_given else None
    extra = V.endpoint_note(fit.slope, fit.low, fit.high)
    if fit.exact:
        extra = ("every repetition gave identical values (a deterministic curve): counted as 1 repetition, the slope is "
                 "exact (no sampling error, a zero-width interval)")
    if verdict == "theory_silent":
        extra = "; ".join(filter(None, [extra, "the theory is undefined over this curve's range: no exponent to compare (measured slope kept)"]))
    if verdict == "shape_only":
        why = shape_why or "the source states only an O(·) rate and its constants are lost"
        extra = "; ".join(filter(None, [extra, f"no bound with constants can be stated ({why}): a shape comparison, never 'agrees'"]))
    ratio = values.get("bound_ratio")
    ratio_text = f"; largest statistic/bound ratio {ratio:.2g}" if ratio is not None and ratio == ratio else ""
    if verdict == "violated":
        extra = "; ".join(filter(None, [extra, f"{above_n} of {cells_n} cell(s) above the proven bound: a contradiction"]))
    elif proven and cells_n and verdict not in ("at_chance", "vacuous_bound", "too_few_points"):
        holds = f"the proven bound holds at all {cells_n} cell(s){ratio_text}"
        if verdict in ("steeper", "shallower"):
            holds += (f"; the slope is {verdict} than the bound's exponent — a description, not a contradiction: an upper "
                      "bound's exponent is not the typical rate")
        elif verdict == "bound_holds" and np.isfinite(fit.slope) and np.isfinite(exponent) and np.isfinite(fit.low):
            holds += "; the slope's interval neither agrees with nor excludes the bound's exponent"
        extra = "; ".join(filter(None, [extra, holds]))
    if verdict in ("steeper", "shallower") and not proven and values.get("claim") == "upper":
        extra = "; ".join(filter(None, [extra, f"{verdict} than an upper bound's shape: a description, not a contradiction (no constants to check it against)"]))
    if verdict in ("steeper", "shallower") and values.get("claim") == "tight":
        extra = "; ".join(filter(None, [extra, "the theorem states this rate as tight: the interval excluding it contradicts it"]))
    return theory_row(
        fitted_slope=fit.slope, slope_ci_low=fit.low, slope_ci_high=fit.high, theory_exponent=exponent,
        n_points=fit.n_points, status=status, verdict=verdict, note="; ".join(filter(None, [note, extra])),
        x_min=fit.x_min, x_max=fit.x_max, reps=reps, **values,
    )


def slope_row(fit: SlopeFit, *, reps: int, exponent: float = math.nan, note_suffix: str = "", **values) -> dict[str, object]:
    """The judged row of a slope fitted without a regime (:func:`fit_slope`: timings, FTL's
    flat regret): status and verdict from the fit alone."""
    status, note = curve_status(n_values=reps, fit=fit)
    return judged_row(fit, status=status, note=note + note_suffix, exponent=exponent, reps=reps, has_data=reps > 0, **values)


def check_curve(
    curve: Curve,
    *,
    experiment: str,
    x: str,
    y: str = "error",
    rate: Callable[[npt.NDArray], npt.ArrayLike | None] | None = None,
    kind: str = "shape",
    trivial: float | None = None,
    learning_starts: float | None = None,
    holds_with: float | str = 1.0,
    exponent: float | None = None,
    regime: str | None = None,
    fraction: float = 0.5,
    late: npt.ArrayLike | dict | None = None,
    reconstructed: bool = False,
    counts: str | None = None,
    claim: str | None = None,
    shape_why: str = "",
) -> dict[str, object] | None:
    """The theory-check row of one curve; None for a curve with fewer than 3 grid values of
    ``x`` (no slope row is emitted for it: callers drop it).

    Parameters
    ----------
    curve
        From :func:`curves`.
    x, y
        The size column (``n``, ``T``, ``t``) and the metric.
    rate
        ``rate(x_values) -> y_values`` of the theory for this curve (its setting is in
        ``curve.row``), or None. Its local log–log slope over the fitted range is the
        ``theory_exponent`` (unless ``exponent`` is given).
    kind
        ``"bound"`` (a proven bound: cells above it are counted, ``bound_ratio`` is the
        largest statistic/bound ratio in the regime), ``"shape"`` (an O(·) rate with unit
        constants: drawn, never counted) or ``"none"``.
    trivial
        The metric of the trivial predictor (majority label, ½ mistake per round, …): the
        regime is where the curve is at most ``fraction·trivial`` (:mod:`dpbench.theory_check.verdict`),
        and a curve that never gets there is ``at_chance``. None: no such check, the regime
        is where the curve is at most half its largest value.
    learning_starts
        The x from which the theory says learning starts; points before it are not fitted.
    holds_with
        Level of the bound check (:func:`bound_check`): 1 for a deterministic bound, 1 − cβ
        for one that holds with that probability, ``"mean"`` for a bound on the expectation.
    late
        Per repetition, the curve's late-window value (:func:`late_window_rate`), or a dict
        of such arrays per x — online curves: at-chance is decided on it (the curve learns
        if the lowest mean is at most ``fraction·trivial``), not on the cumulative metric.
    reconstructed
        The theory is a reconstruction whose constants the source lost: the verdict is
        ``shape_only`` wherever a slope is fitted.
    counts
        Online curves: the column of the cumulative count whose rate is ``y`` (``mistakes``
        for ``mistake_rate``). The regime then starts after the last checkpoint window in
        which some repetition's incremental rate exceeds ``fraction·trivial``
        (:func:`dpbench.theory_check.verdict.window_starts`), not where the cumulative rate first dips.
    claim
        What the formula claims (:data:`dpbench.theory_check.verdict.CLAIMS`; default ``upper``).
    shape_why
        Why no bound with constants can be stated (``reconstructed``): the ``shape_only`` note.
    """
    rows = curve.rows
    if len(rows) and rows[x].nunique() < 3:
        return None
    rate = _once_per_grid(rate) if rate is not None else None
    values = rows[np.isfinite(rows[y].astype(float))] if len(rows) else rows
    if learning_starts is not None and np.isfinite(learning_starts) and len(values):
        values = values[values[x].astype(float) >= learning_starts]
    trivial_at = trivial if callable(trivial) else None  # varies along x: judged point by point
    if trivial_at is not None and len(values):
        trivial = float(np.max(np.asarray(trivial_at(np.unique(values[x].to_numpy(dtype=float))), dtype=float)))
    trivial = float(trivial) if trivial is not None and np.isfinite(trivial) else None
    defined_note = ""
    if rate is not None and exponent is None and len(values):
        # fit only where the theory is defined (a rate that is NaN below its n₀ would otherwise
        # give an exponent over part of the fitted range); undefined everywhere: theory_silent
        grid = np.unique(values[x].to_numpy(dtype=float))
        with np.errstate(all="ignore"):
            ry = np.broadcast_to(np.asarray(rate(grid), dtype=float), grid.shape)
        defined = np.isfinite(ry) & (ry > 0)
        if defined.any() and not defined.all():
            values = values[np.isin(values[x].to_numpy(dtype=float), grid[defined])]
            defined_note = (f"; fitted only where the theory is defined ({x} in [{grid[defined].min():g}, {grid[defined].max():g}]; "
                            f"undefined at {int((~defined).sum())} of {len(grid)} grid points)")
    cnt = values[counts] if counts is not None and len(values) else None
    rf = (fit_regime(values[x], values[y], values["rep"], trivial=trivial_at or trivial, rate=rate, margin=fraction, counts=cnt, predicted=exponent)
          if len(values) else fit_regime([], [], [], trivial=trivial))
    fit, xs = rf.fit, rf.xs
    learned = rf.learned
    if late is not None and trivial is not None:
        per_x = late.values() if isinstance(late, dict) else [late]
        means = [float(np.nanmean(v)) for v in map(lambda v: np.asarray(v, dtype=float), per_x) if np.isfinite(v).any()]
        late_mean = min(means) if means else math.nan
        learned = bool(late_mean <= fraction * trivial)
    theory_exp, cells, above, vacuous, ratio = (math.nan if exponent is None else exponent), None, None, False, math.nan
    curve_x = rate(xs) if rate is not None and len(xs) else None
    if curve_x is not None:
        curve_x = np.broadcast_to(np.asarray(curve_x, dtype=float), xs.shape)
        level = np.asarray(trivial_at(xs), dtype=float) if trivial_at is not None else trivial
        if trivial is not None and kind == "bound":
            vacuous = bool(np.all(~np.isfinite(curve_x) | (curve_x >= level)))
        if exponent is None and np.isfinite(fit.x_min):
            span = np.geomspace(fit.x_min, fit.x_max, 16)
            theory_exp = local_exponent(span, rate(span))
        if kind == "bound":
            shared: dict = {}
            cells, above = bound_check(values, rate, x=x, y=y, holds_with=holds_with, shared=shared)
            within = xs[rf.regime]
            if not len(within):  # no regime: how far below the bound the data sit where it says something
                informative = np.isfinite(curve_x) & ((curve_x < level) if trivial is not None else True)
                within = xs[informative]
            ratio = bound_ratio(values, rate, x=x, y=y, holds_with=holds_with, within=within, shared=shared)
    status, note = curve_status(n_values=len(values), fit=fit, trivial=trivial, learned=learned, bound_vacuous=vacuous, regime=True)
    if late is not None and trivial is not None:
        note += f"; at-chance judged on the late-window rate ({late_mean:.3g} against {trivial:.3g})"
    note += defined_note
    if cnt is not None and trivial is not None:
        note += f"; regime starts after the last checkpoint window in which a repetition's {counts} per round exceed {fraction * trivial:.3g}"
    if rf.floor_from < len(xs):
        seen = (" being approached (local log–log slopes flattening toward 0: "
                + ", ".join(f"{v:.2g}" for v in _local_slopes(xs, values, x, y)) + ")") if rf.approached else ""
        note += f"; floor {rf.floor_level:.3g}{seen} from x = {xs[rf.floor_from]:g} (not fitted)"
    if kind == "bound" and cells is not None:
        level = ("mean over repetitions (a bound on the expectation; above it only if the mean less two "
                 "standard errors is)" if holds_with == "mean"
                 else "maximum over repetitions" if holds_with == 1 else f"{holds_with:g}-quantile over repetitions")
        note += f"; bound checked on the {level}"
    row = judged_row(
        fit, status=status, note=note, exponent=theory_exp, reps=rf.reps, reconstructed=reconstructed,
        vacuous=vacuous, at_chance=status == "at_chance", on_floor=rf.on_floor, has_data=len(values) > 0,
        theory_given=rate is not None or exponent is not None, experiment=experiment, learner=curve.learner, regime=regime or setting_label(curve.key) or "all", x=x, y=y,
        bound_kind=kind, cells=cells, cells_above_bound=above, bound_ratio=ratio, floor_level=rf.floor_level,
        claim=claim, shape_why=shape_why,
    )
    if holds_with == "mean" and np.isfinite(ratio) and ratio > 1 and not above and row["verdict"] != "violated":
        # the mean is above the expectation bound somewhere, within two standard errors: neither
        # held nor violated (the slope's description would read as agreement)
        row["verdict"] = "inconclusive"
        row["note"] += ("; the mean is above the expectation bound (ratio {:.3g}) but within two standard errors "
                        "at every cell: neither held nor violated").format(ratio)
    return row


def _once_per_grid(rate: Callable[[npt.NDArray], npt.ArrayLike | None]) -> Callable[[npt.NDArray], npt.ArrayLike | None]:
    """``rate`` evaluated once per distinct grid of x values: :func:`check_curve` asks for the
    theory on the same grid for the fitted range, the floor rule, the exponent and the bound
    check (a rate of a privacy calibration costs an accountant call per point)."""
    seen: dict[tuple, object] = {}

    def at(xs):
        xs = np.asarray(xs, dtype=float)
        key = (xs.shape, xs.tobytes())
        if key not in seen:
            seen[key] = rate(xs)
        return seen[key]

    return at


def _local_slopes(xs: npt.NDArray, values: pd.DataFrame, x: str, y: str) -> npt.NDArray:
    """Local log–log slopes of the mean curve between consecutive grid points (for notes)."""
    mean = values.groupby(x)[y].mean().reindex(xs).to_numpy(dtype=float)
    with np.errstate(all="ignore"):
        s = np.diff(np.log(mean)) / np.diff(np.log(xs))
    return s[np.isfinite(s)]
