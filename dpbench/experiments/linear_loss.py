"""Experiment ``linear_loss``: LinearLearner (000 Alg. 17, Thms 11.5–11.6; algorithms.md §4).

Learner ``linear_learner`` (ε = ∞ is its non-private twin, plain RWM at sqrt(ln d/T)) on
:mod:`dpbench.problems.linear_loss`, over grids of T, d and ε. One row per (cell,
repetition) with ``excess_loss = <θ^T, μ> − min_i μ_i`` (exact population quantity),
``loss = <θ^T, μ>``, the online ``regret``/``expected_regret`` on the loss codes and
``eta``.

Theory check: log–log slope of the mean excess loss in T (−½, Thm 11.6) on the decaying
part, and the count of cells whose 90%-quantile exceeds the proven online-to-batch bound
:func:`dpbench.theory.excess_linear_learner_bound` at the cell's η.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.analysis import bound_violations, learning_regime, loglog_slope, summarise, theory_row
from dpbench.experiment import Experiment, Figure, base_row, data_rng, make_learner, mech_rng
from dpbench.experiments.experts import _losses
from dpbench.grid import Cell
from dpbench.registry import register_experiment

BETA = 0.1


def run_linear_cell(cell: Cell, target, root_seed: int) -> list[dict]:
    learner = make_learner(cell)
    T = cell.size
    reason = learner.supports(target)
    rows = []
    for rep in range(cell.repetitions):
        row = base_row(cell, rep, root_seed, learner)
        row.update(target.columns(), t=T)
        if reason is not None:
            row.update(status="skipped", reason=reason)
            rows.append(row)
            continue
        losses = _losses.get((cell.problem_id, root_seed, T, rep), lambda: target.losses(T, rng=data_rng(cell, rep, root_seed)))
        start = time.perf_counter()
        trace = learner.run(losses, rng=mech_rng(cell, rep, root_seed))
        theta = learner.theta(trace)
        row.update(
            fit_seconds=time.perf_counter() - start,
            loss=target.population_loss(theta),
            excess_loss=target.excess_loss(theta),
            regret=float(trace.regret[-1]),
            expected_regret=float(trace.expected_regret[-1]),
            **trace.diagnostics,
        )
        rows.append(row)
    return rows


def excess_bound(row: pd.Series) -> float:
    return float(theory.excess_linear_learner_bound(float(row["T"]), float(row["eta"]), int(row["d"]), BETA))


def theory_curve(learner: str, T: np.ndarray, row: pd.Series) -> np.ndarray:
    from dpbench.learners.private_rwm import calibrate

    d = int(row["d"])
    etas = np.array([calibrate(float(row["epsilon"]), float(row["delta"]), int(t), d).eta for t in T])
    return theory.excess_linear_learner_bound(T, etas, d, BETA)


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    ok = df[df["status"] == "ok"]
    for (d, eps), group in ok.groupby(["d", "epsilon"], sort=True):
        curve = summarise(group, ["T"], "excess_loss").sort_values("T")
        regime = learning_regime(curve["T"], curve["mean"])
        slope, lo, hi, m = loglog_slope(curve["T"][regime], curve["mean"][regime])
        cells, above = bound_violations(group, ["T", "problem_id"], excess_bound, BETA, metric="excess_loss")
        rows.append(
            theory_row(
                experiment="linear_loss", learner="linear_learner", regime=f"d={d},epsilon={eps:g}", x="T", y="excess_loss",
                fitted_slope=slope, slope_ci_low=lo, slope_ci_high=hi, theory_exponent=-0.5, n_points=m,
                bound_kind="bound", cells=cells, cells_above_bound=above,
            )
        )
    return pd.DataFrame(rows)


EXPERIMENT = register_experiment(
    Experiment(
        id="linear_loss",
        problems=("linear_loss",),
        size="T",
        run_cell=run_linear_cell,
        theory_check=theory_check,
        figures={
            "excess_vs_horizon": Figure(
        "dpbench.plotting.linear_loss:excess_vs_T",
                "LinearLearner: excess population loss <θ^T, μ> − min μ (exact) against T, one line per ε, one "
                "panel per d, log–log; means with 95% bands; dashed: the proven online-to-batch bound at the "
                "calibrated η (000 Thms 11.1 and 11.6); legend: fitted slope beside the exponent −½.",
            ),
        },
        test_size=200,
    )
)
