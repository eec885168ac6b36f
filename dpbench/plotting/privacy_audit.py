"""Figure of the ``privacy_audit`` experiment (seaborn): tightness and power at a glance.

One row per audited name (mechanisms first, then learners in the catalogue's legend order;
component audits marked as such, with the component's claimed ε): the empirical ε lower
bound of the correct copy (blue) and of the broken copy (red, the same learner with a
calibration error, same claim) as a ratio to the claim, filled circles; the exact ε(δ) of
each copy's output law, where it is known, as open diamonds. The claim is the dashed line at
1; a bound right of it refutes the claim (shaded). The correct copy's marks sit above the
row's centre, the broken copy's below, each copy's diamond on the outer line and its circle
on the inner one, so none hides another (a bound of 0 at an exact ε of 0 included).
Tightness: how close the blue circle is to the blue diamond; power: the red marks right of 1.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpbench.plotting.style import DOUBLE_COLUMN, LEARNER_ORDER, paper_style

PALETTE = {"correct": "#4477AA", "broken": "#CC3311"}  # Tol bright blue / vibrant red: colour-blind safe


def _name(learner: str, claim: float, instance: str, delta: float | None = None) -> str:
    """Row label; ``delta`` is given where one learner is audited at several δ (e.g.
    ``output_perturbation``'s ℓ2-Laplace (δ = 0) and Gaussian modes)."""
    component = "component, " if isinstance(instance, str) and "[component" in instance else ""
    return f"{learner} ({component}ε = {claim:.3g}" + (f", δ = {delta:g})" if delta is not None else ")")


#: Largest ratio to the claim drawn on a linear axis; beyond, the axis is linear from 0 to the
#: claim and logarithmic above it (a broken copy's exact ε of 100× its claim left every
#: correct copy's points in the first 1/100 of a linear axis).
SYMLOG_ABOVE = 5.0


def audit_bounds(df: pd.DataFrame) -> plt.Figure:
    """Lower bound / claimed ε (filled) and exact ε(δ) / claimed ε (open) per audited name
    and copy; see the module doc."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch


    ok = df[df["status"] == "ok"].copy()
    if ok.empty:
        raise ValueError("no status-ok audit rows to draw")
    ok["bound / claim"] = ok["epsilon_lower_bound"] / ok["eps_reported"]
    ok["exact / claim"] = ok["epsilon_exact"] / ok["eps_reported"]
    instances = ok.get("instance", pd.Series([""] * len(ok), index=ok.index))
    deltas = ok.get("delta_reported", pd.Series([0.0] * len(ok), index=ok.index))
    several = deltas.groupby(ok["learner"]).transform("nunique") > 1
    ok["name"] = [_name(l, e, i, d if s else None) for l, e, i, d, s in zip(ok["learner"], ok["eps_reported"], instances, deltas, several)]
    if "verdict" in ok:  # an audit that did not pass says so on its row (no_power: its broken copy was not caught)
        ok["name"] += ok["verdict"].map(lambda v: "" if v == "pass" or not isinstance(v, str) else f" [{v.replace('_', ' ')}]")
    rank = {name: i for i, name in enumerate(LEARNER_ORDER)}
    learners = sorted(ok["learner"].unique(), key=lambda l: (l in rank, rank.get(l, 0), l))  # mechanisms first
    order = [lab for l in learners for lab in ok.loc[ok["learner"] == l, "name"].unique()]
    with paper_style():
        fig, ax = plt.subplots(figsize=(DOUBLE_COLUMN, 0.24 * len(order) + 1.1))
        high = max(2.25, float(np.nanmax(ok[["bound / claim", "exact / claim"]].to_numpy())) * 1.05)
        symlog = high > SYMLOG_ABOVE  # one far point (a broken copy's exact ε) would squash every other row's
        high *= 1.4 if symlog else 1.0  # the farthest marker whole on a log axis (1.05 is a sliver of a decade)
        ax.axvspan(1.0, high, color=PALETTE["broken"], alpha=0.06, lw=0, zorder=0)
        ax.axvline(1.0, color="0.15", ls=(0, (4, 2)), lw=1.0, zorder=1)
        position = {name: i for i, name in enumerate(order)}
        side = {"correct": -1.0, "broken": 1.0}  # y grows downwards: correct above, broken below
        for variant, rows in ok.groupby("variant"):
            y, way, colour = rows["name"].map(position), side.get(variant, 0.0), PALETTE.get(variant, "0.3")
            ax.scatter(rows["bound / claim"], y + 0.12 * way, marker="o", s=20, color=colour, lw=0, zorder=3)
            has = rows["exact / claim"].notna()
            ax.scatter(rows.loc[has, "exact / claim"], (y + 0.36 * way)[has], marker="D", s=24, facecolors="none",
                       edgecolors=PALETTE.get(variant, "0.3"), linewidths=1.0, zorder=4)
        ax.set_yticks(range(len(order)), order)
        ax.set_ylim(len(order) - 0.5, -0.5)
        if symlog:  # linear up to the claim, logarithmic beyond it
            ax.set_xscale("symlog", linthresh=1.0, linscale=2.0)
            ax.set_xlim(-0.03, high)
        else:
            ax.set_xlim(-0.03 * high, high)  # a bound of 0 stays fully visible
        ax.set_xlabel(r"$\varepsilon$ / claimed $\varepsilon$")
        ax.set_ylabel("")
        ax.grid(axis="y", visible=False)
        handles = [
            Line2D([], [], marker="o", ls="none", ms=4.5, color=PALETTE["correct"]),
            Line2D([], [], marker="o", ls="none", ms=4.5, color=PALETTE["broken"]),
            Line2D([], [], marker="o", ls="none", ms=4.5, color="0.4"),
            Line2D([], [], marker="D", ls="none", ms=4.5, mfc="none", mec="0.4"),
            Line2D([], [], color="0.15", ls=(0, (4, 2)), lw=1.0),
            Patch(color=PALETTE["broken"], alpha=0.15, lw=0),
        ]
        labels = ["correct copy", "broken copy (calibration error)", "empirical lower bound (Clopper–Pearson or trade-off curve)",
                  r"exact $\varepsilon(\delta)$ of the copy's output law", "the claim", "claim refuted"]
        fig.tight_layout()
        fig.canvas.draw()
        top = ax.get_tightbbox(fig.canvas.get_renderer()).transformed(fig.transFigure.inverted()).y1
        fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, top + 0.005), ncol=3, frameon=False,
                   borderaxespad=0.0, columnspacing=1.2, handletextpad=0.4)
    return fig
