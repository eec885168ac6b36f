"""Theory check of experiment ``private_erm`` (:mod:`dpbench.experiments.private_erm`).

With :mod:`dpbench.theory_check.analysis`, one row per curve (learner × every identity column
that varies: d, ε, learner parameters): the slope of the mean excess risk in n fitted on
repetitions over the points clearly below the trivial predictor's excess risk, bounds
checked on the (1 − β)-quantile over repetitions, a status; per private learner and
setting, the slope in ε at the curve's largest n; per learner at the ε closest to 1, the
slope of ``fit_seconds`` in n (cost model: exponent 1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.theory_check.analysis import check_curve, curves, setting_label, slope_row
from dpbench.theory_check.calibration import mark_calibration, prescribed_along_epsilon
from dpbench.theory_check.fit import fit_slope

BETA = theory.ERM_BETA


def _check(curve, x: str, n_at=None, y: str = "excess_loss") -> dict:
    """The theory-check row of one excess-risk curve against ``x`` (``n``, or ``epsilon`` at
    the size ``n_at``): ``y`` = ``excess_loss`` (the training objective, against the learner's
    rate: a ``sanity`` row, the calibration fixes it) or ``pop_excess_loss`` (the population
    risk): against the bound with constants on its expectation where one is derived
    (:func:`dpbench.theory.erm.erm_population_rate_of`: every private learner, dp_sgd against ε
    only — at the noise its calibration prescribes for ε, recomputed, with the fits' recorded noise
    checked against it: :func:`_sgd_noise`; a ``prediction`` row, checked on the mean; against ε
    a bound that barely depends on ε checks only its constant:
    :func:`_epsilon_insensitive`), else against the training rate's shape (a ``sanity`` row) — the
    privacy term, whose noise moves the population objective as it moves the training one (on a
    λ-strongly convex, (¼+λ)-smooth objective both change by Θ(‖b‖²) around the optimum, the
    mean-zero noise's linear term vanishing in expectation). Where the ε-free generalisation
    gap of the non-private minimiser takes over, the curve flattens onto it: the floor detector
    sees that floor (:func:`dpbench.theory_check.verdict.approach_start`). A shape: the training
    bounds are not population bounds, so a population cell above it is never a violation."""
    pop = y == "pop_excess_loss"
    sgd_noise, off = _sgd_noise(curve) if pop and x == "epsilon" and curve.learner == "dp_sgd" else (None, None)
    pop_bound = theory.erm_population_rate_of(curve.learner, curve.row, sgd_noise=sgd_noise) if pop else None
    rate = pop_bound or theory.erm_rate_of(curve.learner, curve.row)
    if rate is None:
        fn, kind = None, "none"
    elif x == "n":
        eps = float(curve.row["epsilon"])
        fn, kind = (lambda n: rate.excess(n, eps)), "shape" if pop and pop_bound is None else rate.kind
    else:
        fn, kind = (lambda e: rate.excess(n_at, e)), "shape" if pop and pop_bound is None else rate.kind
    row = check_curve(
        curve, experiment="private_erm", x=x, y=y, rate=fn, kind=kind,
        trivial=theory.trivial_excess_of(curve.rows), holds_with="mean" if pop_bound is not None else 1 - BETA,
    )
    if x == "epsilon" and row is not None:
        row["regime"] = ", ".join(filter(None, (f"n = {n_at}", setting_label(curve.key))))
        if pop_bound is not None:
            _epsilon_insensitive(row, fn(np.unique(curve.rows["epsilon"].to_numpy(dtype=float))))
        if off is not None:
            mark_calibration(row, off, prescribed="noise std ς(ε) of its calibration (step_parameters)",
                             count=curve.rows["epsilon"].nunique())
    if pop and row is not None:
        row["note"] = (row["note"] + "; " if row["note"] else "") + (
            "population risk (quadrature) against the bound with constants on its expectation "
            "(theory.erm_population_rate_of): a prediction" if pop_bound is not None else
            "population risk (quadrature) against the privacy term's shape (flattening onto the non-private "
            "generalisation gap: a floor)")
    return row


def _sgd_noise(curve):
    """``(ς(n, ε), mismatch)``: the noise std per coordinate on dp_sgd's averaged gradient that
    its calibration prescribes for each of the curve's ε at its one n — recomputed from ε (the
    learner's ``step_parameters``: its PLD accountant at the sampling rate of n, about a second
    each), not read back from the fits — and, per ε whose fits recorded another ``sigma``, the
    ratio (:func:`~dpbench.theory_check.calibration.prescribed_along_epsilon`)."""
    n = int(curve.rows["n"].iloc[0])

    def sigma(learner):
        _, normaliser, std = learner.step_parameters(n)
        return std / normaliser

    def certified(learner, recorded_sigma):
        """The recorded noise meets the calibration's own specification — the smallest noise
        multiplier, to its tolerance 0.1 %, whose ε is ≤ the target (calibrate_sgd): the
        learner's accountant gives ε ≤ target at it and ε > target at 0.1 % less (the
        accountant is non-increasing in the noise): two accountant calls instead of the
        calibration's search."""
        q, normaliser = learner.sampling(n)
        std = recorded_sigma * normaliser  # σ = std / normaliser (step_parameters)
        return learner.epsilon_of_noise(std, q) <= learner.epsilon < learner.epsilon_of_noise(std / CERTIFIED_SLACK, q)

    at, off = prescribed_along_epsilon(curve, sigma, "sigma", certified=certified)
    return (lambda n_, e: at(e)), off


