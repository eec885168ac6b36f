"""Figure recipes of the ``experts`` experiment (algorithms.md §8 "Regret").

Every panel: empirical means with 95% bands, the matching theoretical curve from
:mod:`dpbench.theory` dashed in the learner's colour, log–log axes, and in the legend the
fitted slope (95% CI) on the decaying part beside the theoretical exponent.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpbench.analysis import learning_regime, loglog_slope, summarise
from dpbench.plotting.style import RC, color, eps_label, order, subplots

FLOOR = 1e-5
LINESTYLES = ["-", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1))]


def _final(df: pd.DataFrame) -> pd.DataFrame:
    ok = df[df["status"] == "ok"]
    return ok[ok["t"] == ok["T"]]


def _slope_label(label: str, x, y, exponent: float | None, *, regime: bool = True) -> str:
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = learning_regime(x, y) if regime and len(y) else np.ones(len(y), bool)
    slope, lo, hi, _ = loglog_slope(x[keep], y[keep])
    fit = f"slope {slope:.2f} [{lo:.2f}, {hi:.2f}]" if np.isfinite(slope) else "slope n/a"
    theo = f"; theory {exponent:g}" if exponent is not None and np.isfinite(exponent) else ""
    return f"{label}: {fit}{theo}"


def _curves(
    ax,
    rows: pd.DataFrame,
    *,
    x: str,
    metric: str,
    group: Callable[[pd.Series], str],
    theory: Callable[[str, np.ndarray, pd.Series], "np.ndarray | None"] | None,
    exponent: Callable[[str], float | None],
    styles: dict | None = None,
) -> None:
    if rows.empty:  # e.g. a sweep with fewer than three horizons in a small config
        return
    rows = rows.assign(_label=rows.apply(group, axis=1))
    stats = summarise(rows, ["learner", "_label", x], metric)
    for learner in order(stats["learner"].unique()):
        for j, label in enumerate(sorted(stats.loc[stats["learner"] == learner, "_label"].unique())):
            s = stats[(stats["learner"] == learner) & (stats["_label"] == label)].sort_values(x)
            c = color(learner)
            ls = (styles or {}).get(label, LINESTYLES[j % len(LINESTYLES)])
            ax.plot(s[x], s["mean"].clip(lower=FLOOR), marker="o", ms=2.5, lw=1.3, color=c, ls=ls,
                    label=_slope_label(label, s[x], s["mean"], exponent(learner)) if len(s) >= 3 else label)
            ax.fill_between(s[x], s["lo"].clip(lower=FLOOR), s["hi"].clip(lower=FLOOR), color=c, alpha=0.15, lw=0)
            if theory is not None and len(s) >= 2:
                xs = np.geomspace(s[x].min(), s[x].max(), 40)
                row = rows[(rows["learner"] == learner) & (rows["_label"] == label)].iloc[0]
                curve = theory(learner, xs, row)
                if curve is not None:
                    ax.plot(xs, np.clip(curve, FLOOR, None), ls="--", lw=0.9, color=c, alpha=0.9)
    ax.set_xscale("log")
    ax.set_yscale("log")


def _finish(fig, axes, title: str, ylabel: str):
    """Y label, one legend under each panel (slopes differ per panel), title."""
    with plt.rc_context(RC):
        axes[0].set_ylabel(ylabel)
        for ax in axes:
            handles, labels = ax.get_legend_handles_labels()
            handles.append(plt.Line2D([], [], ls="--", color="0.3"))
            labels.append("theory bound (same colour)")
            ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=1, frameon=False, fontsize=6.5)
        fig.suptitle(title)
        fig.tight_layout()
    return fig


def _main_block(final: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Rows of ``kind`` at the k with the most distinct T (the T sweep)."""
    rows = final[final["kind"] == kind]
    if rows.empty:
        return rows
    k = rows.groupby("k")["T"].nunique().idxmax()
    return rows[rows["k"] == k]


def _empty(title: str):
    fig, (ax,) = subplots(1)
    ax.text(0.5, 0.5, "no data for this figure in the config", ha="center", va="center", transform=ax.transAxes)
    ax.set_title(title)
    return fig


def _by_learner_eps(r: pd.Series) -> str:
    return r["learner"] if not r["private"] else f"{r['learner']} ({eps_label(r['epsilon'])})"


def regret_vs_T(df: pd.DataFrame):
    from dpbench.experiments.experts import EXPONENT_T, theory_curve

    rows = _main_block(_final(df), "stochastic")
    if rows.empty:
        return _empty("regret vs T")
    sweep_eps = rows[rows["private"]].groupby("epsilon")["T"].nunique()
    panels = sorted(sweep_eps[sweep_eps >= 3].index) or [math.inf]
    fig, axes = subplots(len(panels), width=3.4, height=3.0)
    with plt.rc_context(RC):
        for ax, eps in zip(axes, panels):
            sub = rows[(~rows["private"]) | (rows["epsilon"] == eps)]
            sub = sub[sub.groupby(["learner", "epsilon"])["T"].transform("nunique") >= 3]
            _curves(ax, sub, x="T", metric="expected_regret", group=lambda r: r["learner"], theory=theory_curve,
                    exponent=lambda l: EXPONENT_T.get(l))
            ax.set_title(f"{eps_label(eps)}, δ = {sub['delta'].max():g}, k = {int(rows['k'].iloc[0])}")
            ax.set_xlabel("horizon T")
            ax.set_ylim(FLOOR, 1.5)
    return _finish(fig, axes, f"Experts, stochastic losses (gap {rows['gap'].iloc[0]:g}): average expected regret vs T", "average expected regret")


def regret_vs_epsilon(df: pd.DataFrame):
    from dpbench.experiments.experts import theory_curve_eps

    rows = _main_block(_final(df), "stochastic")
    if rows.empty:
        return _empty("regret vs ε")
    counts = rows[rows["private"]].groupby("T")["epsilon"].nunique()
    T = counts.idxmax()
    sub = rows[rows["T"] == T]
    fig, (ax,) = subplots(1, width=4.4, height=3.2)
    with plt.rc_context(RC):
        priv = sub[sub["private"] & np.isfinite(sub["epsilon"])]
        _curves(ax, priv, x="epsilon", metric="expected_regret", group=lambda r: r["learner"], theory=theory_curve_eps,
                exponent=lambda l: -1.0 if l in ("private_rwm", "private_rwm_tight") else (-0.5 if l == "private_mw_001" else None))
        for learner, g in sub[~sub["private"]].groupby("learner"):
            ax.axhline(max(g["expected_regret"].mean(), FLOOR), color=color(learner), ls=":", lw=1.2, label=f"{learner} (non-private)")
        ax.set_xlabel("ε")
        ax.set_title(f"T = {T:,}, k = {int(sub['k'].iloc[0])}, δ = {priv['delta'].max():g}")
    return _finish(fig, [ax], "Experts: average expected regret vs ε at fixed T", "average expected regret")


def regret_vs_k(df: pd.DataFrame):
    from dpbench.experiments.experts import theory_curve_k

    final = _final(df)
    rows = final[final["kind"] == "stochastic"]
    if rows.empty or rows["k"].nunique() < 2:
        return _empty("regret vs k")
    counts = rows.groupby(["T", "epsilon", "learner"])["k"].nunique()
    T = counts.idxmax()[0]
    sub = rows[(rows["T"] == T)]
    sub = sub[sub.groupby(["learner", "epsilon"])["k"].transform("nunique") >= 3]
    fig, (ax,) = subplots(1, width=4.4, height=3.2)
    with plt.rc_context(RC):
        _curves(ax, sub, x="k", metric="expected_regret", group=_by_learner_eps, theory=theory_curve_k, exponent=lambda l: None)
        ax.set_xlabel("number of experts k")
        ax.set_title(f"T = {T:,}")
    return _finish(fig, [ax], "Experts: average expected regret vs k (bounds grow as ln k or sqrt(ln k))", "average expected regret")


