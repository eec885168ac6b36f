"""Figure of the ``privacy_audit`` experiment (seaborn): tightness and power at a glance.

One row per audited name (mechanisms first, then learners in the catalogue's legend order;
component audits marked as such, with the component's claimed ε): the empirical ε lower
bound of the correct copy (blue) and of the broken copy (red, noise halved / rate doubled,
same claim) as a ratio to the claim, filled circles; the exact ε(δ) of the audited pair,
where it is known, as open diamonds. The claim is the dashed line at 1; a bound right of it
refutes the claim (shaded). Tightness: how close the blue circle is to 1; power: the red
circle right of 1.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

PALETTE = {"correct": "#4477AA", "broken": "#CC3311"}  # Tol bright blue / vibrant red: colour-blind safe


def _name(learner: str, claim: float, instance: str) -> str:
    component = "component, " if isinstance(instance, str) and "[component" in instance else ""
    return f"{learner} ({component}ε = {claim:.3g})"


def audit_bounds(df: pd.DataFrame) -> plt.Figure:
    """Lower bound / claimed ε (filled) and exact ε(δ) / claimed ε (open) per audited name
    and copy; see the module doc."""
    import seaborn as sns
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from dpbench.plotting.style import DOUBLE_COLUMN, LEARNER_ORDER, paper_style

    ok = df[df["status"] == "ok"].copy()
    if ok.empty:
        raise ValueError("no status-ok audit rows to draw")
    ok["bound / claim"] = ok["epsilon_lower_bound"] / ok["eps_reported"]
    ok["exact / claim"] = ok["epsilon_exact"] / ok["eps_reported"]
    ok["name"] = [_name(l, e, i) for l, e, i in zip(ok["learner"], ok["eps_reported"], ok.get("instance", pd.Series([""] * len(ok), index=ok.index)))]
    rank = {name: i for i, name in enumerate(LEARNER_ORDER)}
    learners = sorted(ok["learner"].unique(), key=lambda l: (l in rank, rank.get(l, 0), l))  # mechanisms first
    order = [lab for l in learners for lab in ok.loc[ok["learner"] == l, "name"].unique()]
    with paper_style():
        fig, ax = plt.subplots(figsize=(DOUBLE_COLUMN, 0.2 * len(order) + 1.1))
        high = max(2.25, float(np.nanmax(ok[["bound / claim", "exact / claim"]].to_numpy())) * 1.05)
        ax.axvspan(1.0, high, color=PALETTE["broken"], alpha=0.06, lw=0, zorder=0)
        ax.axvline(1.0, color="0.15", ls=(0, (4, 2)), lw=1.0, zorder=1)
        sns.stripplot(data=ok, y="name", x="bound / claim", hue="variant", hue_order=["correct", "broken"], order=order,
                      palette=PALETTE, ax=ax, size=4.5, jitter=False, legend=False, zorder=3)
        position = {name: i for i, name in enumerate(order)}
        exact = ok.dropna(subset=["exact / claim"])
        for variant, rows in exact.groupby("variant"):
            ax.scatter(rows["exact / claim"], rows["name"].map(position), marker="D", s=22, facecolors="none",
                       edgecolors=PALETTE.get(variant, "0.3"), linewidths=1.0, zorder=4)
        ax.set_xlim(0, high)
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
        labels = ["correct copy", "broken copy (noise halved / rate doubled)", "empirical lower bound (Clopper–Pearson)",
                  r"exact $\varepsilon(\delta)$ of the pair", "the claim", "claim refuted"]
        fig.tight_layout()
        fig.canvas.draw()
        top = ax.get_tightbbox(fig.canvas.get_renderer()).transformed(fig.transFigure.inverted()).y1
        fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, top + 0.005), ncol=3, frameon=False,
                   borderaxespad=0.0, columnspacing=1.2, handletextpad=0.4)
    return fig
