"""Figure kinds shared by experiments (algorithms.md §8): a metric against a size axis
faceted by ε, with theory curves; empirical sample complexity against ε, with the fitted
slope beside the theoretical exponent.

Theory curves are passed in as callables that call :mod:`dpbench.theory` (never re-typed):
``theory(learner, x, epsilon, row) -> y array or None`` where ``row`` is a results row of
the panel carrying the problem parameters.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpbench.analysis import loglog_slope, sample_complexity, summarise
from dpbench.plotting.style import RC, color, eps_label, order, subplots

TheoryCurve = Callable[[str, np.ndarray, float, pd.Series], "np.ndarray | None"]


def epsilon_panels(df: pd.DataFrame) -> list[float]:
    """Facet values: the ε of private learners (non-private learners appear in every panel)."""
    eps = sorted(df.loc[df["private"], "epsilon"].unique()) if df["private"].any() else [math.inf]
    return eps or [math.inf]


def _panel_rows(df: pd.DataFrame, epsilon: float) -> pd.DataFrame:
    return df[(~df["private"]) | (df["epsilon"] == epsilon)]


def metric_vs_size(
    df: pd.DataFrame,
    *,
    size: str = "n",
    metric: str = "error",
    theory: TheoryCurve | None = None,
    ylabel: str = "population error",
    title: str = "",
    floor: float = 1e-4,
) -> plt.Figure:
    """Mean ``metric`` (95% CI band) vs ``size`` per learner, one panel per ε, log–log,
    with each learner's theoretical curve dashed in its colour. Values below ``floor``
    (e.g. exact zeros) are drawn at the floor."""
    ok = df[df["status"] == "ok"]
    panels = epsilon_panels(ok)
    fig, axes = subplots(len(panels))
    with plt.rc_context(RC):
        for ax, eps in zip(axes, panels):
            rows = _panel_rows(ok, eps)
            stats = summarise(rows, ["learner", size], metric)
            for learner in order(stats["learner"].unique()):
                s = stats[stats["learner"] == learner].sort_values(size)
                c = color(learner)
                ax.plot(s[size], s["mean"].clip(lower=floor), marker="o", ms=2.5, lw=1.3, color=c, label=learner)
                ax.fill_between(s[size], s["lo"].clip(lower=floor), s["hi"].clip(lower=floor), color=c, alpha=0.18, lw=0)
                if theory is not None:
                    xs = np.geomspace(s[size].min(), s[size].max(), 60)
                    sample_row = rows[rows["learner"] == learner].iloc[0]
                    curve = theory(learner, xs, float(sample_row["epsilon"]), sample_row)
                    if curve is not None:
                        ax.plot(xs, np.clip(curve, floor, None), ls="--", lw=1.0, color=c)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_ylim(floor * 0.8, 1.05)
            ax.set_title(eps_label(eps))
            ax.set_xlabel(size)
        axes[0].set_ylabel(ylabel)
        handles, labels = axes[0].get_legend_handles_labels()
        handles.append(plt.Line2D([], [], ls="--", color="0.3"))
        labels.append("theory (same colour)")
        fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
        if title:
            fig.suptitle(title)
        fig.tight_layout()
    return fig


def sample_complexity_vs_epsilon(
    df: pd.DataFrame,
    *,
    alpha: float,
    beta: float,
    theory_n: Callable[[str, np.ndarray, pd.Series], "np.ndarray | None"],
    theory_exponent: Callable[[str], float],
    title: str = "",
) -> plt.Figure:
    """Empirical ``n*(α)`` (Clopper–Pearson bars) vs ε per private learner, log–log, with
    the theoretical ``n(α, ε)`` dashed and, in the legend, the fitted slope (95% CI) next
    to the theoretical exponent. Non-private learners' ``n*`` are horizontal lines."""
    ok = df[df["status"] == "ok"]
    sc = sample_complexity(ok, ["learner", "epsilon", "private"], alpha, beta)
    fig, (ax,) = subplots(1, width=4.2, height=3.2)
    with plt.rc_context(RC):
        private = sc[sc["private"] & np.isfinite(sc["epsilon"])]
        eps_all = np.sort(private["epsilon"].unique()) if len(private) else np.array([0.1, 10.0])
        for learner in order(sc["learner"].unique()):
            s = sc[sc["learner"] == learner].sort_values("epsilon")
            c = color(learner)
            if not s["private"].iloc[0]:
                if np.isfinite(s["n_star"].iloc[0]):
                    ax.axhline(s["n_star"].iloc[0], color=c, lw=1.2, ls=":", label=f"{learner} (non-private)")
                continue
            s = s[np.isfinite(s["epsilon"])]
            slope, lo, hi, m = loglog_slope(s["epsilon"], s["n_star"])
            exponent = theory_exponent(learner)
            fit = f"slope {slope:.2f} [{lo:.2f}, {hi:.2f}]" if np.isfinite(slope) else "slope n/a"
            label = f"{learner}: {fit}; theory {exponent:.2f}"
            yerr = np.vstack([s["n_star"] - s["n_low"], s["n_high"] - s["n_star"]])
            ax.errorbar(s["epsilon"], s["n_star"], yerr=np.nan_to_num(np.abs(yerr)), marker="o", ms=3, lw=1.3, capsize=2, color=c, label=label)
            row = ok[ok["learner"] == learner].iloc[0]
            xs = np.geomspace(eps_all.min(), eps_all.max(), 60)
            curve = theory_n(learner, xs, row)
            if curve is not None:
                ax.plot(xs, curve, ls="--", lw=1.0, color=c)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("ε")
        ax.set_ylabel(f"n*(α={alpha:g}), ≥{1 - beta:.0%} of reps")
        ax.set_title(title or "empirical sample complexity (dashed: theory)")
        ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
        fig.tight_layout()
    return fig
