"""Figures of the ``private_erm`` experiment (algorithms.md §8 "Private ERM" and "Cost").

Each function takes the collected results and returns a matplotlib Figure (no file I/O).
Theory curves come from :mod:`dpbench.theory` through the experiment's ``excess_rate``
callable ``theory_curve(learner, n, epsilon, row)``; slopes are fitted with
:func:`dpbench.analysis.loglog_slope`.
"""

from __future__ import annotations

import json
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpbench.analysis import learning_regime, loglog_slope, summarise
from dpbench.plotting.style import RC, color, eps_label, order, subplots

FLOOR = 1e-7
#: Test errors are measured on 5·10^4 held-out examples: 10^-4 is below their resolution.
ERROR_FLOOR = 1e-4


def _main(df: pd.DataFrame) -> pd.DataFrame:
    """The main grid: the logistic problem (other problems, e.g. halfspace, are sweeps) at its
    most common d."""
    ok = df[df["status"] == "ok"]
    if (ok["problem"] == "logistic").any():
        ok = ok[ok["problem"] == "logistic"]
    if ok.empty:
        return ok
    d0 = int(ok["d"].value_counts().idxmax())
    return ok[ok["d"] == d0]


def _fmt_slope(slope: float, lo: float, hi: float) -> str:
    return f"{slope:.2f} [{lo:.2f}, {hi:.2f}]" if np.isfinite(slope) else "n/a"


def _band(ax, x, s, c, label=None, ls="-", marker="o", floor=FLOOR):
    """Mean line and 95% CI band of the mean. On log axes a lower CI end ≤ 0 is drawn at
    ``mean²/upper`` (the band's mirror image in log space) instead of at the floor."""
    mean, lo, hi = (s[k].to_numpy(dtype=float) for k in ("mean", "lo", "hi"))
    with np.errstate(divide="ignore", invalid="ignore"):
        lo = np.where(lo > 0, lo, mean**2 / hi)
    ax.plot(x, np.clip(mean, floor, None), marker=marker, ms=2.5, lw=1.3, color=c, label=label, ls=ls)
    ax.fill_between(x, np.clip(np.nan_to_num(lo, nan=floor), floor, None), np.clip(hi, floor, None), color=c, alpha=0.15, lw=0)


def _exponent(learner: str) -> float:
    from dpbench.experiments.private_erm import EXPONENT

    return EXPONENT.get(learner, (math.nan, ""))[0]


def error_vs_epsilon(df: pd.DataFrame, *, theory_curve) -> plt.Figure:
    """Test error and excess empirical risk vs ε at the largest n of the main dimension."""
    main = _main(df)
    fig, axes = subplots(2, width=3.6, height=3.0, sharey=False)
    if main.empty:
        return fig
    n_max = int(main["n"].max())
    at_n = main[main["n"] == n_max]
    private = at_n[at_n["private"] & np.isfinite(at_n["epsilon"])]
    eps_all = np.sort(private["epsilon"].unique()) if len(private) else np.array([0.1, 10.0])
    with plt.rc_context(RC):
        ax_err, ax_exc = axes
        for learner in order(at_n["learner"].unique()):
            rows = at_n[at_n["learner"] == learner]
            c = color(learner)
            if not rows["private"].iloc[0] or not np.isfinite(rows["epsilon"]).any():
                for ax, metric in ((ax_err, "error"), (ax_exc, "excess_loss")):
                    m = rows[metric].mean()
                    if metric == "error" or m > FLOOR:
                        ax.axhline(max(m, ERROR_FLOOR if metric == "error" else FLOOR), color=c, ls=":", lw=1.2, label=f"{learner} (non-private)" if metric == "error" else None)
                continue
            rows = rows[np.isfinite(rows["epsilon"])]
            err = summarise(rows, ["epsilon"], "error").sort_values("epsilon")
            _band(ax_err, err["epsilon"], err, c, label=learner, floor=ERROR_FLOOR)
            exc = summarise(rows, ["epsilon"], "excess_loss").sort_values("epsilon")
            slope, lo, hi, _ = loglog_slope(exc["epsilon"], exc["mean"])
            _band(ax_exc, exc["epsilon"], exc, c, label=f"{learner}: {_fmt_slope(slope, lo, hi)}; theory {_exponent(learner):g}")
            xs = np.geomspace(eps_all.min(), eps_all.max(), 40)
            row = rows.iloc[0]
            curve = [theory_curve(learner, n_max, float(e), row) for e in xs]
            if all(v is not None for v in curve):
                ax_exc.plot(xs, np.clip(np.asarray(curve, dtype=float), FLOOR, None), ls="--", lw=1.0, color=c)
        for ax in axes:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("ε")
        ax_err.set_ylabel("test error (held-out)")
        ax_err.set_title(f"test error, n = {n_max}, d = {int(main['d'].iloc[0])}")
        ax_exc.set_ylabel("excess empirical risk J_λ(θ̂) − J_λ(θ*)")
        ax_exc.set_title("excess risk (dashed: theory)")
        ax_err.legend(loc="lower left", frameon=False, fontsize=6.5)
        ax_exc.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False, title="fitted slope in ε [95% CI]", title_fontsize=7)
        fig.tight_layout()
    return fig


