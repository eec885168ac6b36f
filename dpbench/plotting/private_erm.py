"""Figures of the ``private_erm`` experiment,
drawn with seaborn. Rows and :mod:`dpbench.theory` only: theory lines come from
:func:`dpbench.theory.erm_rate_of` for the setting a row records, the trivial predictor's
excess risk from the recorded ``loss − excess_loss`` (:func:`dpbench.theory.trivial_excess_of`).

- :func:`error_vs_n`: excess empirical risk against n, one panel per ε and dimension
  (:func:`dpbench.plotting.common.learning_curves`), on the main problem setting.
- :func:`error_vs_epsilon`: test error and excess risk against ε at the largest n of the
  main setting, the peers included (scikit-learn as a horizontal line).
- :func:`runtime`: fit seconds against n and against d, with the cost models of
  :func:`dpbench.theory.runtime_linear`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.plotting.captions import add_note
from dpbench.plotting.common import BAND_NOTE, _band, draw_levels, learner_line_style, learning_curves, mean_lines
from dpbench.plotting.layout import panel_size, place_legend, tidy_log_ticks
from dpbench.plotting.overlays import (
    TheoryLine,
    _data_extent,
    draw_theory,
    draw_trivial,
    hide_undrawn,
    mark_off_axis,
    place_edge_marks,
)
from dpbench.plotting.style import MARKER_SIZE, color, learner_handle, order, palette, paper_style
from dpbench.theory_check.analysis import with_learner_params

EXCESS_LABEL = r"excess risk $J_\lambda(\hat\theta) - J_\lambda(\theta^*)$"
TRIVIAL_LABEL = r"trivial predictor $\theta = 0$"


def _main(df: pd.DataFrame) -> pd.DataFrame:
    """Status-ok rows of the main setting: the ``logistic`` problem (other problems are
    sweeps) at its most common margin and label noise (every d is kept)."""
    ok = with_learner_params(df[df["status"] == "ok"])
    if (ok["problem"] == "logistic").any():
        ok = ok[ok["problem"] == "logistic"]
    for col in ("rho", "noise"):
        if len(ok) and ok[col].nunique() > 1:
            ok = ok[ok[col] == ok[col].value_counts().idxmax()]
    return ok


def _main_d(ok: pd.DataFrame) -> int:
    return int(ok["d"].value_counts().idxmax())


def _trivial_by_d(ok: pd.DataFrame):
    """``trivial(row)``: the trivial predictor's excess risk, median over the rows of the same d."""
    levels = {d: theory.trivial_excess_of(g) for d, g in ok.groupby("d")}
    return lambda row: levels.get(row["d"], np.nan)


#: Learners whose theory line is another learner's (same rate, same setting): drawn once,
#: in the first learner's colour, named after both — never two lines on top of each other.
SHARED_LINE = {"dp_sgd": "dp_gd", "diffprivlib_logreg": "objective_perturbation"}


def _theory_lines(learner: str, row: pd.Series, x: np.ndarray, *, n=None, epsilon=None, present=()) -> list[TheoryLine]:
    """The theory line of ``learner`` against n (at the row's ε) or against ε (at size ``n``);
    none for a learner in :data:`SHARED_LINE` whose partner is ``present`` (the partner's
    line carries both names)."""

    if SHARED_LINE.get(learner) in present:
        return []
    rate = theory.erm_rate_of(learner, row)
    if rate is None:
        return []
    y = rate.excess(x, float(row["epsilon"])) if n is None else rate.excess(n, x)
    partners = [other for other, owner in SHARED_LINE.items() if owner == learner]  # same rate: named whether drawn or not
    return [TheoryLine(", ".join([learner, *partners]), rate.label, x, np.broadcast_to(np.asarray(y, dtype=float), x.shape), color(learner))]


