"""Where a grid's `prediction` curves are decided, before anything runs: per curve of a config,
the grid values of its parameter inside the learning regime its theory predicts.

A slope is judged on the points of a curve's learning regime (at most
:data:`dpbench.theory_check.verdict.MARGIN` × the trivial level, :mod:`dpbench.theory_check.verdict`);
a curve with fewer than 5 of them rarely gets a decisive verdict (issue 29: design the paper grid
from the theorems' predicted regimes). This module reads the regime off the theory alone — no run:

- *error against n* (``conjunctions``, ``decision_lists``): the sizes n of the curve at which the
  learner's primary rate (:func:`dpbench.theory.conjunction_rates_of`,
  :func:`dpbench.theory.dl_rates_of`) is at most MARGIN × the trivial predictor's error
  (:func:`dpbench.theory.trivial_error_of`; for decision lists the majority error of the drawn
  target, :func:`dpbench.theory_check.trivial.dl_trivial_error_of`);
- *n\\*(α) against ε* (private learners of the same two experiments): the ε of the curve at which
  the rate's sample size n(α, ε) lies inside the curve's size grid at that ε (the grid can
  reach α there).

Curves without a rate (reference learners) and the other experiments (online mistakes, regret,
private ERM: their regimes depend on calibrations made at run time or on the twin's measured
risk) are not counted here; :func:`predicted_regimes` covers what the theory alone decides.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.experiments.base import draw_target
from dpbench.orchestration.config import Grid
from dpbench.theory_check.trivial import dl_trivial_error_of
from dpbench.theory_check.verdict import MARGIN

#: the experiments whose curves :func:`predicted_regimes` counts, and the α of their n*(α)
COVERED = {"conjunctions": theory.CONJUNCTIONS_ALPHA, "decision_lists": theory.DL_ALPHA}
#: a prediction curve needs this many grid values inside its predicted learning regime
REQUIRED = 5
COLUMNS = ["experiment", "learner", "setting", "x", "grid_values", "inside", "count"]


def _row(cell, seed: int, cache: dict) -> dict:
    """The results-row fields a rate and a trivial level read, for one cell (no run)."""
    key = (cell.problem, cell.problem_params)
    if key not in cache:
        target = draw_target(cell, seed)
        cache[key] = {**dict(cell.problem_params), **target.columns(), "problem": cell.problem,
                      "problem_id": cell.problem_id, "root_seed": seed, "cell_key": cell.key_string()}
    lp = {f"lp_{k}": v for k, v in dict(cell.learner_params).items()}
    return {**cache[key], **lp, "learner": cell.learner, "epsilon": cell.epsilon, "delta": cell.delta}


def _rate(experiment: str, learner: str, row: dict):
    rates_of = theory.conjunction_rates_of if experiment == "conjunctions" else theory.dl_rates_of
    rates = rates_of(learner, pd.Series(row))
    primary = [r for r in rates if getattr(r, "primary", True)]
    return primary[0] if primary else None


def _trivial(experiment: str, row: dict) -> float:
    return theory.trivial_error_of(row) if experiment == "conjunctions" else dl_trivial_error_of(row)


def _setting(cell, without: tuple[str, ...]) -> str:
    parts = [f"{k} = {v}" for k, v in dict(cell.problem_params).items()]
    parts += [f"{k} = {v}" for k, v in dict(cell.learner_params).items()]
    if "epsilon" not in without:
        parts.append(f"ε = {cell.epsilon:g}")
    return ", ".join(parts)


def predicted_regimes(grid: Grid) -> pd.DataFrame:
    """One row per prediction curve of the :data:`COVERED` experiments of ``grid`` with ≥ 3 grid
    values (a curve with fewer gets no slope row): its axis ``x`` (``n`` or ``epsilon``), the
    ``grid_values``, those ``inside`` the predicted learning regime and their ``count``."""
    rows = []
    cache: dict = {}
    for exp_id, alpha in COVERED.items():
        if exp_id not in grid.experiments:
            continue
        cells = list(grid.experiments[exp_id].cells)
        by_n: dict = defaultdict(list)
        by_eps: dict = defaultdict(list)
        for c in cells:
            if c.repetitions <= 0:
                continue
            base = (c.learner, c.problem, c.problem_params, c.learner_params, c.delta)
            by_n[(*base, c.epsilon)].append(c)
            if math.isfinite(c.epsilon):
                by_eps[base].append(c)
        for group in by_n.values():
            sizes = sorted({c.size for c in group})
            row = _row(group[0], grid.seed, cache)
            rate = _rate(exp_id, group[0].learner, row)
            if len(sizes) < 3 or rate is None or rate.error is None:
                continue
            level = MARGIN * _trivial(exp_id, row)
            with np.errstate(divide="ignore", invalid="ignore"):
                err = np.asarray(rate.error(np.asarray(sizes, dtype=float)), dtype=float)
            inside = [n for n, e in zip(sizes, err) if np.isfinite(e) and e <= level]
            rows.append([exp_id, group[0].learner, _setting(group[0], ()), "n", sizes, inside, len(inside)])
        for group in by_eps.values():
            per_eps: dict = defaultdict(list)
            for c in group:
                per_eps[c.epsilon].append(c.size)
            if len(per_eps) < 3:
                continue
            row = _row(group[0], grid.seed, cache)
            rate = _rate(exp_id, group[0].learner, row)
            if rate is None or rate.n_at is None:
                continue
            inside = []
            for eps, ns in sorted(per_eps.items()):
                with np.errstate(divide="ignore", invalid="ignore"):
                    need = float(np.asarray(rate.n_at(alpha, eps), dtype=float).ravel()[0])
                if np.isfinite(need) and min(ns) <= need <= max(ns):
                    inside.append(eps)
            setting = _setting(group[0], ("epsilon",))
            rows.append([exp_id, group[0].learner, setting, "epsilon", sorted(per_eps), inside, len(inside)])
    return pd.DataFrame(rows, columns=COLUMNS)