#: How much less noise than a run recorded must already break dp_sgd's ε for the record to be
#: certified as its calibration (:func:`_sgd_noise`): 1 + the calibration search's tolerance
#: (calibrate_noise_multiplier's rtol 1e-3), so exactly the noises its specification allows
#: pass — a calibration for 301 steps run with 300 (×1.0017) does not. Where the PLD
#: accountant's discretisation (about 0.1 % of ε) refuses a correct record, the check falls
#: back to the search: slower, never another verdict.
CERTIFIED_SLACK = 1.001


#: Below this share of the bound's value that varies over a curve's ε grid, the bound hardly
#: depends on ε there: its slope is no test of an ε-dependence.
EPSILON_SENSITIVE_SHARE = 0.5


def _epsilon_insensitive(row: dict, bound_values) -> dict:
    """``row`` (against ε) judged as a check of the bound's constant only where the bound barely
    depends on ε over the grid (its range is under :data:`EPSILON_SENSITIVE_SHARE` of its
    largest value: an ε-free term — a generalisation gap, a grid's uniform convergence —
    dominates): a slope verdict becomes ``bound_holds`` and the note says why."""
    b = np.asarray(bound_values, dtype=float)
    b = b[np.isfinite(b)]
    if not b.size or b.max() <= 0:
        return row
    share = float(1 - b.min() / b.max())
    if share < EPSILON_SENSITIVE_SHARE:
        row["note"] += (f"; the bound hardly depends on ε over this grid (its range is {share:.0%} of its value: "
                        "an ε-free term dominates), so the row checks its constant, not an ε-dependence")
        if row["verdict"] in ("agrees", "steeper", "shallower"):
            row["verdict"] = "bound_holds"
    return row


def _has(curve, y: str) -> bool:
    return y in curve.rows and curve.rows[y].notna().any()


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    """Per curve: the excess-risk slope in n (every private learner and setting, see the
    module doc), in ε at the curve's largest n, and the fit-time slope in n. Curves with a
    single value of their x (the d sweep's cells at one n) get no row."""
    ok = df[(df["status"] == "ok")] if len(df) else df
    rows = []
    private = ok[ok["private"] & np.isfinite(ok["epsilon"])] if len(ok) else ok
    for curve in _several(curves(private), "n"):
        rows.append(_check(curve, "n"))
        if _has(curve, "pop_excess_loss"):
            rows.append(_check(curve, "n", y="pop_excess_loss"))
    for curve in _several(curves(private, exclude=("epsilon",)), "epsilon"):
        n_at = _largest_full_n(curve.rows)
        at = type(curve)(curve.learner, curve.key, curve.rows[curve.rows["n"] == n_at])
        rows.append(_check(at, "epsilon", n_at))
        if _has(at, "pop_excess_loss"):
            rows.append(_check(at, "epsilon", n_at, y="pop_excess_loss"))
    for curve in _several(curves(_near_one(ok)), "n"):
        fit = fit_slope(curve.rows["n"], curve.rows["fit_seconds"], curve.rows["rep"])
        rows.append(slope_row(
            fit, reps=int(curve.rows["rep"].nunique()), exponent=1.0, experiment="private_erm", learner=curve.learner,
            regime=setting_label(curve.key) or "all", x="n", y="fit_seconds", bound_kind="shape",
            note_suffix="; cost model n·d·T (n·g^d for exp_mech_grid); a timing on a shared machine",
        ))
    return pd.DataFrame([r for r in rows if r is not None])


def _largest_full_n(rows: pd.DataFrame) -> int:
    """The largest n at which the rows have every ε they have anywhere."""
    per_n = rows.groupby("n")["epsilon"].nunique()
    return int(per_n[per_n == per_n.max()].index.max())


def _several(found, x: str) -> list:
    """The curves with at least two values of ``x`` (a d sweep at one n is a set of single
    cells, drawn in the runtime figure, not a curve in n)."""
    return [c for c in found if c.rows[x].nunique() >= 2]


def _near_one(ok: pd.DataFrame) -> pd.DataFrame:
    """Per learner, the rows at its ε closest to 1 (non-private learners: all rows)."""
    if ok.empty:
        return ok
    dist = np.abs(np.log(ok["epsilon"].astype(float).where(np.isfinite(ok["epsilon"]), 1.0)))
    best = dist.groupby(ok["learner"]).transform("min")
    return ok[dist == best]