def error_vs_n(df: pd.DataFrame) -> plt.Figure:
    """Excess risk of the private learners against n, one panel per ε and d (curves with at
    least 3 sizes; single-size sweeps are in :func:`runtime` and the theory CSV)."""

    ok = _main(df)
    private = ok[ok["private"] & np.isfinite(ok["epsilon"])]
    sizes = private.groupby(["learner", "d", "epsilon"])["n"].transform("nunique")
    private = private[sizes >= 3]
    present = {key: set(g["learner"]) for key, g in private.groupby(["d", "epsilon"])}

    def lines(learner: str, row: pd.Series, n: np.ndarray) -> list[TheoryLine]:
        return _theory_lines(learner, row, n, present=present.get((row["d"], row["epsilon"]), ()))

    return learning_curves(
        private, x="n", y="excess_loss", ylabel=EXCESS_LABEL, theory=lines, trivial=_trivial_by_d(ok),
        trivial_label=TRIVIAL_LABEL, zero_label="mean exactly 0 (off the log axis)",
    )


def error_vs_epsilon(df: pd.DataFrame) -> plt.Figure:
    """Test error (left) and excess risk (right) against ε at the largest n of the main d;
    non-private peers as horizontal lines."""
    ok = _main(df)
    if ok.empty:
        raise ValueError("no status-ok rows to draw")
    d0 = _main_d(ok)
    ok = ok[ok["d"] == d0]
    private = ok[ok["private"] & np.isfinite(ok["epsilon"])]
    per_n = private.groupby("n")["epsilon"].nunique()
    n_max = int(per_n[per_n == per_n.max()].index.max()) if len(private) else int(ok["n"].max())
    at = ok[ok["n"] == n_max]
    private = at[at["private"] & np.isfinite(at["epsilon"])]
    public = at[~(at["private"] & np.isfinite(at["epsilon"]))]
    eps = np.sort(private["epsilon"].unique())
    learners = order(at["learner"].unique())
    colours = palette(learners)
    reps = private.groupby(["learner", "epsilon"])["rep"].nunique().min() if len(private) else 0
    height, aspect = panel_size(2, height=2.2)
    with paper_style():
        fig, axes = plt.subplots(1, 2, figsize=(height * aspect * 2, height))
        entries: dict = {}
        for ax, y, label in ((axes[0], "error", "test error (held-out)"), (axes[1], "excess_loss", EXCESS_LABEL)):
            means = private.groupby(["learner", "epsilon"])[y].mean()
            positive = private[private.set_index(["learner", "epsilon"]).index.map(means).to_numpy() > 0]
            mean_lines(ax, positive, x="epsilon", y=y, hue_order=[l for l in learners if l in set(private["learner"])],
                       palette=colours, errorbar=_band if reps >= 5 else None,
                       **learner_line_style(positive, "learner"), markersize=MARKER_SIZE, markeredgewidth=0)
            for learner, z in means[means <= 0].reset_index().groupby("learner"):
                entries.update(mark_off_axis(ax, z["epsilon"], colours[learner], where="bottom", label="mean exactly 0 (off the log axis)"))
            for learner, rows in public.groupby("learner"):
                level = float(rows[y].mean())
                if y == "error" or level > 1e-12:  # the non-private ERM's excess risk is 0 by definition
                    entries.update(draw_levels(ax, level, [learner], "non-private, mean at this n"))
            trivial = theory.TRIVIAL_TEST_ERROR if y == "error" else theory.trivial_excess_of(at)
            entries.update(draw_trivial(ax, trivial, TRIVIAL_LABEL))
            if y == "excess_loss" and len(eps):
                xs = np.geomspace(eps.min(), eps.max(), 64)
                present = set(private["learner"])
                lines = [line for learner, rows in private.groupby("learner")
                         for line in _theory_lines(learner, rows.iloc[0], xs, n=n_max, present=present)]
                entries.update(draw_theory(ax, lines))
                data = means[means > 0]
                if len(data):
                    band_low, _ = _data_extent(ax)
                    ax.set_ylim(np.nanmin([data.min() / 3, band_low / 1.2]), max(data.max(), trivial) * 3)
            ax.set(xscale="log", yscale="log", xlabel=r"$\varepsilon$", ylabel=label, title=f"n = {n_max}, d = {d0}")
            tidy_log_ticks(ax)
        handles = {name: learner_handle(name, colours[name]) for name in learners if name in set(private["learner"])}
        handles.update(entries)
        fig.tight_layout()
        place_edge_marks(fig)
        for ax in axes:
            tidy_log_ticks(ax)
        handles = hide_undrawn(fig, handles)
        if reps >= 5:
            add_note(fig, BAND_NOTE)
        place_legend(fig, list(axes), list(handles.values()), list(handles.keys()), n_panels=2, cols=2)
    return fig


