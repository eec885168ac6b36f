"""Figures of the ``halfspaces_online`` experiment, drawn with
the shared seaborn helpers (:func:`dpbench.plotting.common.learning_curves`).

Rows and :mod:`dpbench.theory` only: every mistake bound is the run's recorded
``mistake_bound`` column (DP-Winnow's calibrated ``(M+1)(2L−B+1)``, never recalibrated
here) or, along the N and ρ sweeps, the closed-form bounds of :mod:`dpbench.theory.winnow`.

- :func:`mistakes_vs_t`, :func:`dl_as_halfspace`: the cumulative mistake rate ``mistakes/t``
  against t, one panel per stream and ε; the bound drawn as ``bound/t``, the trivial
  predictor's ½ mistake per round in grey, a triangle where ``bound/t`` drops below ½ (the
  theory's learning start);
- :func:`mistakes_vs_d`, :func:`mistakes_vs_rho`: final mistakes along the sweeps with the
  Winnow / ConfidentWinnow / perceptron bounds;
- :func:`mistakes_vs_epsilon`: the private learners' final mistakes against ε with their
  calibrated bounds and [BF26, Thm 4.5]'s reconstructed shape (dotted: a shape, not a bound).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.plotting.common import learning_curves
from dpbench.plotting.overlays import TheoryLine
from dpbench.plotting.style import SINGLE_COLUMN, color, paper_style
from dpbench.theory_check.trivial import trivial_mistake_rate_of

BETA = 0.1
TRIVIAL_RATE = "trivial predictor (½ mistake per round)"
TRIVIAL_MAJORITY = "best constant predictor (the list's majority label)"


class NoData(ValueError):
    """The config has no runs of the kind a figure draws."""


def _note(message: str):
    """A one-column figure saying why there is nothing to draw (a config without, e.g., a
    d sweep still gets every figure file, so the workflow does not fail)."""
    import matplotlib.pyplot as plt


    with paper_style():
        fig, ax = plt.subplots(figsize=(SINGLE_COLUMN, 1.0))
        ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, wrap=True)
        ax.set_axis_off()
    return fig


def _or_note(recipe):
    """``recipe(df)``, or a :func:`_note` figure when the config has no such runs."""
    import functools

    @functools.wraps(recipe)
    def draw(df: pd.DataFrame):
        try:
            return recipe(df)
        except NoData as missing:
            return _note(f"halfspaces_online: {missing} in this config")
    return draw


def _ok(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["status"] == "ok"]


def _rate(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(mistake_rate=df["mistakes"] / df["t"])


def _titles(df: pd.DataFrame, *implied: str) -> pd.DataFrame:
    """``df`` without the identity columns another one implies (so panel titles name each
    setting once): N = d on the monotone private streams, ρ = 1/(2^(l+1)−1) for decision
    lists. Recorded columns the recipes read (``mistake_bound``) are kept."""
    return df.assign(**dict.fromkeys(implied))


def _final(df: pd.DataFrame) -> pd.DataFrame:
    ok = _ok(df)
    return ok[ok["t"] == ok["T"]]


def _bound_label(learner: str, row: pd.Series) -> str:
    if bool(row["private"]) and np.isfinite(row["epsilon"]):
        return "calibrated bound (M+1)(2L−B+1) / t"
    return "mistake bound / t"


def _rate_lines(rows: pd.DataFrame):
    """``theory(learner, row, t)`` for the mistake-rate figures: the run's recorded bound / t.
    A learner whose bound is at or above the trivial rate (:func:`dpbench.theory_check.trivial.trivial_mistake_rate_of`)
    up to T on every panel says so in its label (its lines are mostly above the plotted
    range); the caption explains the panels where only some are."""
    trivial = rows["problem_id"].map({pid: trivial_mistake_rate_of(g.iloc[0]) for pid, g in rows.groupby("problem_id")})
    always_vacuous = (rows["mistake_bound"] / rows["T"] >= trivial).groupby(rows["learner"]).all()

    def lines(learner: str, row: pd.Series, t: np.ndarray) -> list[TheoryLine]:
        bound = float(row["mistake_bound"])
        if not np.isfinite(bound):
            return []
        label = _bound_label(learner, row)
        if always_vacuous.get(learner, False):
            label += " (≥ the trivial rate up to T on every panel: vacuous)"
        return [TheoryLine(learner, label, t, bound / t, color(learner))]
    return lines


def _private_streams(df: pd.DataFrame) -> pd.DataFrame:
    ok = _ok(df)
    hs = ok[ok["problem"] == "halfspace"]
    return hs[hs["problem_id"].isin(hs.loc[hs["private"], "problem_id"])]


@_or_note
def mistakes_vs_t(df: pd.DataFrame):
    """Cumulative mistake rate against t on the streams where the private learners ran, one
    panel per (N, ε) with ε ≤ :data:`dpbench.theory.winnow.MEANINGFUL_EPSILON` (dp_winnow's runs
    at larger ε, which locate where the source's rule starts to learn, are in
    :func:`mistakes_vs_epsilon`)."""
    rows = _private_streams(df)
    rows = rows[~rows["private"] | ~(rows["epsilon"].astype(float) > theory.MEANINGFUL_EPSILON)]
    if rows.empty:
        raise NoData("no halfspace stream with a private learner")
    if (rows["n_features"] == rows["d"]).all():
        rows = _titles(rows, "n_features")
    return learning_curves(_rate(rows), x="t", y="mistake_rate", xlabel="round t", ylabel="mistakes / t",
                           theory=_rate_lines(rows), trivial=trivial_mistake_rate_of, trivial_label=TRIVIAL_RATE,
                           zero_label="no mistake yet (rate 0, off the log axis)")


@_or_note
def dl_as_halfspace(df: pd.DataFrame):
    """Decision lists as margin-1/(2^(l+1)−1) halfspaces: mistake rate against t per l and ε."""
    ok = _ok(df)
    rows = ok[ok["problem"] == "dl_as_halfspace"]
    if rows.empty:
        raise NoData("no dl_as_halfspace runs")
    return learning_curves(_rate(_titles(rows, "rho")), x="t", y="mistake_rate", xlabel="round t", ylabel="mistakes / t",
                           theory=_rate_lines(rows), trivial=trivial_mistake_rate_of, trivial_label=TRIVIAL_MAJORITY,
                           zero_label="no mistake yet (rate 0, off the log axis)")


def _sweep_rows(df: pd.DataFrame, axis: str) -> pd.DataFrame:
    """Final rows of the non-private learners on the streams that vary only along ``axis``
    (≥ 3 values); ``d``/``problem_id`` are made constant so the panels split only by the
    other settings (e.g. stream order), never by the swept parameter."""
    final = _final(df)
    rows = final[(final["problem"] == "halfspace") & ~final["private"]]
    others = [c for c in ("d", "s", "rho", "order", "domain", "monotone") if c != axis and c in rows and rows[c].notna().any()] + ["T"]
    keep = [g for _, g in rows.groupby(others, dropna=False, sort=True) if g[axis].nunique() >= 3]
    if not keep:
        raise NoData(f"no sweep along {axis} with ≥ 3 values")
    out = pd.concat(keep)
    return out.assign(problem_id="sweep", **({"d": None} if axis == "d" else {}))


def _sweep_lines(axis: str):
    def lines(learner: str, row: pd.Series, xs: np.ndarray) -> list[TheoryLine]:
        N = xs if axis == "n_features" else float(row["n_features"])
        rho = xs if axis == "rho" else float(row["rho"])
        if learner == "winnow":
            scale = float(row["eta"]) / float(row["rho"])  # η = scale·ρ
            y, label = theory.winnow_mistake_bound(N, rho, scale * np.asarray(rho)), "Winnow bound ln N/(ηρ − η²/2)"
        elif learner == "confident_winnow":
            y, label = theory.confident_winnow_update_bound(N, rho), "ConfidentWinnow bound 8 ln N/ρ²"
        elif learner == "perceptron":
            y, label = theory.perceptron_mistake_bound(N, rho), "perceptron bound N/ρ²"
        else:
            return []
        return [TheoryLine(learner, label, xs, np.broadcast_to(np.asarray(y, dtype=float), xs.shape), color(learner))]
    return lines


def _show_bounds(fig):
    """Widen the shared y range to the drawn theory lines (the helper fits it to the data),
    so every bound or shape line is seen over its whole range."""
    ys = [np.asarray(line.get_ydata(), dtype=float) for ax in fig.axes for line in ax.get_lines()
          if line.get_linestyle() in ("--", ":") and len(line.get_ydata())]
    ys = np.concatenate(ys) if ys else np.array([])
    ys = ys[np.isfinite(ys) & (ys > 0)]
    if len(ys):
        for ax in fig.axes:
            low, high = ax.get_ylim()
            ax.set_ylim(min(low, ys.min() / 1.5), max(high, ys.max() * 1.5))
    return fig


@_or_note
def mistakes_vs_d(df: pd.DataFrame):
    """Final mistakes against N along the d sweep (one panel per stream order)."""
    return _show_bounds(learning_curves(_sweep_rows(df, "d"), x="n_features", y="mistakes", xlabel="learner features N",
                           ylabel="final mistakes (t = T)", theory=_sweep_lines("n_features")))


@_or_note
def mistakes_vs_rho(df: pd.DataFrame):
    """Final mistakes against the margin ρ along the ρ sweep."""
    return _show_bounds(learning_curves(_sweep_rows(df, "rho"), x="rho", y="mistakes", xlabel="margin ρ",
                                        ylabel="final mistakes (t = T)", theory=_sweep_lines("rho")))


@_or_note
def mistakes_vs_epsilon(df: pd.DataFrame):
    """Private learners' final mistakes against ε per stream, with each run's calibrated
    bound (recorded, at the ε of the grid) and [BF26, Thm 4.5]'s reconstructed shape."""
    final = _final(_private_streams(df))
    rows = final[final["private"] & np.isfinite(final["epsilon"])]
    if rows.empty:
        raise NoData("no private runs")
    n_features = rows.groupby("problem_id")["n_features"].first()
    if (rows["n_features"] == rows["d"]).all():
        rows = _titles(rows, "n_features")
    recorded = rows.groupby(["learner", "problem_id", "epsilon"])["mistake_bound"].first()

    def lines(learner: str, row: pd.Series, eps: np.ndarray) -> list[TheoryLine]:
        b = recorded.loc[(learner, row["problem_id"])]
        # a mistake bound above T says nothing within the run: not drawn (it would squeeze the
        # data: the source rule's reaches 1e17), and the label says so
        drawn = np.where(b.to_numpy(float) <= float(row["T"]), b.to_numpy(float), np.nan)
        label = "calibrated bound (M+1)(2L−B+1)" + ("" if np.isfinite(drawn).any() else " > T at every ε (vacuous, not drawn)")
        out = [TheoryLine(learner, label, b.index.to_numpy(float), drawn, color(learner))]
        shape = theory.dp_winnow_mistake_shape(n_features[row["problem_id"]], row["rho"], eps, float(row["delta"]), row["T"], BETA)
        out.append(TheoryLine(learner, "Bun & Fang Thm 4.5 shape (reconstructed, unit constant)", eps, shape, "0.3", "secondary"))
        return out

    fig = _show_bounds(learning_curves(rows, x="epsilon", y="mistakes", xlabel="ε", ylabel="final mistakes (t = T)", theory=lines,
                                       trivial=lambda r: float(r["T"]) / 2, trivial_label="trivial predictor (T/2 mistakes)"))
    return _shade_meaningless_epsilon(fig)


def _shade_meaningless_epsilon(fig):
    """Shade ε > :data:`dpbench.theory.winnow.MEANINGFUL_EPSILON` in every panel with a curve there:
    grid points there locate where a learner starts to learn; as privacy they mean nothing."""
    for ax in fig.axes:
        low, high = ax.get_xlim()
        xs = [np.asarray(line.get_xdata(), dtype=float) for line in ax.get_lines() if len(line.get_xdata())]
        beyond = any(np.nanmax(x) > theory.MEANINGFUL_EPSILON for x in xs if np.isfinite(x).any())
        if ax.get_xscale() == "log" and beyond:
            ax.axvspan(max(low, theory.MEANINGFUL_EPSILON), high, color="0.93", lw=0, zorder=0)
            ax.set_xlim(low, high)
    return fig
