"""Figures of the ``experts`` experiment, drawn with seaborn by
:func:`dpbench.plotting.common.learning_curves`.

Rows and :mod:`dpbench.theory` only: every theory line is
:func:`dpbench.theory.experts_rate_of` at the η the runs recorded (``eta`` column,
interpolated in the x of the figure) — no calibration is re-run. The grey line is uniform
play's regret (:func:`dpbench.theory.trivial_regret`); a learner that was skipped in a panel
(``private_mw_001`` where the accountant does not certify its α) gets a legend entry saying so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.plotting.captions import add_note, number_range
from dpbench.plotting.common import learning_curves
from dpbench.plotting.halfspaces_online import _note
from dpbench.plotting.layout import grid_shape, place_legend
from dpbench.plotting.overlays import TheoryLine
from dpbench.plotting.style import REFERENCE_GREY, SHARED_THEORY, color, paper_style

TRIVIAL_LABEL = "uniform play (chance regret)"
ZERO_LABEL = "mean ≤ 0 (off the log axis)"


def _final(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["t"] == df["T"]]


def _curve_rows(df: pd.DataFrame, learner: str, row: pd.Series, x: str) -> pd.DataFrame:
    """The rows of ``learner`` in the setting of ``row`` (every identity column but ``x``)."""
    same = df["learner"] == learner
    for c in ("kind", "k", "epsilon", "delta", "T"):
        if c != x and c in df:
            same &= df[c].astype(str) == str(row[c])
    return df[same & (df["status"] == "ok")]


def _theory(df: pd.DataFrame, x: str, metric: str):
    """``theory(learner, row, xs) -> [TheoryLine]`` for :func:`learning_curves`."""

    def lines(learner: str, row: pd.Series, xs: np.ndarray) -> list[TheoryLine]:
        rows = _curve_rows(df, learner, row, x)
        rate = theory.experts_rate_of(learner, rows, x=x, metric=metric) if len(rows) else None
        if rate is None:
            return []
        xs = np.geomspace(float(rows[x].min()), float(rows[x].max()), 64) if rows[x].nunique() > 1 else xs
        # a level the data sit on (FTL's ½) is drawn dark, so it shows on top of the data line
        shade = SHARED_THEORY if learner == "ftl" else color(learner)
        return [TheoryLine(learner, rate.label, xs, np.asarray(rate.curve(xs), dtype=float), shade,
                           "primary" if rate.kind == "bound" else "secondary")]

    return lines


def _with_lines(rows: pd.DataFrame, x: str, minimum: int = 3) -> pd.DataFrame:
    """Rows of curves with at least ``minimum`` values of ``x`` (a sweep, not a single cell)."""
    keys = [c for c in ("learner", "kind", "k", "epsilon", "delta", "T") if c != x]
    return rows[rows.groupby(keys, dropna=False)[x].transform("nunique") >= minimum]


def _skipped_note(fig, skipped: pd.DataFrame) -> None:
    """Add one legend entry per skipped learner ("skipped at ε ≤ …: not certified"), so a
    reader sees why its curve is missing from some panels."""
    if skipped.empty:
        return
    from matplotlib.patches import Patch


    legend = fig.legends[0]
    handles, labels = list(legend.legend_handles), [t.get_text() for t in legend.texts]
    for learner, group in skipped.groupby("learner"):
        handles.append(Patch(visible=False))
        labels.append(f"{learner}: skipped at ε ≤ {group['epsilon'].max():g} (not certified)")
    legend.remove()
    axes = [ax for ax in fig.axes if ax.get_visible()]
    _, cols = grid_shape(len(axes))
    with paper_style():  # the legend's fonts: the figure's, not matplotlib's defaults
        place_legend(fig, axes, handles, labels, n_panels=len(axes), cols=cols, ncol=1 if len(axes) % cols else None)


def _single_panel_title(fig, rows: pd.DataFrame) -> None:
    """A one-panel figure says its setting (k, and the ε of its private learners)."""
    ax = fig.axes[0]
    if len(fig.axes) > 1 or ax.get_title():
        return
    eps = sorted(rows.loc[rows["private"] & np.isfinite(rows["epsilon"]), "epsilon"].unique())
    text = f"k = {int(rows['k'].iloc[0])}" + (f", private learners at ε = {', '.join(f'{e:g}' for e in eps)}" if eps else "")
    ax.set_title(text, fontsize=ax.title.get_fontsize())


def _stochastic_main(df: pd.DataFrame) -> pd.DataFrame:
    """Stochastic rows at the k with the most horizons (the T sweep)."""
    rows = df[df["kind"] == "stochastic"]
    if rows.empty:
        raise ValueError("no stochastic experts rows to draw")
    k = rows[rows["status"] == "ok"].groupby("k")["T"].nunique().idxmax()
    return rows[rows["k"] == k]


def regret_vs_T(df: pd.DataFrame):
    """Expected regret against T on the stochastic sequence, one panel per ε and k."""
    rows = _final(df)
    rows = rows[rows["kind"] == "stochastic"]
    ok = _with_lines(rows[rows["status"] == "ok"], "T")
    skipped = rows[(rows["status"] == "skipped") & rows["epsilon"].isin(ok["epsilon"].unique())]
    fig = learning_curves(ok, x="T", y="expected_regret", xlabel="horizon T", ylabel="average expected regret",
                          theory=_theory(ok, "T", "expected_regret"), trivial=theory.trivial_regret_of,
                          trivial_label=TRIVIAL_LABEL, zero_label=ZERO_LABEL)
    _single_panel_title(fig, ok)
    _skipped_note(fig, skipped)
    return fig


def regret_vs_epsilon(df: pd.DataFrame):
    """Expected regret against ε at the T with the most ε (private learners; non-private
    learners as horizontal lines of their own colour, drawn as constant theory-free curves)."""
    rows = _stochastic_main(_final(df))
    private = rows[rows["private"] & np.isfinite(rows["epsilon"])]
    T = private[private["status"] == "ok"].groupby("T")["epsilon"].nunique().idxmax()
    at_T = rows[rows["T"] == T]
    ok = at_T[(at_T["status"] == "ok") & at_T["private"]]
    ok = _with_lines(ok, "epsilon", minimum=2)
    public = at_T[(at_T["status"] == "ok") & (at_T["learner"] == "rwm")]  # the non-private reference
    base = _theory(ok, "epsilon", "expected_regret")
    eps = np.geomspace(float(ok["epsilon"].min()), float(ok["epsilon"].max()), 64)

    def lines(learner: str, row: pd.Series, xs: np.ndarray) -> list[TheoryLine]:
        out = base(learner, row, xs)
        if learner == ok["learner"].iloc[0]:  # the non-private learners' level, once per panel
            for name, g in public.groupby("learner"):
                out.append(TheoryLine(name, f"non-private, measured ({g['expected_regret'].mean():.3g})", eps,
                                      np.full(eps.shape, g["expected_regret"].mean()), color(name), "secondary"))
        return out

    fig = learning_curves(ok.drop(columns="T").assign(T=T), x="epsilon", y="expected_regret", xlabel="ε",
                          ylabel="average expected regret", theory=lines, trivial=theory.trivial_regret_of,
                          trivial_label=TRIVIAL_LABEL, zero_label=ZERO_LABEL)
    ax = fig.axes[0]
    ax.set_title(f"T = {T:,}, k = {int(at_T['k'].iloc[0])}", fontsize=ax.title.get_fontsize())
    _skipped_note(fig, at_T[at_T["status"] == "skipped"])
    return fig


def regret_vs_k(df: pd.DataFrame):
    """Expected regret against k at fixed T and ε; the grey line is uniform play's regret
    gap·(1 − 1/k), which grows with k."""
    rows = _final(df)
    rows = rows[(rows["kind"] == "stochastic") & (rows["status"] == "ok")]
    counts = rows[rows["private"]].groupby(["T", "epsilon"])["k"].nunique()
    T, eps = counts.idxmax()
    sub = rows[(rows["T"] == T) & ((rows["epsilon"] == eps) | ~rows["private"])]
    sub = _with_lines(sub, "k").drop(columns="problem_id")  # k identifies the problem here
    base = _theory(sub, "k", "expected_regret")
    gap = float(sub["gap"].iloc[0])

    def lines(learner: str, row: pd.Series, xs: np.ndarray) -> list[TheoryLine]:
        out = base(learner, row, xs)
        if learner == sub["learner"].iloc[0]:
            out.append(TheoryLine("uniform play", "chance regret gap·(1 − 1/k)", xs,
                                  np.array([theory.trivial_regret("stochastic", float(k), gap) for k in xs]), REFERENCE_GREY, "secondary"))
        return out

    fig = learning_curves(sub, x="k", y="expected_regret", xlabel="number of experts k", ylabel="average expected regret",
                          theory=lines, zero_label=ZERO_LABEL)
    ax = fig.axes[0]
    ax.set_title(f"T = {T:,}, private learners at ε = {eps:g}", fontsize=ax.title.get_fontsize())
    return fig


def ftl_trap(df: pd.DataFrame):
    """Expected regret on the FTL trap: FTL's stays at ½ (linear regret), the Hedge family's
    decays under Thm 11.1's bound."""
    rows = _final(df)
    ok = rows[(rows["kind"] == "ftl_trap") & (rows["status"] == "ok")]
    fig = learning_curves(ok, x="T", y="expected_regret", xlabel="horizon T", ylabel="average expected regret",
                          theory=_theory(ok, "T", "expected_regret"), zero_label=ZERO_LABEL)
    _single_panel_title(fig, ok)
    _explain_trap(fig, ok)
    return fig


