"""Figure recipes of the ``linear_loss`` experiment: excess loss vs T with its bound."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from dpbench.plotting.experts import _by_learner_eps, _curves, _empty, _finish
from dpbench.plotting.style import RC, subplots


def excess_vs_T(df: pd.DataFrame):
    from dpbench.experiments.linear_loss import theory_curve

    ok = df[df["status"] == "ok"]
    if ok.empty:
        return _empty("excess loss vs T")
    ds = sorted(d for d, g in ok.groupby("d") if g["T"].nunique() >= 3) or sorted(ok["d"].unique())
    fig, axes = subplots(len(ds), width=3.6, height=3.0)
    styles = {}
    with plt.rc_context(RC):
        for ax, d in zip(axes, ds):
            rows = ok[ok["d"] == d]
            _curves(ax, rows, x="T", metric="excess_loss", group=_by_learner_eps, theory=theory_curve, exponent=lambda l: -0.5, styles=styles)
            ax.set_xlabel("horizon T (= sample size)")
            ax.set_title(f"d = {int(d)}, gap = {rows['gap'].iloc[0]:g}, δ = {rows['delta'].max():g}")
    return _finish(fig, axes, "LinearLearner: excess population loss vs T", "excess population loss")