def _kind_vs_T(df: pd.DataFrame, kind: str, metric: str, title: str, exponent):
    from dpbench.experiments.experts import theory_curve

    rows = _final(df)
    rows = rows[rows["kind"] == kind]
    if rows.empty:
        return _empty(title)
    fig, (ax,) = subplots(1, width=4.6, height=3.4)
    with plt.rc_context(RC):
        _curves(ax, rows, x="T", metric=metric, group=_by_learner_eps, theory=theory_curve, exponent=exponent)
        ax.set_xlabel("horizon T")
        ax.set_title(f"k = {int(rows['k'].iloc[0])}, δ = {rows['delta'].max():g}")
    return _finish(fig, [ax], title, f"average {metric.replace('_', ' ')}")


def ftl_trap(df: pd.DataFrame):
    return _kind_vs_T(df, "ftl_trap", "regret", "The FTL trap: realized regret vs T", lambda l: 0.0 if l == "ftl" else -0.5)


def realizable(df: pd.DataFrame):
    from dpbench.experiments.experts import EXPONENT_T

    return _kind_vs_T(df, "realizable", "regret", "Realizable experts: realized regret vs T", lambda l: EXPONENT_T.get(l))


def tight_accounting(df: pd.DataFrame):
    from dpbench.experiments.experts import theory_curve
    from dpbench.learners.private_rwm_tight import eta_gain

    rows = _main_block(_final(df), "stochastic")
    fig, axes = subplots(2, width=3.6, height=3.0, sharey=False)
    with plt.rc_context(RC):
        ax = axes[0]
        deltas = sorted(rows["delta"].unique()) if len(rows) else [1e-6]
        delta = max(d for d in deltas if d > 0) if any(d > 0 for d in deltas) else 1e-6
        Ts = sorted(rows["T"].unique()) if len(rows) else [10**4]
        eps_grid = np.geomspace(0.05, 20, 30)
        for T, ls in zip([Ts[0], Ts[-1]], ["-", "--"]):
            ax.plot(eps_grid, [eta_gain(float(e), delta, int(T), 10) for e in eps_grid], color="0.2", ls=ls, lw=1.2,
                    label=f"accountant, T = {int(T):,}")
        both = rows[rows["learner"].isin(["private_rwm", "private_rwm_tight"]) & np.isfinite(rows["epsilon"])]
        if len(both):
            eta = both.groupby(["learner", "epsilon", "T"])["eta"].first().unstack(0).dropna()
            if len(eta):
                ratio = (eta["private_rwm_tight"] / eta["private_rwm"]).reset_index()
                ax.scatter(ratio["epsilon"], ratio[0], s=10, color=color("private_rwm_tight"), zorder=3,
                           label="η ratio in the runs (after the cap at sqrt(ln k/T))")
        ax.set_xscale("log")
        ax.set_xlabel("ε")
        ax.set_ylabel("η(tight) / η(advanced composition)")
        ax.set_title(f"η gained by RDP accounting, δ = {delta:g}")
        ax.legend(frameon=False, loc="best")
        ax = axes[1]
        if len(both):
            sweep = both[both.groupby(["learner", "epsilon"])["T"].transform("nunique") >= 3]
            _curves(ax, sweep, x="T", metric="expected_regret", group=_by_learner_eps, theory=theory_curve,
                    exponent=lambda l: -0.5)
            ax.legend(frameon=False, fontsize=6, loc="lower left")
        ax.set_xlabel("horizon T")
        ax.set_ylabel("average expected regret")
        ax.set_title("regret: tight vs advanced composition")
        fig.suptitle("Tight accounting for private RWM")
        fig.tight_layout()
    return fig