def _explain_trap(fig, ok: pd.DataFrame) -> None:
    """Caption note: why a private learner beats its non-private version on the trap — on it
    every expert loses about T/2, so uniform play is optimal and a smaller learning rate
    (closer to uniform) has less regret; the η ratio is the recorded one."""

    eta = ok[np.isfinite(ok["eta"])].groupby(["learner", "T"])["eta"].first().unstack("learner")
    regret = ok.groupby(["learner", "T"])["expected_regret"].mean().unstack("learner")
    for private in [c for c in eta.columns if c != "rwm" and "rwm" in eta.columns]:
        ratio = (eta["rwm"] / eta[private]).dropna()
        below = (regret[private] < regret["rwm"]).reindex(ratio.index).mean()
        if len(ratio) and below > 0.5:
            add_note(fig, f"{private} has less regret than rwm here because its recorded learning rate is "
                          f"{number_range(ratio.min(), ratio.max())}× smaller (the price of privacy): on this sequence every "
                          "expert loses about T/2, so uniform play is optimal and a smaller learning rate, closer to "
                          "uniform, loses less; privacy does not help in general.")


def coin(df: pd.DataFrame):
    """Expected regret on fair coins against T (one panel per k with a T sweep): every
    learner's regret is the best-in-hindsight fluctuation; Thm 11.1's bound at the recorded η
    (dashed) beside the minimax lower bound √(ln k/(2T)) (grey)."""
    rows = _final(df)
    ok = _with_lines(rows[(rows["kind"] == "coin") & (rows["status"] == "ok")], "T")
    if ok.empty:  # a config without a fair-coin T sweep still gets the figure file

        return _note("experts: no fair-coin T sweep in this config")

    def lines(learner: str, row: pd.Series, xs: np.ndarray) -> list[TheoryLine]:
        out = _theory(ok, "T", "expected_regret")(learner, row, xs)
        if learner == ok["learner"].iloc[0]:  # once per panel
            ts = np.geomspace(float(ok["T"].min()), float(ok["T"].max()), 64)
            out.append(TheoryLine("any learner", "minimax lower bound √(ln k/(2T)) (Cesa-Bianchi & Lugosi 2006, Thm 3.7)", ts,
                                  theory.regret_lower_bound_coin(ts, int(row["k"])), REFERENCE_GREY, "secondary"))
        return out

    fig = learning_curves(ok, x="T", y="expected_regret", xlabel="horizon T", ylabel="average expected regret",
                          theory=lines, zero_label=ZERO_LABEL)
    _single_panel_title(fig, ok)
    return fig