def error_vs_n(df: pd.DataFrame, *, theory_curve) -> plt.Figure:
    """Rows: test error, excess risk; columns: ε; log–log, with theory and fitted slopes."""
    main = _main(df)
    panels = sorted(main.loc[main["private"] & np.isfinite(main["epsilon"]), "epsilon"].unique()) or [math.inf]
    cols = len(panels)
    with plt.rc_context(RC):
        fig, grid = plt.subplots(2, cols, figsize=(2.7 * cols + 2.2, 5.2), squeeze=False, sharex=True, sharey="row")
        for j, eps in enumerate(panels):
            rows = main[(~main["private"]) | (main["epsilon"] == eps)]
            ax_err, ax_exc = grid[0, j], grid[1, j]
            notes = []
            for learner in order(rows["learner"].unique()):
                lr = rows[rows["learner"] == learner]
                c = color(learner)
                err = summarise(lr, ["n"], "error").sort_values("n")
                _band(ax_err, err["n"], err, c, label=learner, floor=ERROR_FLOOR)
                exc = summarise(lr, ["n"], "excess_loss").sort_values("n")
                if lr["private"].iloc[0]:
                    _band(ax_exc, exc["n"], exc, c)
                    regime = learning_regime(exc["n"], exc["mean"])
                    slope, lo, hi, _ = loglog_slope(exc["n"][regime], exc["mean"][regime])
                    if np.isfinite(slope):
                        notes.append((f"{slope:.2f} ({_exponent(learner):g})", c))
                    xs = np.geomspace(exc["n"].min(), exc["n"].max(), 40)
                    curve = theory_curve(learner, xs, float(eps), lr.iloc[0])
                    if curve is not None:
                        ax_exc.plot(xs, np.clip(curve, FLOOR, None), ls="--", lw=1.0, color=c)
            for k, (text, c) in enumerate(notes):
                ax_exc.text(0.03, 0.03 + 0.075 * k, text, transform=ax_exc.transAxes, color=c, fontsize=6.5)
            ax_err.set_title(eps_label(eps))
            for ax in (ax_err, ax_exc):
                ax.set_xscale("log")
                ax.set_yscale("log")
            ax_exc.set_xlabel("n")
        grid[0, 0].set_ylabel("test error (held-out)")
        grid[0, 0].set_ylim(ERROR_FLOOR * 0.8, 1.0)
        grid[1, 0].set_ylabel("excess empirical risk")
        grid[1, 0].set_ylim(bottom=FLOOR)
        handles, labels = grid[0, 0].get_legend_handles_labels()
        handles.append(plt.Line2D([], [], ls="--", color="0.3"))
        labels.append("theory (same colour)")
        fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False,
                   title="text: fitted slope in n\n(theory exponent)", title_fontsize=7)
        fig.suptitle(f"Private logistic regression, d = {int(main['d'].iloc[0]) if len(main) else '?'}")
        fig.tight_layout()
    return fig


