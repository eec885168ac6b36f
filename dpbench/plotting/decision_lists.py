"""Figures of the ``decision_lists`` experiment, from rows and :mod:`dpbench.theory` only.

- :func:`error_vs_n`: error against n on the main problem (the one with the most sizes),
  one panel per ε; :func:`error_vs_n_small_d`: the same on the tiny problems where the
  exponential mechanism over whole lists runs (one panel per problem and ε).
- :func:`sample_complexity`: n*(α) against ε, one panel per problem run at several ε.
- :func:`sample_complexity_features`: n*(α) against |F| over the (d, k) sweep.
- :func:`runtime`: fit time per example against |F|, with the exponential mechanism's
  enumeration cost ∝ |C| carried to the problems it skipped.

Every theory curve comes from :func:`dpbench.theory.dl_rates_of` for the setting a row
records; the grey level is the drawn target's majority-label error
(:func:`dpbench.theory_check.trivial.dl_trivial_error_of`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.plotting.captions import add_note
from dpbench.plotting.common import (
    BAND_NOTE,
    _band,
    draw_n_star,
    learner_line_style,
    learning_curves,
    mean_lines,
    n_star_handle,
    sample_complexity_figure,
)
from dpbench.plotting.layout import grid_shape, panel_size, place_legend, tidy_log_ticks, wrap_titles
from dpbench.plotting.overlays import (
    TheoryLine,
    _data_extent,
    draw_theory,
    error_lines,
    hide_undrawn,
    mark_off_axis,
    n_star_lines,
    place_edge_marks,
)
from dpbench.plotting.style import (
    MARKER_SIZE,
    SINGLE_COLUMN,
    color,
    learner_handle,
    marker,
    order,
    palette,
    paper_style,
)
from dpbench.theory_check.fit import local_exponent
from dpbench.theory_check.nstar import sample_complexity as n_star_table
from dpbench.theory_check.nstar import sample_complexity_slope
from dpbench.theory_check.trivial import dl_trivial_error_of

ALPHA, BETA = theory.DL_ALPHA, theory.DL_BETA
#: Columns that define the |F| sweep: problems that agree on them and differ in (d, k) only.
SWEEP_SAME = ("l", "r", "monotone", "p", "noise")


def _ok(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["status"] == "ok"]


def main_problem(df: pd.DataFrame) -> str | None:
    """The problem run at the most values of ε, then with the most sizes n, then rows (the
    config's main block): the error-vs-n problem."""
    ok = _ok(df)
    if ok.empty:
        return None
    stats = ok.groupby("problem_id").agg(eps=("epsilon", "nunique"), sizes=("n", "nunique"), rows=("n", "size"))
    return stats.sort_values(["eps", "sizes", "rows"], ascending=False).index[0]


def _multi_epsilon_problems(df: pd.DataFrame) -> list[str]:
    """Problems on which a private learner ran at ≥ 2 values of ε (n* against ε)."""
    private = _ok(df)
    private = private[private["private"] & np.isfinite(private["epsilon"])]
    counts = private.groupby("problem_id")["epsilon"].nunique()
    return counts[counts >= 2].index.tolist()


def _error_lines(learner: str, row: pd.Series, n: np.ndarray) -> list[TheoryLine]:
    return error_lines(learner, theory.dl_rates_of(learner, row), n)


def _n_lines(learner: str, row: pd.Series, eps: np.ndarray) -> list[TheoryLine]:
    return n_star_lines(learner, theory.dl_rates_of(learner, row, epsilon=float(eps[0])), eps, ALPHA)


def _curves(rows: pd.DataFrame):
    return learning_curves(rows, x="n", y="error", ylabel="population error", theory=_error_lines,
                           trivial=dl_trivial_error_of, trivial_label="majority label (best constant predictor)")


def error_vs_n(df: pd.DataFrame):
    main = main_problem(df)
    return _curves(df[df["problem_id"] == main])


def error_vs_n_small_d(df: pd.DataFrame):
    ok = _ok(df)
    problems = ok.loc[ok["learner"] == "exp_mech_erm", "problem_id"].unique()
    if len(problems) == 0:  # no exponential-mechanism run: the smallest problems instead
        problems = ok.loc[ok["n_features"] == ok["n_features"].min(), "problem_id"].unique()
    return _curves(df[df["problem_id"].isin(problems)])


def sample_complexity(df: pd.DataFrame):
    problems = _multi_epsilon_problems(df) or [main_problem(df)]
    return sample_complexity_figure(df[df["problem_id"].isin(problems)], alpha=ALPHA, beta=BETA, theory=_n_lines)


def feature_sweep(df: pd.DataFrame) -> pd.DataFrame:
    """Status-ok rows of the largest group of problems that differ only in (d, k)."""
    ok = _ok(df)
    if ok.empty:
        return ok
    sizes = ok.groupby(list(SWEEP_SAME), dropna=False)["n_features"].nunique()
    best = sizes.idxmax()
    mask = np.ones(len(ok), dtype=bool)
    for col, value in zip(SWEEP_SAME, best if isinstance(best, tuple) else (best,)):
        mask &= (ok[col] == value).to_numpy()
    return ok[mask]


def common_reps(rows: pd.DataFrame, by: str) -> pd.DataFrame:
    """Rows of the repetitions present at every value of ``by`` (the problems of a sweep may
    run fewer repetitions than the main problem; n* compares success shares over the same
    repetitions, :func:`dpbench.theory_check.analysis.sample_complexity_slope` counts a missing one as a failure)."""
    if rows.empty:
        return rows
    reps = set.intersection(*(set(g["rep"]) for _, g in rows.groupby(by)))
    return rows[rows["rep"].isin(reps)]


def sample_complexity_features(df: pd.DataFrame):
    """n*(α) against |F| per learner at each ε of the (d, k) sweep (one panel per ε), on the
    repetitions every problem has; theory n(α) of each learner as |F| varies (log|C| follows
    |F|); an |F| at which the grid never reaches α as a hollow marker on the upper axis."""
    import matplotlib.pyplot as plt


    sweep = feature_sweep(df)
    private = sweep[sweep["private"]]
    per_eps = private.groupby(["epsilon", "learner"])["n_features"].nunique().groupby("epsilon").max()
    min_f = 3 if (per_eps >= 3).any() or sweep["n_features"].nunique() >= 3 else 1  # no sweep: what there is
    eps_values = sorted(per_eps[per_eps >= min_f].index) or [np.inf]  # the ε of the sweep
    n_rows, n_cols = grid_shape(len(eps_values))
    height, aspect = panel_size(n_cols, height=2.2)
    with paper_style():
        fig, axes = plt.subplots(n_rows, n_cols, figsize=(height * aspect * n_cols, height * n_rows), squeeze=False)
        axes = list(axes.flat)[: len(eps_values)]
        entries: dict = {}
        for ax, eps in zip(axes, eps_values):
            rows = sweep[(sweep["epsilon"] == eps) | ~sweep["private"]]
            slopes: list[str] = []
            for learner in order(rows["learner"].unique()):
                mine = rows[rows["learner"] == learner]
                if mine["n_features"].nunique() < min_f:
                    continue
                mine = common_reps(mine, "n_features")
                c = color(learner)
                sc = n_star_table(mine, ["n_features"], ALPHA, BETA).sort_values("n_features")
                found = sc[np.isfinite(sc["n_star"])]
                fit = sample_complexity_slope(mine, alpha=ALPHA, beta=BETA, x="n_features")
                f = np.unique(np.geomspace(sc["n_features"].min(), sc["n_features"].max(), 48).round())
                row = mine.iloc[0]
                lines = []
                for r in theory.dl_rates_of(learner, row, n_features=int(f[0])):
                    if r.n_at is None or not r.primary:
                        continue
                    n = [float(np.asarray(theory.dl_rates_of(learner, row, n_features=int(v))[0].n_at(ALPHA, float(row["epsilon"])))) for v in f]
                    lines.append(TheoryLine(learner, r.label, f, np.asarray(n), c))
                span = (f >= fit.x_min) & (f <= fit.x_max) if np.isfinite(fit.x_min) else np.zeros(len(f), bool)
                exp = local_exponent(f[span], lines[0].y[span]) if lines else np.nan
                slope = f"slope {fit.slope:.2f} [{fit.low:.2f}, {fit.high:.2f}]" if np.isfinite(fit.low) else (
                    f"slope {fit.slope:.2f}" if np.isfinite(fit.slope) else "slope n/a (< 3 |F| with n*)")
                if np.isfinite(exp):
                    slope += f"; theory {exp:.2f}"
                smallest = mine.groupby("n_features")["n"].min().reindex(found["n_features"]).to_numpy(float)
                censored = found["n_star"].to_numpy(float) == smallest
                if len(found) and len(found) - censored.sum() < 3:  # n* only bounded above: no slope
                    slope = "n* = the grid's smallest n (learned before it): no slope"
                draw_n_star(ax, found, "n_features", c, marker(learner))
                missing = sc[~np.isfinite(sc["n_star"])]["n_features"]
                if len(eps_values) > 1:  # one legend for every panel: the slopes in the panel titles
                    entries[learner] = n_star_handle(learner, c, found, missing)
                    if np.isfinite(fit.slope) and not slope.startswith("n* ="):
                        slopes.append(f"{learner} {fit.slope:.2f}" + (f" (theory {exp:.2f})" if np.isfinite(exp) else ""))
                else:
                    entries[f"{learner}: {slope}"] = n_star_handle(learner, c, found, missing)
                entries.update(draw_theory(ax, lines))
                entries.update(mark_off_axis(ax, missing, c, where="top", label=f"n* beyond the grid (n > {int(mine['n'].max())})"))
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("|F| (features incl. the constant)")
            ax.set_ylabel(f"n*(α = {ALPHA:g})")
            ax.set_title(f"(d, k) sweep, private learners at ε = {eps:g}" + ("; slope of n* in |F|: " + ", ".join(slopes) if slopes else ""))
            grid_n = sweep["n"].astype(float)
            low, high = ax.get_ylim() if ax.has_data() else (np.inf, 0)
            ax.set_ylim(min(low, grid_n.min() / 1.5), max(high, grid_n.max() * 1.5))
            tidy_log_ticks(ax)
        wrap_titles(fig, axes)
        fig.tight_layout()
        place_edge_marks(fig)
        for ax in axes:
            tidy_log_ticks(ax)
        entries = hide_undrawn(fig, entries)
        add_note(fig, "Each panel's title gives the slope of n* in |F| beside the theory's local exponent (their bootstrap "
                      "intervals are in the theory check)." if len(eps_values) > 1 else "Legend: slope of n* in |F| (95% "
                      "bootstrap over repetitions) beside the theory's local exponent.")
        place_legend(fig, axes, list(entries.values()), list(entries.keys()), n_panels=len(axes), cols=n_cols, ncol=1)
    return fig


def runtime(df: pd.DataFrame):
    """Fit time per example (``fit_seconds / n`` at the largest n of each problem; band: 95 %
    bootstrap over repetitions) against |F|, log–log; the exponential mechanism's cost ∝ |C|
    through its measured points, carried to the problems it skipped (crosses)."""
    import matplotlib.pyplot as plt

    ok = _ok(df).dropna(subset=["fit_seconds"])
    top = ok[ok["n"] == ok.groupby(["learner", "problem_id"])["n"].transform("max")]
    per = top.assign(seconds_per_example=top["fit_seconds"] / top["n"])
    learners = order(per["learner"].unique())
    with paper_style():
        fig, ax = plt.subplots(figsize=(SINGLE_COLUMN, 2.6))
        colours = palette(learners)
        mean_lines(ax, per, x="n_features", y="seconds_per_example", hue_order=learners, palette=colours,
                   errorbar=_band, **learner_line_style(per, "learner"), markersize=MARKER_SIZE, markeredgewidth=0)
        entries: dict = {name: learner_handle(name, colours[name]) for name in learners}
        em = per[per["learner"] == "exp_mech_erm"].groupby("n_features")["seconds_per_example"].mean()
        skipped = df[(df["status"] == "skipped") & (df["learner"] == "exp_mech_erm")]
        if len(em):
            logc = pd.concat([ok, skipped]).groupby("n_features")["log_class_size"].first()
            coef = float(np.median(em.to_numpy() / np.exp(logc.reindex(em.index).to_numpy())))
            fs = np.array(sorted(set(em.index) | set(skipped["n_features"].unique())), dtype=float)
            c = color("exp_mech_erm")
            ax.plot(fs, coef * np.exp(logc.reindex(fs).to_numpy()), ls=(0, (4, 2)), lw=1.0, color=c, zorder=4)
            entries["exp_mech_erm: ∝ |C| through its measured points"] = plt.Line2D([], [], color=c, ls=(0, (4, 2)), lw=1.0)
            if len(skipped):
                f_skip = np.sort(skipped["n_features"].unique()).astype(float)
                ax.plot(f_skip, coef * np.exp(logc.reindex(f_skip).to_numpy()), marker="x", ms=6, mew=1.2, color=c, ls="none", zorder=5)
                sizes = ", ".join(f"|C| ≈ e^{float(logc[f]):.1f}" for f in f_skip)
                entries[f"exp_mech_erm skipped ({sizes} > max_hypotheses): extrapolated"] = plt.Line2D([], [], marker="x", ms=6, mew=1.2, color=c, ls="none")
        pdl = per[per["learner"] == "privdl"].groupby("n_features").agg(t=("seconds_per_example", "mean"), n=("n", "first")).sort_index()
        if len(pdl):
            f0, t0, n0 = pdl.index[-1], pdl["t"].iloc[-1], pdl["n"].iloc[-1]
            fs = np.geomspace(per["n_features"].min(), per["n_features"].max(), 40)
            ax.plot(fs, t0 * (n0 * fs + fs**2) / (n0 * f0 + f0**2), ls=(0, (1, 1.5)), lw=1.0, color=color("privdl"), zorder=4)
            entries[f"privdl: O(n|F| + |F|²)/n shape at n = {int(n0)}, through its largest |F|"] = plt.Line2D([], [], color=color("privdl"), ls=(0, (1, 1.5)), lw=1.0)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("|F| (features incl. the constant)")
        ax.set_ylabel("fit time per example (s)")
        band_low, _ = _data_extent(ax)
        if np.isfinite(band_low):
            ax.set_ylim(min(ax.get_ylim()[0], band_low / 1.2), ax.get_ylim()[1])
        tidy_log_ticks(ax)
        add_note(fig, BAND_NOTE)
        fig.tight_layout()
        place_legend(fig, [ax], list(entries.values()), list(entries.keys()), n_panels=1, cols=1, ncol=1)
    return fig