def runtime(df: pd.DataFrame) -> plt.Figure:
    """Fit seconds (ε closest to 1) against n at the main d, and against d at the n shared by
    the most dimensions (when the grid has a d sweep); dashed: cost models scaled to the
    last point."""
    ok = _main(df)
    ok = ok[np.isfinite(ok["fit_seconds"].astype(float))]
    if ok.empty:
        raise ValueError("no status-ok rows with fit_seconds to draw")
    dist = np.abs(np.log(ok["epsilon"].astype(float).where(np.isfinite(ok["epsilon"]), 1.0)))
    ok = ok[dist == dist.groupby(ok["learner"]).transform("min")]
    d0 = _main_d(ok)
    per_n = ok.groupby("n")["d"].nunique()
    sweep = per_n.max() > 1
    learners = order(ok["learner"].unique())
    colours = palette(learners)
    height, aspect = panel_size(2 if sweep else 1, height=2.2)
    with paper_style():
        fig, axes = plt.subplots(1, 2 if sweep else 1, figsize=(height * aspect * (2 if sweep else 1), height), squeeze=False)
        axes = list(axes.flat)
        panels = [(axes[0], ok[ok["d"] == d0], "n", f"d = {d0}")]
        if sweep:
            n0 = int(per_n.idxmax())
            panels.append((axes[1], ok[ok["n"] == n0], "d", f"n = {n0}"))
        for ax, rows, x, title in panels:
            rows = rows[rows.groupby("learner")[x].transform("nunique") >= 2]
            mean_lines(ax, rows, x=x, y="fit_seconds", hue_order=[l for l in learners if l in set(rows["learner"])],
                       palette=colours, errorbar=None, **learner_line_style(rows, "learner"), markersize=MARKER_SIZE,
                       markeredgewidth=0)
            for learner, lr in rows.groupby("learner"):
                mean = lr.groupby(x)["fit_seconds"].mean().sort_index()
                grid = np.geomspace(mean.index.min(), mean.index.max(), 48) if x == "n" else np.linspace(mean.index.min(), mean.index.max(), 48)
                lp = lr.iloc[0]
                points = theory.grid_points_of(lp) if learner == "exp_mech_grid" else None
                nn, dd = (grid, float(lp["d"])) if x == "n" else (float(lp["n"]), grid)
                model = np.asarray(theory.runtime_linear(nn, dd, points=points), dtype=float)
                last = float(np.asarray(theory.runtime_linear(*((mean.index[-1], float(lp["d"])) if x == "n" else (float(lp["n"]), mean.index[-1])), points=points)))
                ax.plot(grid, mean.iloc[-1] * model / last, color=colours[learner], ls=(0, (4, 2)), lw=0.9, zorder=4)
            ax.set(xscale="log" if x == "n" else "linear", yscale="log", xlabel=x, ylabel="fit seconds", title=title)
            if x == "d":
                from matplotlib.ticker import MaxNLocator

                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            tidy_log_ticks(ax)
        entries = {name: learner_handle(name, colours[name]) for name in learners}
        entries[r"dashed, in each learner's colour: its cost model $\propto n\,d\,T$ (exp_mech_grid: $\propto n\,d\,g^d$), through its last point"] = plt.Line2D([], [], color="0.3", ls=(0, (4, 2)), lw=0.9)
        fig.tight_layout()
        place_legend(fig, axes, list(entries.values()), list(entries.keys()), n_panels=len(axes), cols=len(axes))
    return fig
