"""Figure kinds shared by experiments, drawn with matplotlib in seaborn's style (panels: a
seaborn ``FacetGrid``; lines and bands: :func:`mean_lines`, seaborn's ``lineplot`` drawn directly).

- :func:`learning_curves`: a metric against a size axis (n, T, t), one panel per setting
  (ε and every other identity column that varies — never pooled), hue per learner, 95 %
  bootstrap bands over repetitions (none with < 5 repetitions), theory lines, the trivial
  predictor's level, where the theory says learning starts, exact zeros on the axis.
- :func:`sample_complexity_figure`: empirical n*(α) against ε per private learner (one
  panel per other setting), bootstrap bars, theory n(α, ε), fitted slope (bootstrap
  over repetitions) beside the theory exponent in the legend.

A recipe is a few lines: it passes rows and callables that ask :mod:`dpbench.theory` for the
curves of one setting (``theory(learner, row, xs) -> [TheoryLine]``, ``trivial(row) ->
float``), ``row`` being a results row that carries the setting's parameters and recorded
calibrations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpbench.plotting.captions import add_note
from dpbench.plotting.layout import (
    deferred_grid_layout,
    grid_shape,
    panel_size,
    place_legend,
    tidy_log_ticks,
    wrap_titles,
)
from dpbench.plotting.overlays import (
    _data_extent,
    draw_theory,
    draw_trivial,
    hide_undrawn,
    mark_learning_starts,
    mark_off_axis,
    place_edge_marks,
    register_entry,
    zero_handle,
)
from dpbench.plotting.style import (
    MARKER_SIZE,
    REFERENCE_GREY,
    color,
    learner_handle,
    marker,
    markers,
    order,
    palette,
    paper_style,
)
from dpbench.theory_check.analysis import setting_label, varying_identity, with_learner_params
from dpbench.theory_check.fit import bootstrap_mean_ci, local_exponent
from dpbench.theory_check.nstar import sample_complexity, sample_complexity_slope

if TYPE_CHECKING:
    from dpbench.plotting.overlays import TheoryLine

TheoryFn = Callable[[str, pd.Series, np.ndarray], "list[TheoryLine]"]  # overlays.TheoryLine
TrivialFn = Callable[[pd.Series], float]


def _panels(ok: pd.DataFrame, x: str) -> tuple[list[str], list[tuple[dict, pd.DataFrame]]]:
    """Panel columns (every varying identity column but learner parameters and ``x``) and,
    per panel, its rows: non-private rows (ε = ∞) join every ε/δ panel of their setting;
    a setting without a private learner gets a panel of its own."""
    ok = with_learner_params(ok)
    cols = [c for c in varying_identity(ok, exclude=(x,)) if not c.startswith("lp_")]
    if not cols:
        return cols, [({}, ok)]
    privacy = [c for c in cols if c in ("epsilon", "delta")]
    setting = [c for c in cols if c not in privacy]

    def records(frame: pd.DataFrame) -> list[dict]:
        return [{c: (v.item() if isinstance(v, np.generic) else v) for c, v in r.items()} for r in frame[cols].drop_duplicates().to_dict("records")]

    keys = records(ok[ok["private"]]) if privacy else records(ok)
    covered = {tuple(str(k[c]) for c in setting) for k in keys}
    keys += [k for k in records(ok[~ok["private"]]) if tuple(str(k[c]) for c in setting) not in covered]
    keys = list({tuple(str(k[c]) for c in cols): k for k in keys}.values())
    keys.sort(key=lambda k: tuple((isinstance(k[c], str), k[c] if not isinstance(k[c], str) else 0, str(k[c])) for c in setting + privacy))
    as_text = {c: ok[c].astype(str).to_numpy() for c in cols}
    public = ~ok["private"].to_numpy()
    out = []
    for key in keys:
        mask = np.ones(len(ok), dtype=bool)
        for c, v in key.items():
            same = as_text[c] == str(v)
            mask &= (same | public) if c in privacy else same
        out.append((key, ok[mask]))
    return cols, out


def learning_curves(
    df: pd.DataFrame,
    *,
    x: str = "n",
    y: str = "error",
    ylabel: str = "population error",
    xlabel: str | None = None,
    theory: TheoryFn | None = None,
    trivial: TrivialFn | None = None,
    trivial_label: str = "best constant predictor",
    zero_label: str = "mean exactly 0 (off the log axis)",
    min_reps_band: int = 5,
    title: str | None = None,
) -> plt.Figure:
    """Mean ``y`` against ``x`` per learner (hue) and setting (panel), log–log (:func:`mean_lines`), a
    band from a 95 % bootstrap over repetitions (:func:`_band`, fixed seed; none when a
    curve has fewer than ``min_reps_band`` repetitions), theory lines above the data, the
    trivial predictor's level in grey, triangles where the theory says learning starts, and
    means of exactly 0 as hollow markers on the lower axis (stacked where they would overlap,
    :func:`dpbench.plotting.overlays.place_edge_marks`). The shared y range holds the means,
    the bands and the chance levels. One legend, outside the data."""
    import seaborn as sns


    ok = df[df["status"] == "ok"]
    ok = ok[np.isfinite(ok[y].astype(float))]
    if ok.empty:
        raise ValueError(f"no status-ok rows with a finite {y!r} to draw")
    cols, panels = _panels(ok, x)
    panels = [(key, rows.assign(panel=setting_label(key) or "all", _line=_line_labels(rows))) for key, rows in panels]
    frames, zeros = [], []
    for _, rows in panels:
        means = rows.groupby(["_line", x])[y].transform("mean")
        zeros.append(rows[means <= 0].drop_duplicates(["_line", x]))
        frames.append(rows[means > 0])
    data = pd.concat(frames, ignore_index=True)
    panel_order = [setting_label(key) or "all" for key, _ in panels]
    learners = order(pd.concat([rows for _, rows in panels])["learner"].unique())
    line_kws = learner_line_style(data)
    reps = data.groupby(["panel", "_line", x])["rep"].nunique().min()
    n_rows, n_cols = grid_shape(len(panel_order))
    height, aspect = panel_size(n_cols)
    with paper_style():
        with deferred_grid_layout():
            g = sns.FacetGrid(data=data[["panel"]], col="panel", col_order=panel_order,
                              col_wrap=n_cols if len(panel_order) > 1 else None, height=height, aspect=aspect,
                              dropna=False, sharey=True, sharex=True)
        band = _band if reps >= min_reps_band else None
        colours, lines = palette(learners), list(dict.fromkeys(data["_line"]))
        for name, rows in data.groupby("panel", sort=False):
            mean_lines(g.axes_dict[name], rows, x=x, y=y, hue_order=learners, palette=colours, errorbar=band,
                       style_order=lines, **line_kws, markersize=MARKER_SIZE, markeredgewidth=0)
        g.set(xscale="log", yscale="log")
        g.set_titles("{col_name}" if len(panel_order) > 1 else "")
        g.set_axis_labels(xlabel or x, ylabel)
        colours, shapes = palette(learners), markers(learners)
        drawn = set(data["learner"])  # a learner whose means are all 0 has only its markers on the axis
        entries: dict = {(name if name in drawn else f"{name}: {zero_label}"):
                         (learner_handle(name, colours[name], shapes[name]) if name in drawn else zero_handle(colours[name]))
                         for name in learners}
        extra: dict = {}
        axes = [g.axes_dict[p] for p in panel_order]
        levels: list[float] = []
        for ax, (key, rows), zero in zip(axes, panels, zeros):
            level = trivial(rows.iloc[0]) if trivial is not None else None
            extra.update(draw_trivial(ax, level, trivial_label))
            if theory is not None:
                xs = np.geomspace(float(rows[x].min()), float(rows[x].max()), 96)
                lines = [line for _, r in rows.drop_duplicates("_line").iterrows() for line in theory(r["learner"], r, xs)]
                extra.update(draw_theory(ax, lines))
                extra.update(mark_learning_starts(ax, lines, level))
            for learner, z in zero.groupby("learner"):
                extra.update(mark_off_axis(ax, z[x], palette([learner])[learner], where="bottom", label=zero_label))
            if level is not None and np.isfinite(level):
                levels.append(level)
        means = data.groupby(["panel", "_line", x])[y].mean()
        drawn = np.array([_data_extent(ax) for ax in axes] + [_reference_extent(ax) for ax in axes])
        top = np.nanmax([means.max(), *levels, *drawn[:, 1]]) * 2
        bottom = np.nanmin([means.min() / 2, *(drawn[:, 0] / 1.2)])
        g.set(ylim=(bottom, min(1.0, top) if y == "error" else top))  # shared y: one range
        for ax in axes:
            tidy_log_ticks(ax)
        if title:
            g.figure.suptitle(title)
        wrap_titles(g.figure, axes)
        g.figure.tight_layout()
        place_edge_marks(g.figure)
        for ax in axes:
            tidy_log_ticks(ax)
        if reps >= min_reps_band:
            add_note(g.figure, BAND_NOTE)
        entries.update(extra)
        entries = hide_undrawn(g.figure, entries)
        place_legend(g.figure, axes, list(entries.values()), list(entries.keys()), n_panels=len(axes), cols=n_cols,
                     ncol=1 if len(axes) % n_cols else None)
    return g.figure


def learner_line_style(data: pd.DataFrame, line: str = "_line") -> dict:
    """seaborn's ``style=``, ``markers=`` and ``dashes=`` for lines of ``data`` (column
    ``learner``, and ``line``: the line of a panel, :func:`_line_labels`): every line takes its
    learner's marker (:func:`dpbench.plotting.style.markers`), and the lines of one learner
    (a learner parameter that varies) differ by their dash pattern."""

    pairs = data[["learner"]].assign(_name=data["learner"]) if line == "learner" else data[["learner", line]]
    pairs = pairs.drop_duplicates()
    shapes = markers(order(pairs["learner"].unique()))
    dashes, seen = {}, {}
    for learner, name in pairs.itertuples(index=False):
        i = seen[learner] = seen.get(learner, -1) + 1
        dashes[name] = "" if i == 0 else LINE_DASHES[(i - 1) % len(LINE_DASHES)]
    return {"style": line, "markers": {name: shapes[learner] for learner, name in pairs.itertuples(index=False)}, "dashes": dashes}


def mean_lines(ax, data: pd.DataFrame, *, x: str, y: str, hue_order, palette: dict, style: str, markers: dict,
               dashes: dict, errorbar: Callable | None = None, style_order=None, **kws) -> None:
    """The lines seaborn's ``lineplot(data, x=x, y=y, hue="learner", style=style, ...)`` draws
    into ``ax`` with these arguments (seaborn 0.13), drawn directly: per line (``hue_order``,
    then ``style_order``, default the ``style`` values in order of appearance), its rows sorted
    by ``x`` then ``y``, and, where some ``x`` has several rows, the mean of ``y`` per ``x`` and the interval ``errorbar(values)`` of each ``x``
    with ≥ 2 values (NaN otherwise) as a band (``fill_between``, the line's colour, alpha 0.2;
    none when ``errorbar`` is None); the line is ``ax.plot(x, mean, **kws)`` in its learner's
    ``palette`` colour with its ``markers`` and ``dashes`` (:func:`learner_line_style`).

    The same artists, in the same order, with the same numbers as seaborn's — the figures are
    unchanged — without its per-point pandas group-by (most of a figure's drawing time)."""
    data = data[data[x].notna() & data[y].notna()]
    learner, line = data["learner"].to_numpy(), data[style].to_numpy()
    xs, ys = data[x].to_numpy(float), data[y].to_numpy(float)
    kws = {"markeredgecolor": "w", **kws}
    for hue in hue_order:
        for name in style_order if style_order is not None else dict.fromkeys(line):
            mine = (learner == hue) & (line == name)
            if not mine.any():
                continue
            order = np.lexsort((ys[mine], xs[mine]))
            px, py = xs[mine][order], ys[mine][order]
            low = high = np.full(len(px), np.nan)
            at, start, count = np.unique(px, return_index=True, return_counts=True)
            if count.max() > 1:
                groups = [py[s : s + c] for s, c in zip(start, count)]
                px, py = at, np.array([g.mean() for g in groups])
                interval = [errorbar(g) if errorbar is not None and len(g) > 1 else (np.nan, np.nan) for g in groups]
                low, high = np.array(interval, dtype=float).reshape(-1, 2).T
            (artist,) = ax.plot(px, py, color=None, **kws)
            artist.set_color(palette[hue])
            artist.set_dashes(dashes[name])
            artist.set_marker(markers[name])
            if errorbar is not None:
                ax.fill_between(px, low, high, color=artist.get_color(), alpha=0.2)


#: Dash patterns of a learner's second, third… line in one panel (its first is solid).
LINE_DASHES = [(3, 1.5), (1, 1), (5, 1, 1, 1)]


def n_star_handle(learner: str, c, found, missing):
    """The legend sample of a learner's n* curve: its line and marker where some n* was
    found, else the hollow marker on the upper axis its ε (or |F|) beyond the grid get, else
    none (nothing of it is drawn)."""
    from matplotlib.lines import Line2D


    if len(found):
        return learner_handle(learner, c)
    return zero_handle(c, "top") if len(missing) else Line2D([], [], visible=False)


def draw_n_star(ax, found: pd.DataFrame, x: str, c, shape: str = "o") -> None:
    """Empirical n*(α) of the rows ``found`` (columns ``n_star, n_low, n_high``) against ``x``:
    a line with markers (``shape``: the learner's) and the bootstrap bars of
    :func:`dpbench.theory_check.nstar.sample_complexity` (n* interpolated per repetition)."""
    import seaborn as sns


    if not len(found):
        return
    xs = found[x].to_numpy(float)
    sns.lineplot(x=xs, y=found["n_star"].to_numpy(float), color=c, marker=shape, ms=MARKER_SIZE, mew=0, ax=ax, lw=1.2, zorder=3)
    yerr = np.vstack([found["n_star"] - found["n_low"], found["n_high"] - found["n_star"]])
    ax.errorbar(xs, found["n_star"], yerr=np.nan_to_num(np.abs(yerr)), fmt="none", ecolor=c, elinewidth=0.8, capsize=2, zorder=3)


#: The bands' bootstrap resamples, per number of repetitions (fixed seed: the same indices
#: for every point with that many values, drawn once per process).
_BAND_DRAWS: dict[int, np.ndarray] = {}


def _band(values) -> tuple[float, float]:
    """``errorbar=`` callable (:func:`mean_lines`, seaborn): the 95 % percentile bootstrap interval of the mean over
    repetitions (:func:`dpbench.theory_check.analysis.bootstrap_mean_ci`, fixed seed, vectorised — seaborn's
    own ``("ci", 95)`` resamples group by group in Python, ~30 ms a point). On a log axis the
    band is drawn only where its lower end is positive: at a point where it is ≤ 0 (enough
    repetitions at exactly 0) the interval is NaN and the band leaves a gap, instead of
    filling the panel down to the axis (:data:`BAND_NOTE` says so in the caption)."""
    _, low, high = bootstrap_mean_ci(values, n_boot=1000, draws=_BAND_DRAWS)
    if not low > 0:
        return np.nan, np.nan
    return low, high


#: What a band means, for the captions of figures that draw one (:func:`dpbench.reporting.pipeline.figure_caption`).
BAND_NOTE = ("Bands: 95 % percentile bootstrap interval of the mean over repetitions; where the "
             "interval's lower end is 0 (enough repetitions at exactly 0) it has no place on the log "
             "axis and the band is left out there.")


def _reference_extent(ax) -> tuple[float, float]:
    """Smallest and largest positive y of the reference (chance-level) curves drawn in ``ax``
    (lines in :data:`dpbench.plotting.style.REFERENCE_GREY`): the axes show them whole."""

    ys = [np.asarray(l.get_ydata(), dtype=float) for l in ax.get_lines() if l.get_color() == REFERENCE_GREY and l.get_transform() == ax.transData]
    y = np.concatenate(ys) if ys else np.array([])
    y = y[np.isfinite(y) & (y > 0)]
    return (float(y.min()), float(y.max())) if len(y) else (np.nan, np.nan)


def _line_labels(rows: pd.DataFrame) -> list[str]:
    """Per row: its learner and any learner parameter that varies (the line of a panel)."""
    lp = [c for c in rows.columns if c.startswith("lp_") and rows[c].astype(str).nunique() > 1]
    if not lp:
        return rows["learner"].tolist()
    return [f"{learner} ({setting_label({c: v for c, v in zip(lp, vals)})})" for learner, *vals in rows[["learner", *lp]].itertuples(index=False)]


def sample_complexity_figure(
    df: pd.DataFrame,
    *,
    alpha: float,
    beta: float,
    theory: TheoryFn | None = None,
    size: str = "n",
    title: str | None = None,
) -> plt.Figure:
    """Empirical n*(α) against ε per private learner (:func:`dpbench.theory_check.analysis.sample_complexity`,
    bootstrap bars), one panel per other varying setting; non-private learners' n* as
    horizontal lines; an ε where the grid never reaches α as a hollow marker on the upper
    axis; ``theory(learner, row, eps) -> [TheoryLine]`` gives n(α, ε). The legend gives each
    learner's slope (bootstrap over repetitions) beside the theory's local exponent."""


    ok = with_learner_params(df[df["status"] == "ok"])
    settings = [c for c in varying_identity(ok, exclude=("epsilon", "delta", size)) if not c.startswith("lp_")]
    with_private = ok[ok["private"] & np.isfinite(ok["epsilon"])]
    keys = (with_private if len(with_private) else ok)[settings].drop_duplicates().to_dict("records") if settings else [{}]
    n_rows, n_cols = grid_shape(len(keys))
    height, aspect = panel_size(n_cols, height=2.2)
    with paper_style():
        fig, axes = plt.subplots(n_rows, n_cols, figsize=(height * aspect * n_cols, height * n_rows), squeeze=False)
        axes = list(axes.flat)
        for ax in axes[len(keys):]:
            fig.delaxes(ax)
        axes = axes[: len(keys)]
        per_panel: list[dict] = []
        shared = len(keys) > 1  # one legend for every panel; what differs between panels goes into the titles
        slopes: dict[str, list[str]] = {}  # learner → its slope of n* (and the theory's) in each panel that has one
        for ax, key in zip(axes, keys):
            entries: dict = {}
            per_panel.append(entries)
            rows = ok
            for c, v in key.items():
                rows = rows[rows[c].astype(str) == str(v)]
            private = rows[rows["private"] & np.isfinite(rows["epsilon"])]
            eps = np.sort(private["epsilon"].unique()) if len(private) else np.array([])
            sc = sample_complexity(rows, ["learner", "epsilon", "private"], alpha, beta, size=size)
            public = sc[~sc["private"] & np.isfinite(sc["n_star"])]
            for n_star, same in public.groupby("n_star"):
                level = "non-private n*" if shared else f"non-private n* = {three_digits(n_star)}"
                entries.update(draw_levels(ax, n_star, order(same["learner"].unique()), level))
            for learner in order(sc["learner"].unique()):
                s = sc[sc["learner"] == learner].sort_values("epsilon")
                c = palette([learner])[learner]
                if not s["private"].iloc[0]:
                    continue
                s = s[np.isfinite(s["epsilon"])]
                found = s[np.isfinite(s["n_star"])]
                fit = sample_complexity_slope(rows[rows["learner"] == learner], alpha=alpha, beta=beta, size=size)
                lines = theory(learner, rows[rows["learner"] == learner].iloc[0], np.geomspace(eps.min(), eps.max(), 64)) if theory and len(eps) else []
                slope = f"slope {fit.slope:.2f} [{fit.low:.2f}, {fit.high:.2f}]" if np.isfinite(fit.low) else ("slope n/a (< 3 ε with n*)" if not np.isfinite(fit.slope) else f"slope {fit.slope:.2f}")
                primary = [l for l in lines if l.role == "primary"]
                exp = np.nan
                if primary and np.isfinite(fit.x_min):
                    span = (primary[0].x >= fit.x_min) & (primary[0].x <= fit.x_max)
                    exp = local_exponent(primary[0].x[span], primary[0].y[span])
                    slope += f"; theory {exp:.2f}" if np.isfinite(exp) else ""
                draw_n_star(ax, found, "epsilon", c, marker(learner))
                missing = s[~np.isfinite(s["n_star"])]["epsilon"]
                if shared:
                    entries[learner] = n_star_handle(learner, c, found, missing)
                    if np.isfinite(fit.slope):
                        theory_exp = f" (theory {exp:.2f})" if np.isfinite(exp) else ""
                        slopes.setdefault(learner, []).append(f"{fit.slope:.2f}{theory_exp}")
                else:
                    entries[f"{learner}: {slope}"] = n_star_handle(learner, c, found, missing)
                entries.update(draw_theory(ax, lines))
                beyond = "n* beyond the grid (above its largest n)" if shared else f"n* beyond the grid (n > {int(rows[size].max())})"
                entries.update(mark_off_axis(ax, missing, c, where="top", label=beyond))
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("ε")
            ax.set_ylabel(f"n*(α = {alpha:g})")
            if settings:
                ax.set_title(setting_label(key))  # the slopes go into the legend: a title stays ≤ 2 lines
            if len(eps):
                ax.set_xlim(eps.min() / 1.5, eps.max() * 1.5)
            grid_n = rows[size].astype(float)
            low, high = ax.get_ylim() if ax.has_data() and ax.get_ylim()[0] > 0 else (np.inf, 0)
            ax.set_ylim(min(low, grid_n.min() / 1.5), max(high, grid_n.max() * 1.5))  # n* lives on the n grid
            tidy_log_ticks(ax)
        if title:
            fig.suptitle(title)
        wrap_titles(fig, axes, max_lines=2)
        fig.tight_layout()
        place_edge_marks(fig)
        for ax in axes:
            tidy_log_ticks(ax)
        add_note(fig, "The legend gives each learner's slope of n* in ε beside the theory's exponent over the same "
                      "range, in panel order where several panels have one (bootstrap intervals in the theory check)."
                      if shared else "The legend gives the slope of n* in ε (95% bootstrap over repetitions) beside "
                      "the theory's exponent over the same range.")
        labels = {learner: f"{learner}: slope of n* " + ", ".join(found) for learner, found in slopes.items()}
        merged = hide_undrawn(fig, {labels.get(label, label): handle
                                    for entries in per_panel for label, handle in entries.items()})
        place_legend(fig, axes, list(merged.values()), list(merged.keys()), n_panels=len(axes), cols=n_cols, ncol=1 if len(axes) == 1 else None)
    return fig


def three_digits(value: float) -> str:
    """``value`` to 3 significant digits, without an exponent (289.717 → ``290``, 11.0704 →
    ``11.1``, 11051.2 → ``11100``): a legend's n* is read off a log axis."""
    return f"{float(f'{value:.3g}'):g}" if abs(value) < 1e6 else f"{value:.3g}"


#: Dash pattern of a non-private learner's level (n*, or a measured value) across a panel.
LEVEL_DASH = (6.0, 2.0, 1.0, 2.0)


def draw_levels(ax, level: float, learners: list[str], meaning: str) -> dict:
    """One horizontal level shared by ``learners``, in each learner's colour: with several,
    their dash-dot patterns interleave (each colour shows in turn along the line), so
    neither hides the other and each has its own legend entry ``"{learner}: {meaning}"``."""

    period = sum(LEVEL_DASH)
    entries = {}
    for i, name in enumerate(learners):
        on_off = LEVEL_DASH if len(learners) == 1 else (LEVEL_DASH[0], period * len(learners) - LEVEL_DASH[0])
        register_entry(f"{name}: {meaning}", ax.axhline(level, color=color(name), lw=1.0, ls=(i * period, on_off), zorder=2))
        entries[f"{name}: {meaning}"] = plt.Line2D([], [], color=color(name), lw=1.0, ls=(0, LEVEL_DASH))
    return entries
