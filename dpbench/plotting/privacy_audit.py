"""Figure of the ``privacy_audit`` experiment (seaborn): tightness and power at a glance."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

PALETTE = {"correct": "#1f77b4", "broken": "#d62728"}


def audit_bounds(df: pd.DataFrame):
    """One row per audited name: lower bound / claimed ε for correct and broken copies
    (filled), exact ε(δ) / claimed ε (open), the claim as a dashed line at 1."""
    ok = df[df["status"] == "ok"].copy()
    ok["bound / claim"] = ok["epsilon_lower_bound"] / ok["eps_reported"]
    ok["exact / claim"] = ok["epsilon_exact"] / ok["eps_reported"]
    names = sorted(ok["learner"].unique())
    ok["name"] = [f"{n} (ε={e:.3g})" for n, e in zip(ok["learner"], ok["eps_reported"])]
    order = [lab for n in names for lab in ok.loc[ok["learner"] == n, "name"].unique()]
    with sns.axes_style("whitegrid"), plt.rc_context({"font.size": 8, "axes.labelsize": 8, "xtick.labelsize": 7.5, "ytick.labelsize": 7.5, "legend.fontsize": 7.5}):
        fig, ax = plt.subplots(figsize=(7.0, 0.28 * len(order) + 1.2), layout="constrained")
        sns.stripplot(data=ok, y="name", x="bound / claim", hue="variant", order=order, palette=PALETTE, ax=ax, size=6, jitter=False, marker="o")
        exact = ok.dropna(subset=["exact / claim"])
        sns.stripplot(data=exact, y="name", x="exact / claim", hue="variant", order=order, palette=PALETTE, ax=ax, size=7, jitter=False,
                      marker="D", facecolor="none", linewidth=1.0, legend=False)
        ax.axvline(1.0, color="k", linestyle="--", linewidth=1.0)
        ax.set_xlabel("ε lower bound / claimed ε  (◇: exact ε(δ) of the pair / claimed ε)")
        ax.set_ylabel("")
        ax.legend(title="copy", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig
