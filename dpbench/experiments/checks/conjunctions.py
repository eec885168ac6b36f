"""Theory check of experiment ``conjunctions`` (:mod:`dpbench.experiments.conjunctions`).

With :mod:`dpbench.theory_check.analysis`: one row per curve (learner × every setting that
varies), the slope of error in n fitted on repetitions over the points clearly below the
trivial predictor's error, bounds checked on the (1−β)-quantile over repetitions (they hold
w.p. ≥ 1 − β), and a status; per private learner and setting, the slope of n*(α) in ε.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.experiments.conjunctions import ALPHA, BETA
from dpbench.theory_check.analysis import check_curve, curves, setting_label
from dpbench.theory_check.nstar import check_n_star

rates, trivial_error = theory.conjunction_rates_of, theory.trivial_error_of


def n_star_alpha(learner: str, row) -> float:
    """The accuracy at which a learner's n*(α) is judged against ε: :data:`ALPHA`, except
    for ``private_sq_conjunction``, whose guarantee (:func:`~dpbench.theory.pac.rate_private_sq_run`)
    never goes below half its own accuracy parameter α: it is judged at that α (the
    recorded ``lp_alpha``, else :data:`~dpbench.theory.pac.SQ_ALPHA`)."""
    if learner != "private_sq_conjunction":
        return ALPHA
    alpha = row.get("lp_alpha")
    return theory.SQ_ALPHA if alpha is None or alpha != alpha else float(alpha)


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    """Per curve: slope of error in n on its regime (repetitions bootstrapped, the regime
    chosen in every resample) beside the primary rate's local exponent, bound cells at the
    1 − β level, status and verdict. Per private learner and setting: slope of n*(α) in ε
    (interpolated per repetition, :mod:`dpbench.theory_check.nstar`) beside *every* theory n(α, ε) the
    learner has — for exp_mech_erm the derived bound and the course notes' stated formula,
    each with its own verdict."""
    rows = []
    for curve in curves(df):
        primary = [r for r in rates(curve.learner, curve.row) if r.primary]
        rate = primary[0] if primary else None
        rows.append(
            check_curve(
                curve, experiment="conjunctions", x="n", y="error", rate=rate.error if rate else None,
                kind=rate.kind if rate else "none", trivial=trivial_error(curve.row), holds_with=1 - BETA,
                exponent=getattr(rate, "exponent", None),  # a declared rate states its exponent (plugins)
                regime=", ".join(filter(None, [setting_label(curve.key), f"theory: {rate.label}" if rate else ""])) or None,
            )
        )
    ok = df[(df["status"] == "ok") & df["private"] & np.isfinite(df["epsilon"])] if len(df) else df
    for curve in curves(ok, exclude=("epsilon",)):
        with_n = [r for r in rates(curve.learner, curve.row) if r.n_at is not None] or [None]
        alpha = n_star_alpha(curve.learner, curve.row)
        for rate in with_n:
            theory_n = (lambda eps, r=rate: r.n_at(alpha, eps)) if rate is not None else None
            label = f"n*(alpha={alpha}) vs epsilon" + (f", {setting_label(curve.key)}" if curve.key else "")
            rows.append(check_n_star(
                curve.rows, experiment="conjunctions", learner=curve.learner, alpha=alpha, beta=BETA, x="epsilon",
                theory_n=theory_n, regime=label + (f"; theory: {rate.label}" if rate is not None else ""),
                kind=rate.kind if rate is not None else None,
            ))
    return pd.DataFrame([r for r in rows if r is not None])
