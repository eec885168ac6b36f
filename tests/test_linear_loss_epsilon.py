"""LinearLearner's ε axis (issue 29): ``prediction`` rows judged by the online-to-batch bound at
the calibration's η(ε) — the theorem's own function of ε — with the recorded η checked against
η(ε). Decided on the published paper rows and on a small run; a copy of the learner whose
calibration is off (run through its own code, η/4 or η×4) is caught, and so is a learner that
ignores ε (the non-private runs relabelled with finite ε)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd

import dpbench.experiments  # noqa: F401
from dpbench import theory
from dpbench.experiments.base import draw_target
from dpbench.experiments.checks.linear_loss import epsilon_rows, theory_check
from dpbench.foundation import registry
from dpbench.foundation.results import to_table
from dpbench.learners.linear_learner import LinearLearner
from dpbench.learners.private_rwm import calibrate
from dpbench.orchestration.config import from_dict
from dpbench.theory_check.roles import with_roles
from dpbench.theory_check.verdict import DECISIVE

PAPER = Path(__file__).resolve().parents[1] / "docs" / "paper" / "results" / "linear_loss.parquet"
#: a small ε sweep that learns at T = 10^4 (d = 4: excess ≈ 0.14 at ε = 4, the trivial level 0.5)
SMALL = {"seed": 7, "experiments": {"linear_loss": {
    "problem": "linear_loss", "problem_params": {"d": 4, "gap": 0.5}, "learners": ["linear_learner"],
    "epsilon": [4.0, 8.0, 16.0], "delta": 1.0e-6, "T": [10000], "repetitions": 10}}}


def run_small(monkeypatch, factor: float = 1.0) -> pd.DataFrame:
    """:data:`SMALL` run in-process through the experiment's own cell runner; ``factor`` ≠ 1
    patches LinearLearner's calibration (its ``calibrate_fn``) to return ``factor × η``."""
    if factor != 1.0:
        def broken(epsilon, delta, T, k):
            c = calibrate(epsilon, delta, T, k)
            return dataclasses.replace(c, eta=factor * c.eta)

        monkeypatch.setattr(LinearLearner, "calibrate_fn", staticmethod(broken))
    grid = from_dict(SMALL)
    exp = registry.experiment("linear_loss")
    targets = {pid: draw_target(cell, grid.seed) for pid, cell in grid.problem_cells().items()}
    rows = [row for cell in grid.experiments["linear_loss"].cells for row in exp.run_cell(cell, targets[cell.problem_id], grid.seed)]
    return to_table(rows).to_pandas()


def test_eta_is_the_learners_calibration_and_the_bound_falls_as_one_over_epsilon():
    """η(ε) computed by the theory equals the learner's calibrate to the last bit (below its
    composition fallback), and the bound is the closed form 2 sqrt(32 ln(1/δ)) ln d/(ε sqrt T) + 2ε/sqrt(32 T ln(1/δ))
    plus the ε-free concentration terms."""
    for eps in (0.1, 0.5, 1.0, 4.0, 16.0, 100.0, math.inf):
        for T, d in ((1000, 4), (10**6, 64)):
            assert float(theory.eta_linear_learner(T, eps, 1e-6, d)) == calibrate(eps, 1e-6, T, d).eta
    T, d, beta = 10**6, 4, 0.1
    free = 4 * math.sqrt(2 * math.log(2 / beta) / T) + 2 * math.sqrt(2 * math.log(1 / beta) / T)  # concentration terms
    eps, L = np.array([0.5, 1.0, 4.0]), math.log(1e6)
    closed = 2 * math.sqrt(32 * L) * math.log(d) / (eps * math.sqrt(T)) + 2 * eps / math.sqrt(32 * T * L) + free
    np.testing.assert_allclose(theory.excess_linear_learner_bound_eps(T, eps, 1e-6, d, beta), closed, rtol=1e-12)


def test_paper_rows_are_decided_predictions_with_the_bound_holding():
    """The published paper rows (T = 10^6, ε = 0.5, 1, 4; d = 4, 16, 64): one prediction row per
    d, decided, the bound at η(ε) holding at every cell, every run at η(ε)."""
    rows = with_roles(theory_check(pd.read_parquet(PAPER)))
    eps = rows[rows["x"] == "epsilon"]
    assert len(eps) == 3 and (eps["role"] == "prediction").all() and (eps["bound_kind"] == "bound").all()
    assert eps["verdict"].isin(DECISIVE).all() and not (eps["verdict"] == "violated").any(), eps[["regime", "verdict"]]
    assert (eps["cells"] == 3).all() and (eps["cells_above_bound"] == 0).all()
    assert ((eps["bound_ratio"] > 0.5) & (eps["bound_ratio"] < 1)).all()
    assert eps["note"].str.contains("every run recorded the prescribed η(ε)", regex=False).all()


def test_a_learner_that_ignores_epsilon_is_not_judged_as_holding():
    """The referee's case against the reverted rows: the non-private runs (η = sqrt(ln d/T))
    relabelled ε = 0.5, 1, 4 lie below the bound, but their η is not η(ε): inconclusive."""
    df = pd.read_parquet(PAPER)
    plain = df[df["epsilon"] == math.inf]
    fake = pd.concat([plain.assign(epsilon=e, private=True) for e in (0.5, 1.0, 4.0)], ignore_index=True)
    rows = epsilon_rows(fake)
    assert len(rows) == 3
    for row in rows:
        assert row["verdict"] == "inconclusive" and row["cells_above_bound"] == 0, row["note"]
        assert "is not the prescribed η(ε)" in row["note"]


def test_small_run_is_decided_and_a_miscalibrated_copy_is_caught(monkeypatch):
    """On a run of the learner's own code the row is decided with the bound holding; the same
    run with η/4 (noise ×4: the rate of ε/4) lies above the bound (violated), with η×4 (a quarter
    of the noise) below it but at the wrong η (inconclusive, not bound_holds)."""
    good = epsilon_rows(run_small(monkeypatch))
    assert len(good) == 1 and good[0]["verdict"] in DECISIVE and good[0]["verdict"] != "violated", good[0]["note"]
    assert good[0]["cells"] == 3 and good[0]["cells_above_bound"] == 0 and good[0]["bound_ratio"] < 1

    noisy = epsilon_rows(run_small(monkeypatch, 0.25))
    assert noisy[0]["verdict"] == "violated" and noisy[0]["cells_above_bound"] >= 1 and noisy[0]["bound_ratio"] > 1
    assert "×0.25" in noisy[0]["note"]

    monkeypatch.undo()
    quiet = epsilon_rows(run_small(monkeypatch, 4.0))
    assert quiet[0]["verdict"] == "inconclusive" and quiet[0]["cells_above_bound"] == 0, quiet[0]["note"]
    assert "×4" in quiet[0]["note"]
