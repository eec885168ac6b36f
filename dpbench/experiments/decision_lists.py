"""Experiment ``decision_lists``: private PAC learning of k-decision lists (algorithms.md §3;
004 §3 and Appendix A, Theorem 3.5).

Learners ``rivest``, ``privdl``, ``privdl_composition``, ``exp_mech_erm`` / ``erm`` over whole
decision lists (tiny d only: the class is enumerated and capped by ``max_hypotheses``; above
the cap the row is ``skipped`` with the class size) and the ``decision_tree`` reference,
over grids of n, ε and problems (d, k) — the latter give the |F| axis.

Theory: :mod:`dpbench.theory.decision_lists`. Figures: error vs n faceted by ε on the main
problem (the problem with the most n values); empirical n*(α) vs ε and vs |F|; fit time vs
|F|. The theory check fits the log–log slope of the mean error in n per (learner, ε, |F|)
on the learning regime, counts cells above the proven bounds (Rivest's Occam bound and the
exponential mechanism's), and fits n*(α) against ε and against |F|.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.analysis import (
    bound_violations,
    learning_regime,
    loglog_slope,
    sample_complexity,
    summarise,
    theory_row,
)
from dpbench.experiment import Experiment, Figure, run_batch_cell
from dpbench.registry import register_experiment

#: Failure probability of the high-probability bounds, and the accuracy target of n*(α).
BETA = 0.1
ALPHA = 0.05

#: Theoretical exponent of the error in n, and whether the rate is a proven bound.
EXPONENT_N = {
    "rivest": (-1.0, "bound"),
    "erm": (-1.0, "bound"),
    "exp_mech_erm": (-1.0, "bound"),
    "privdl": (-1.0, "shape"),
    "privdl_composition": (-1.0, "shape"),
}
#: Theoretical exponent of n*(α) in |F| (up to logarithms): Theorem 3.5 vs composition.
EXPONENT_F = {"rivest": 1.0, "privdl": 1.0, "privdl_composition": 1.5, "exp_mech_erm": 1.0, "erm": 1.0}


def _delta(row: pd.Series) -> float:
    delta = float(row["delta"]) if pd.notna(row["delta"]) else 0.0
    return delta if delta > 0 else 1e-6


def error_rate(learner: str, n, epsilon: float, row: pd.Series):
    """The catalogue rate of ``learner`` at sizes ``n`` (None where there is none)."""
    f = int(row["n_features"])
    if float(row["noise"]) > 0:
        return None  # the rates below are for the realizable case
    if learner in ("rivest", "erm"):
        return theory.rate_rivest(n, f, BETA)
    if learner == "exp_mech_erm":
        return theory.rate_exp_mech_dl(n, epsilon, f)
    if learner == "privdl":
        return theory.rate_privdl(n, epsilon, _delta(row), f, BETA)
    if learner == "privdl_composition":
        return theory.rate_privdl_composition(n, epsilon, _delta(row), f, BETA)
    return None


def _bound(learner: str, epsilon: float, row: pd.Series) -> float:
    rate = error_rate(learner, row["n"], epsilon, row)
    return math.nan if rate is None else float(np.asarray(rate))


def sample_size_rate(learner: str, epsilon, row: pd.Series, n_features=None):
    """Theoretical ``n(α, ε)`` (vectorised over ε, or over ``n_features`` if given)."""
    f = row["n_features"] if n_features is None else n_features
    if learner == "privdl":
        return theory.n_privdl(ALPHA, epsilon, _delta(row), f, BETA)
    if learner == "privdl_composition":
        return theory.n_privdl_composition(ALPHA, epsilon, _delta(row), f, BETA)
    if learner in ("rivest", "erm"):
        return np.array([theory.n_rivest(ALPHA, int(v), BETA) for v in np.atleast_1d(f)]) * np.ones_like(np.asarray(epsilon, dtype=float))
    if learner == "exp_mech_erm" and n_features is None:
        return theory.n_exp_mech_dl(ALPHA, epsilon, int(f))
    return None


def main_problem(df: pd.DataFrame) -> str | None:
    """The problem with the most sizes n (then most rows): the error-vs-n and n*-vs-ε problem."""
    ok = df[df["status"] == "ok"]
    if ok.empty:
        return None
    stats = ok.groupby("problem_id").agg(sizes=("n", "nunique"), rows=("n", "size"))
    return stats.sort_values(["sizes", "rows"], ascending=False).index[0]


def feature_sweep(df: pd.DataFrame) -> pd.DataFrame:
    """Rows of the problems that differ from the main problem only in (d, k): the |F| axis
    (same list length l, alternations r, monotone, p and noise)."""
    ok = df[df["status"] == "ok"]
    main = main_problem(ok)
    if main is None:
        return ok
    ref = ok[ok["problem_id"] == main].iloc[0]
    same = np.ones(len(ok), dtype=bool)
    for col in ("l", "r", "monotone", "p", "noise"):
        same &= (ok[col] == ref[col]).to_numpy()
    return ok[same]


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    ok = df[df["status"] == "ok"]
    for (learner, eps, f), group in ok.groupby(["learner", "epsilon", "n_features"], sort=True):
        exponent, kind = EXPONENT_N.get(learner, (math.nan, "none"))
        curve = summarise(group, ["n"]).sort_values("n")
        regime = learning_regime(curve["n"], curve["mean"])
        slope, lo, hi, m = loglog_slope(curve["n"][regime], curve["mean"][regime])
        cells = above = None
        if kind == "bound":
            cells, above = bound_violations(group, ["n", "problem_id"], lambda r, learner=learner, eps=eps: _bound(learner, eps, r), BETA)
        rows.append(
            theory_row(
                experiment="decision_lists", learner=learner, regime=f"epsilon={eps:g}, |F|={f}", x="n", y="error",
                fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=exponent,
                n_points=m, bound_kind=kind, cells=cells, cells_above_bound=above,
            )
        )
    main = main_problem(ok)
    if main is not None:
        sub = ok[(ok["problem_id"] == main) & ok["private"] & np.isfinite(ok["epsilon"])]
        sc = sample_complexity(sub, ["learner", "epsilon"], ALPHA, BETA)
        for learner, group in sc.groupby("learner"):
            slope, lo, hi, m = loglog_slope(group["epsilon"], group["n_star"])
            rows.append(
                theory_row(
                    experiment="decision_lists", learner=learner, regime=f"n*(alpha={ALPHA}), main problem", x="epsilon", y="n_star",
                    fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=-1.0, n_points=m, bound_kind="shape",
                )
            )
    sc_f = sample_complexity(feature_sweep(ok), ["learner", "epsilon", "n_features"], ALPHA, BETA)
    for (learner, eps), group in sc_f.groupby(["learner", "epsilon"]):
        if group["n_features"].nunique() < 3:
            continue
        slope, lo, hi, m = loglog_slope(group["n_features"], group["n_star"])
        rows.append(
            theory_row(
                experiment="decision_lists", learner=learner, regime=f"n*(alpha={ALPHA}) vs |F|, epsilon={eps:g}", x="n_features", y="n_star",
                fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=EXPONENT_F.get(learner, math.nan), n_points=m, bound_kind="shape",
            )
        )
    per_example = fit_time_per_example(ok)
    for learner, group in per_example.groupby("learner"):
        if len(group) >= 3:
            slope, lo, hi, m = loglog_slope(group["n_features"], group["seconds_per_example"])
            rows.append(
                theory_row(
                    experiment="decision_lists", learner=learner, regime="fit time / n vs |F| (largest n per problem)", x="n_features", y="fit_seconds",
                    fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=math.nan, n_points=m, bound_kind="none",
                )
            )
    return pd.DataFrame(rows)


def fit_time_per_example(df: pd.DataFrame) -> pd.DataFrame:
    """Per (learner, |F|): mean ``fit_seconds / n`` at the largest n of that problem, with
    10%/90% quantiles (columns ``seconds_per_example``, ``lo``, ``hi``, ``n``)."""
    ok = df[(df["status"] == "ok")].dropna(subset=["fit_seconds"])
    out = []
    for (learner, f), group in ok.groupby(["learner", "n_features"]):
        top = group[group["n"] == group["n"].max()]
        per = top["fit_seconds"] / top["n"]
        out.append({"learner": learner, "n_features": f, "n": int(top["n"].iloc[0]), "seconds_per_example": per.mean(), "lo": per.quantile(0.1), "hi": per.quantile(0.9)})
    return pd.DataFrame(out, columns=["learner", "n_features", "n", "seconds_per_example", "lo", "hi"])


EXPERIMENT = register_experiment(
    Experiment(
        id="decision_lists",
        problems=("decision_list",),
        size="n",
        run_cell=run_batch_cell,
        theory_check=theory_check,
        figures={
            "error_vs_n": Figure(
                "dpbench.plotting.decision_lists:error_vs_n",
                "Population error (held-out sample of 50,000, noise added exactly) against n on the main "
                "decision-list problem, one panel per ε; solid: means over repetitions with 95% bands; dashed: the "
                "rates of algorithms.md §3 in the learner's colour (Rivest: Occam bound; privdl: Theorem 3.5 shape "
                "[reconstructed]; privdl_composition: |F|^{3/2} shape; non-private learners repeat in every panel).",
            ),
            "sample_complexity": Figure(
                "dpbench.plotting.decision_lists:sample_complexity",
                f"Empirical sample complexity n*(α={ALPHA}) (smallest n of the grid at which ≥ {1 - BETA:.0%} of the "
                "repetitions reach error ≤ α; bars: Clopper–Pearson) against ε on the main problem (left) and against "
                "|F| over the (d, k) sweep (right), log–log; dashed: theory with unit constants; legends give the "
                "fitted slope (95% CI) next to the theoretical exponent (privdl 1 vs privdl_composition 3/2 in |F|).",
            ),
            "runtime": Figure(
                "dpbench.plotting.decision_lists:runtime",
                "Mean fit time per example (fit seconds / n, at the largest n of each problem; bands 10–90%) against "
                "|F|, log–log: privdl and rivest grow polynomially (O(n|F| + |F|²) per run); the exponential mechanism over whole decision lists enumerates |C| = e^{Θ(|F| log|F|)} "
                "lists and is skipped above its max_hypotheses cap (crosses: class sizes beyond the cap).",
            ),
        },
        test_size=200,
    )
)