def realizable(df: pd.DataFrame):
    """Realized regret on realizable sequences: sv_experts against the Hedge family."""
    rows = _final(df)
    ok = _with_lines(rows[(rows["kind"] == "realizable") & (rows["status"] == "ok")], "T")
    fig = learning_curves(ok, x="T", y="regret", xlabel="horizon T", ylabel="average realized regret",
                          theory=_theory(ok, "T", "regret"), trivial=theory.trivial_regret_of,
                          trivial_label=TRIVIAL_LABEL, zero_label=ZERO_LABEL)
    _single_panel_title(fig, ok)
    return fig


def tight_accounting(df: pd.DataFrame):
    """private_rwm_tight against private_rwm (same ε, δ) on the stochastic T sweep, the η
    ratio bought by the RDP accountant (recorded) in the panel titles."""

    rows = _stochastic_main(_final(df))
    ok = rows[(rows["status"] == "ok") & rows["learner"].isin(["private_rwm", "private_rwm_tight"])]
    ok = _with_lines(ok, "T")
    eta = ok.groupby(["epsilon", "T", "learner"])["eta"].first().unstack("learner").dropna()
    fig = learning_curves(ok, x="T", y="expected_regret", xlabel="horizon T", ylabel="average expected regret",
                          theory=_theory(ok, "T", "expected_regret"), trivial=theory.trivial_regret_of,
                          trivial_label=TRIVIAL_LABEL, zero_label=ZERO_LABEL)
    if {"private_rwm", "private_rwm_tight"} <= set(eta.columns):
        ratio = (eta["private_rwm_tight"] / eta["private_rwm"]).groupby("epsilon").agg(["min", "max"])
        for ax in fig.axes:
            for e, (lo, hi) in ratio.iterrows():
                if ax.get_title() == f"ε = {e:g}":
                    span = f"{lo:.1f}" if np.isclose(lo, hi, rtol=0.05) else number_range(lo, hi, ".1f")
                    ax.set_title(f"ε = {e:g}: η(tight)/η(adv. comp.) = {span}", fontsize=ax.title.get_fontsize())
    return fig