def _one_epsilon(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of the ε closest to 1 (∞ for non-private learners)."""
    eps = rows["epsilon"].unique()
    finite = [e for e in eps if np.isfinite(e)]
    pick = min(finite, key=lambda e: abs(math.log(e))) if finite else eps[0]
    return rows[rows["epsilon"] == pick]


def _learner_param(rows: pd.DataFrame, name: str, default):
    try:
        return json.loads(rows["cell_key"].iloc[0])["learner_params"].get(name, default)
    except (ValueError, KeyError, TypeError):
        return default


def runtime(df: pd.DataFrame) -> plt.Figure:
    """Fit seconds vs n (main d) and vs d (at the n shared by the most dimensions)."""
    ok = df[(df["status"] == "ok") & df["fit_seconds"].notna()]
    main = _main(df)
    fig, axes = subplots(2, width=3.4, height=3.0, sharey=False)
    with plt.rc_context(RC):
        ax_n, ax_d = axes
        for learner in order(main["learner"].unique()):
            rows = _one_epsilon(main[main["learner"] == learner])
            s = summarise(rows, ["n"], "fit_seconds").sort_values("n")
            slope, lo, hi, _ = loglog_slope(s["n"], s["mean"])
            c = color(learner)
            _band(ax_n, s["n"], s, c, label=f"{learner}: {_fmt_slope(slope, lo, hi)}")
            if len(s):
                xs = np.geomspace(s["n"].min(), s["n"].max(), 20)
                ax_n.plot(xs, s["mean"].iloc[-1] * xs / s["n"].iloc[-1], ls="--", lw=0.9, color=c)
        ax_n.set_xscale("log")
        ax_n.set_yscale("log")
        ax_n.set_xlabel("n")
        ax_n.set_ylabel("fit seconds")
        ax_n.set_title(f"cost vs n (d = {int(main['d'].iloc[0]) if len(main) else '?'}); dashed: ∝ n")
        ax_n.legend(loc="upper left", frameon=False, fontsize=6, title="slope in n (theory 1)", title_fontsize=6.5)
        if ok["d"].nunique() > 1:
            per_n = ok.groupby("n")["d"].nunique()
            n0 = int(per_n.idxmax())
            at = ok[ok["n"] == n0]
            for learner in order(at["learner"].unique()):
                rows = _one_epsilon(at[at["learner"] == learner])
                s = summarise(rows, ["d"], "fit_seconds").sort_values("d")
                if len(s) < 2:
                    continue
                c = color(learner)
                _band(ax_d, s["d"], s, c, label=learner)
                ds = np.linspace(s["d"].min(), s["d"].max(), 40)
                if learner == "exp_mech_grid":
                    g = float(_learner_param(rows, "points", 7))
                    model = ds * g**ds
                    ref = s["d"].iloc[-1] * g ** s["d"].iloc[-1]
                    ax_d.plot(ds, s["mean"].iloc[-1] * model / ref, ls="--", lw=1.0, color=c, label=f"∝ d·{g:g}^d")
                else:
                    ax_d.plot(ds, s["mean"].iloc[-1] * ds / s["d"].iloc[-1], ls="--", lw=0.8, color=c)
            ax_d.set_yscale("log")
            ax_d.set_xlabel("d")
            ax_d.set_title(f"cost vs d (n = {n0}); dashed: ∝ d, or ∝ d·g^d")
            ax_d.legend(loc="upper left", frameon=False, fontsize=6)
        else:
            ax_d.set_visible(False)
        fig.tight_layout()
    return fig
