"""Figures of the ``decision_lists`` experiment: error vs n (faceted by ε), empirical n*(α)
vs ε and vs |F|, fit time vs |F|. Theory curves come from :mod:`dpbench.theory` through
:mod:`dpbench.experiments.decision_lists` (never re-typed)."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FormatStrFormatter, NullFormatter

from dpbench.analysis import loglog_slope
from dpbench.analysis import sample_complexity as n_star_table
from dpbench.plotting.common import metric_vs_size
from dpbench.plotting.style import RC, color, order, subplots


def _exp():
    from dpbench.experiments import decision_lists as exp

    return exp


def error_vs_n(df: pd.DataFrame):
    exp = _exp()
    ok = df[df["status"] == "ok"]
    main = exp.main_problem(ok)
    sub = ok[ok["problem_id"] == main]
    row = sub.iloc[0]
    title = f"Decision lists (d={row['d']}, k={row['k']}, |F|={row['n_features']}, l={row['l']}, r={row['r']}): error vs n"
    return metric_vs_size(sub, size="n", theory=exp.error_rate, title=title, floor=1e-3)


def _slope_label(learner: str, x, y, exponent: float) -> str:
    slope, lo, hi, _ = loglog_slope(x, y)
    fit = f"slope {slope:.2f} [{lo:.2f}, {hi:.2f}]" if np.isfinite(slope) else "slope n/a"
    return f"{learner}: {fit}; theory {exponent:g}"


def _errorbars(ax, x, s, c, label):
    yerr = np.vstack([s["n_star"] - s["n_low"], s["n_high"] - s["n_star"]])
    ax.errorbar(x, s["n_star"], yerr=np.nan_to_num(np.abs(yerr)), marker="o", ms=3, lw=1.3, capsize=2, color=c, label=label)


def sample_complexity(df: pd.DataFrame):
    exp = _exp()
    alpha, beta = exp.ALPHA, exp.BETA
    ok = df[df["status"] == "ok"]
    main = exp.main_problem(ok)
    fig, (ax_e, ax_f) = subplots(2, width=3.9, height=3.2, sharey=False)
    with plt.rc_context(RC):
        # -- n* vs ε on the main problem
        sub = ok[ok["problem_id"] == main]
        sc = n_star_table(sub, ["learner", "epsilon", "private"], alpha, beta)
        private = sc[sc["private"] & np.isfinite(sc["epsilon"])]
        eps_all = np.sort(private["epsilon"].unique()) if len(private) else np.array([0.1, 10.0])
        row = sub.iloc[0]
        for learner in order(sc["learner"].unique()):
            s = sc[sc["learner"] == learner].sort_values("epsilon")
            c = color(learner)
            if not s["private"].iloc[0]:
                if np.isfinite(s["n_star"].iloc[0]):
                    ax_e.axhline(s["n_star"].iloc[0], color=c, lw=1.2, ls=":", label=f"{learner} (non-private)")
                continue
            s = s[np.isfinite(s["epsilon"])]
            _errorbars(ax_e, s["epsilon"], s, c, _slope_label(learner, s["epsilon"], s["n_star"], -1.0))
            xs = np.geomspace(eps_all.min(), eps_all.max(), 60)
            curve = exp.sample_size_rate(learner, xs, row)
            if curve is not None:
                ax_e.plot(xs, curve, ls="--", lw=1.0, color=c)
        ax_e.set_xscale("log")
        ax_e.set_yscale("log")
        ax_e.set_xticks(eps_all)
        ax_e.xaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax_e.xaxis.set_minor_formatter(NullFormatter())
        ax_e.set_xlabel("ε")
        ax_e.set_ylabel(f"n*(α={alpha:g}), ≥{1 - beta:.0%} of reps")
        ax_e.set_title(f"vs ε (|F| = {row['n_features']}, δ = {exp._delta(row):g})")
        ax_e.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)

        # -- n* vs |F| at the ε with the most |F| values
        learners_f = exp.feature_sweep(ok).groupby(["learner", "epsilon"])["n_features"].nunique()
        learners_f = learners_f[learners_f >= 3]
        if len(learners_f):
            eps_counts = learners_f.reset_index().groupby("epsilon").size()
            eps_f = float(eps_counts.idxmax())
            sweep = exp.feature_sweep(ok)
            subf = sweep[(sweep["epsilon"] == eps_f) | (~sweep["private"])]
            scf = n_star_table(subf, ["learner", "n_features"], alpha, beta)
            f_all = np.sort(subf["n_features"].unique()).astype(float)
            for learner in order(scf["learner"].unique()):
                s = scf[scf["learner"] == learner].sort_values("n_features")
                if s["n_features"].nunique() < 3:
                    continue
                c = color(learner)
                exponent = exp.EXPONENT_F.get(learner, math.nan)
                _errorbars(ax_f, s["n_features"], s, c, _slope_label(learner, s["n_features"], s["n_star"], exponent))
                xs = np.geomspace(f_all.min(), f_all.max(), 40)
                r0 = subf[subf["learner"] == learner].iloc[0]
                curve = exp.sample_size_rate(learner, eps_f, r0, n_features=xs)
                if curve is not None:
                    ax_f.plot(xs, curve, ls="--", lw=1.0, color=c)
            ax_f.set_title(f"vs |F| (d, k sweep; ε = {eps_f:g})")
        ax_f.set_xscale("log")
        ax_f.set_yscale("log")
        ax_f.set_xlabel("|F| (features incl. constant true)")
        ax_f.set_ylabel(f"n*(α={alpha:g})")
        ax_f.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
        fig.suptitle("Decision lists: empirical sample complexity (dashed: theory, unit constants)")
        fig.tight_layout()
    return fig


def runtime(df: pd.DataFrame):
    """Mean fit time per example vs |F| (largest n of each problem), with the exponential
    mechanism's cost extrapolated ∝ |C| to the problems it skipped."""
    exp = _exp()
    per = exp.fit_time_per_example(df)
    fig, (ax,) = subplots(1, width=4.4, height=3.3)
    with plt.rc_context(RC):
        for learner in order(per["learner"].unique()):
            s = per[per["learner"] == learner].sort_values("n_features")
            c = color(learner)
            slope, _, _, _ = loglog_slope(s["n_features"], s["seconds_per_example"])
            fit = f", slope {slope:.2f}" if np.isfinite(slope) else ""
            ax.plot(s["n_features"], s["seconds_per_example"], marker="o", ms=3, lw=1.3, color=c, label=f"{learner}{fit}")
            ax.fill_between(s["n_features"], s["lo"], s["hi"], color=c, alpha=0.18, lw=0)
        em = per[per["learner"] == "exp_mech_erm"]
        skipped = df[(df["status"] == "skipped") & (df["learner"] == "exp_mech_erm")]
        if len(em):
            logc = df.groupby("n_features")["log_class_size"].first()
            coef = float(np.median(em["seconds_per_example"].to_numpy() / np.exp(logc.reindex(em["n_features"]).to_numpy())))
            fs = np.array(sorted(set(em["n_features"]) | set(skipped["n_features"].unique())), dtype=float)
            ax.plot(fs, coef * np.exp(logc.reindex(fs).to_numpy()), ls="--", lw=1.0, color=color("exp_mech_erm"), label="exp_mech_erm ∝ |C| (extrapolated)")
            for f in sorted(skipped["n_features"].unique()):
                y = coef * math.exp(float(logc[f]))
                ax.plot([f], [y], marker="x", ms=7, color=color("exp_mech_erm"))
                ax.annotate(f"skipped (cap):\n|C| ≈ e^{float(logc[f]):.0f}", (f, y), textcoords="offset points", xytext=(6, -4), fontsize=7, va="top")
        # the O(n|F| + |F|²) shape of privdl, through its smallest measured point
        pdl = per[per["learner"] == "privdl"].sort_values("n_features")
        if len(pdl):
            f0, t0, n0 = pdl["n_features"].iloc[-1], pdl["seconds_per_example"].iloc[-1], pdl["n"].iloc[-1]
            fs = np.geomspace(per["n_features"].min(), per["n_features"].max(), 40)
            shape = (n0 * fs + fs**2) / n0
            ax.plot(fs, t0 * shape / ((n0 * f0 + f0**2) / n0), ls=":", lw=1.0, color=color("privdl"), label="O(n|F| + |F|²) / n")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("|F| (features incl. constant true)")
        ax.set_ylabel("fit time per example (s)")
        ax.set_title("Decision lists: running time vs |F|")
        ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
        fig.tight_layout()
    return fig
