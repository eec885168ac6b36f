"""Figures of the ``halfspaces_online`` experiment (algorithms.md §8, "Mistakes").

Every figure: empirical means with 95% CI bands over repetitions, theory curves from
:mod:`dpbench.theory` (via :func:`dpbench.experiments.halfspaces_online.mistake_bound`),
log axes, fitted slopes beside the theoretical exponents in the legends.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.analysis import loglog_slope, summarise
from dpbench.plotting.style import RC, color, eps_label, order, subplots

FLOOR = 0.5  # zero mistakes are drawn at this floor on log axes


def _eps_colors(eps_values) -> dict[float, tuple]:
    finite = sorted(e for e in eps_values if np.isfinite(e))
    cmap = plt.get_cmap("viridis")
    out = {e: cmap(0.1 + 0.75 * i / max(1, len(finite) - 1)) for i, e in enumerate(finite)}
    out[math.inf] = (0.35, 0.35, 0.35, 1.0)
    return out


def _band(ax, x, s, c, label=None, marker="o"):
    ax.plot(x, s["mean"].clip(lower=FLOOR), marker=marker, ms=2.5, lw=1.3, color=c, label=label)
    ax.fill_between(x, s["lo"].clip(lower=FLOOR), s["hi"].clip(lower=FLOOR), color=c, alpha=0.18, lw=0)


def _empty(msg: str):
    fig, (ax,) = subplots(1, width=4, height=2.5)
    ax.text(0.5, 0.5, msg, ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    return fig


def _dp_problem(df: pd.DataFrame):
    """problem_id of the halfspace streams on which private learners ran (most rows)."""
    hs = df[(df["problem"] == "halfspace") & (df["status"] == "ok") & df["private"]]
    if hs.empty:
        return None
    return hs["problem_id"].value_counts().index[0]


def _bound(learner: str, row: pd.Series) -> float:
    from dpbench.experiments.halfspaces_online import mistake_bound

    return mistake_bound(learner, row)


def mistakes_vs_t(df: pd.DataFrame):
    pid = _dp_problem(df)
    if pid is None:
        return _empty("no private runs")
    ok = df[(df["status"] == "ok") & (df["problem_id"] == pid)]
    learners = order(ok["learner"].unique())
    colors = _eps_colors(ok["epsilon"].unique())
    fig, axes = subplots(len(learners), width=2.7, height=2.4, max_cols=5)
    r0 = ok.iloc[0]
    with plt.rc_context(RC):
        for ax, learner in zip(axes, learners):
            g = ok[ok["learner"] == learner]
            T = g["T"].max()
            ts = np.geomspace(1, T, 100)
            ax.plot(ts, ts, ls=":", lw=0.9, color="0.5", label="t (all wrong)" if ax is axes[0] else None)
            for eps in sorted(g["epsilon"].unique()):
                ge = g[g["epsilon"] == eps]
                s = summarise(ge, ["t"], "mistakes").sort_values("t")
                c = colors[eps]
                _band(ax, s["t"], s, c, label=eps_label(eps) if g["private"].any() else "mistakes")
                bound = _bound(learner, ge.iloc[0])
                if np.isfinite(bound) and bound < 10 * T:
                    ax.axhline(bound, ls="--", lw=0.9, color=c)
                if np.isfinite(eps):
                    ax.plot(ts, theory.private_online_lower_bound_shape(ts, eps).clip(FLOOR), ls=(0, (1, 2)), lw=0.9, color=c)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_ylim(FLOOR * 0.8, T * 1.5)
            ax.set_title(learner)
            ax.set_xlabel("round t")
            if g["private"].any():
                ax.legend(loc="upper left", frameon=False, fontsize=6.5)
        axes[0].set_ylabel("cumulative mistakes")
        fig.suptitle(f"Halfspaces online: cumulative mistakes vs t  (N = {int(r0['n_features'])}, ρ = {r0['rho']:g}, "
                     f"{r0['order']} order; dashed: bound, dotted: ln t/ε shape and t)")
        fig.tight_layout()
    return fig


def _axis_figure(df: pd.DataFrame, axis: str, xcol: str, xlabel: str, title: str):
    from dpbench.experiments.halfspaces_online import final_rows, sweep_axis, sweeps

    groups = sweeps(final_rows(df), axis)
    if not groups:
        return _empty(f"no {axis} sweep")
    fig, axes = subplots(len(groups), width=3.3, height=2.9, max_cols=3)
    with plt.rc_context(RC):
        for ax, (key, group) in zip(axes, groups):
            for learner in order(group["learner"].unique()):
                g = group[group["learner"] == learner]
                if g["private"].any() and not np.isinf(g["epsilon"]).all():
                    for eps in sorted(g["epsilon"].unique()):
                        s = summarise(g[g["epsilon"] == eps], [xcol], "mistakes").sort_values(xcol)
                        ax.plot(s[xcol], s["mean"].clip(lower=FLOOR), marker="s", ms=2.5, lw=1.0, ls="-.", color=color(learner),
                                label=f"{learner} ({eps_label(eps)}): T = {int(g['T'].iloc[0])} is the trivial level")
                    continue
                s = summarise(g, [xcol], "mistakes").sort_values(xcol)
                x, unit, exponent = sweep_axis(axis, learner, s[xcol])
                slope, lo, hi, _ = loglog_slope(x, s["mean"])
                fit = f"slope in {unit} {slope:.2f} [{lo:.2f}, {hi:.2f}]" if np.isfinite(slope) else "slope n/a"
                c = color(learner)
                _band(ax, s[xcol], s, c, label=f"{learner}: {fit}; theory {exponent:g}")
                xs = np.geomspace(s[xcol].min(), s[xcol].max(), 40)
                base = g.iloc[0].copy()
                ys = []
                for xv in xs:
                    base[xcol] = xv
                    ys.append(_bound(learner, base))
                ax.plot(xs, np.asarray(ys), ls="--", lw=1.0, color=c)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(xlabel)
            r0 = group.iloc[0]
            desc = ", ".join(f"{c}={r0[c]:g}" if isinstance(r0[c], float) else f"{c}={r0[c]}" for c in ("d", "s", "rho", "order") if c != axis)
            ax.set_title(f"{desc}, T={int(r0['T'])}")
        axes[0].set_ylabel("final mistakes (t = T)")
        handles, labels = [], []
        for ax in axes:
            for h, l in zip(*ax.get_legend_handles_labels()):
                if l not in labels:
                    handles.append(h)
                    labels.append(l)
        handles.append(plt.Line2D([], [], ls="--", color="0.3"))
        labels.append("mistake bound (same colour)")
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), frameon=False, ncol=2)
        fig.suptitle(title)
        fig.tight_layout()
    return fig


def mistakes_vs_d(df: pd.DataFrame):
    return _axis_figure(df, "d", "n_features", "learner features N (log scale)", "Halfspaces online: final mistakes vs N")


def mistakes_vs_rho(df: pd.DataFrame):
    return _axis_figure(df, "rho", "rho", "margin ρ", "Halfspaces online: final mistakes vs margin ρ")


def mistakes_vs_epsilon(df: pd.DataFrame):
    from dpbench.experiments.halfspaces_online import final_rows

    pid = _dp_problem(df)
    if pid is None:
        return _empty("no private runs")
    final = final_rows(df)
    rows = final[final["problem_id"] == pid]
    fig, (ax,) = subplots(1, width=4.4, height=3.2)
    with plt.rc_context(RC):
        priv = rows[rows["private"] & np.isfinite(rows["epsilon"])]
        eps_all = np.sort(priv["epsilon"].unique())
        T = int(rows["T"].max())
        r0 = rows.iloc[0]
        for learner in order(rows["learner"].unique()):
            g = rows[rows["learner"] == learner]
            c = color(learner)
            if not g["private"].any():
                m = summarise(g, ["learner"], "mistakes")["mean"].iloc[0]
                ax.axhline(max(m, FLOOR), color=c, ls=":", lw=1.2, label=f"{learner} (non-private)")
                continue
            s = summarise(g[np.isfinite(g["epsilon"])], ["epsilon"], "mistakes").sort_values("epsilon")
            slope, lo, hi, _ = loglog_slope(s["epsilon"], s["mean"])
            fit = f"slope {slope:.2f} [{lo:.2f}, {hi:.2f}]" if np.isfinite(slope) else "slope n/a"
            _band(ax, s["epsilon"], s, c, label=f"{learner}: {fit}; theory −1")
            xs = np.geomspace(eps_all.min(), eps_all.max(), 40)
            base = g.iloc[0].copy()
            ys = []
            for e in xs:
                base["epsilon"] = e
                ys.append(_bound(learner, base))
            ax.plot(xs, np.minimum(ys, 1e3 * T), ls="--", lw=1.0, color=c)
        xs = np.geomspace(eps_all.min(), eps_all.max(), 40)
        shape = theory.dp_winnow_mistake_shape(r0["n_features"], r0["rho"], xs, float(priv["delta"].iloc[0]), T, 0.1)
        ax.plot(xs, shape, ls="-.", lw=1.0, color="0.4", label="Thm 4.5 shape (unit constant)")
        ax.axhline(T, color="0.6", lw=0.8, ls="-", label=f"T = {T:.0e} (trivial)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("ε")
        ax.set_ylabel("final mistakes (t = T)")
        ax.set_title(f"Private mistakes vs ε (N = {int(r0['n_features'])}, ρ = {r0['rho']:g}; dashed: calibrated bound)")
        ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
        fig.tight_layout()
    return fig


def dl_as_halfspace(df: pd.DataFrame):
    ok = df[(df["status"] == "ok") & (df["problem"] == "dl_as_halfspace")]
    if ok.empty:
        return _empty("no dl_as_halfspace runs")
    ls = sorted(ok["l"].dropna().unique())
    fig, axes = subplots(len(ls), width=3.0, height=2.6, max_cols=4)
    with plt.rc_context(RC):
        for ax, l in zip(axes, ls):
            g = ok[ok["l"] == l]
            T = g["T"].max()
            for learner in order(g["learner"].unique()):
                for eps in sorted(g.loc[g["learner"] == learner, "epsilon"].unique()):
                    ge = g[(g["learner"] == learner) & (g["epsilon"] == eps)]
                    s = summarise(ge, ["t"], "mistakes").sort_values("t")
                    c = color(learner)
                    name = learner if not ge["private"].any() else f"{learner} ({eps_label(eps)})"
                    _band(ax, s["t"], s, c, label=name)
                    b = _bound(learner, ge.iloc[0])
                    if np.isfinite(b) and b < 10 * T:
                        ax.axhline(b, ls="--", lw=0.9, color=c)
            ts = np.geomspace(1, T, 50)
            ax.plot(ts, ts, ls=":", color="0.5", lw=0.9)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_ylim(FLOOR * 0.8, T * 1.5)
            r0 = g.iloc[0]
            ax.set_title(f"l = {int(l)}: ρ = 1/{int(round(1 / r0['rho']))}, N = {int(r0['n_features'])}")
            ax.set_xlabel("round t")
        axes[0].set_ylabel("cumulative mistakes")
        handles, labels = axes[0].get_legend_handles_labels()
        handles.append(plt.Line2D([], [], ls="--", color="0.3"))
        labels.append("mistake bound (same colour)")
        fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
        fig.suptitle("Decision lists online via Lemma 4.10 (dotted: t)")
        fig.tight_layout()
    return fig
