"""The per-cell time limit (config key ``cell_timeout_minutes``): a cell past it becomes
``status = timeout`` rows, its shard completes with every other cell's rows, and the theory
check says what is missing."""

from __future__ import annotations

import time

import pandas as pd
import pytest
import yaml

import dpbench.experiments.base
from dpbench.experiments.base import run_shard
from dpbench.foundation.results import read_results
from dpbench.orchestration.config import DEFAULT_CELL_TIMEOUT_MINUTES, from_dict
from dpbench.reporting.pipeline import timeout_notes, write_theory_check
from tests.conftest import TINY_CONFIG


class _Slow:
    """An experiment whose ``erm`` cells hang (a mis-set parameter, say)."""

    def __init__(self, exp):
        self.exp = exp

    def __getattr__(self, name):
        return getattr(self.exp, name)

    def run_cell(self, cell, target, root_seed):
        if cell.learner == "erm":
            time.sleep(60)
        return self.exp.run_cell(cell, target, root_seed)


@pytest.fixture
def grid():
    config = yaml.safe_load(TINY_CONFIG.read_text())
    block = config["experiments"]["conjunctions"] | {"learners": ["elimination", "erm"], "epsilon": [1.0], "n": [32, 128, 512]}
    return from_dict({"seed": 5, "cell_timeout_minutes": 0.02, "experiments": {"conjunctions": block}})


def test_config_key_and_default(grid):
    assert grid.cell_timeout_seconds == pytest.approx(1.2)
    assert from_dict(yaml.safe_load(TINY_CONFIG.read_text())).cell_timeout_seconds == 60 * DEFAULT_CELL_TIMEOUT_MINUTES


def test_a_cell_past_its_limit_gives_timeout_rows_and_the_shard_completes(grid, tmp_path, monkeypatch):
    from dpbench.foundation import provenance

    provenance.experiment_module("conjunctions")  # looked up (and cached) on the real experiment
    real = dpbench.experiments.base.registry.experiment
    monkeypatch.setattr(dpbench.experiments.base.registry, "experiment", lambda exp_id: _Slow(real(exp_id)))
    cells = list(grid.experiments["conjunctions"].cells)
    start = time.perf_counter()
    run_shard(cells, root_seed=grid.seed, out=tmp_path / "s.parquet", cell_timeout=grid.cell_timeout_seconds)
    assert time.perf_counter() - start < 30, "the limit did not stop the hanging cells"
    df = read_results(tmp_path / "s.parquet")
    erm, elim = df[df["learner"] == "erm"], df[df["learner"] == "elimination"]
    assert (erm["status"] == "timeout").all() and len(erm) == 3 * 5  # 3 cells x 5 repetitions
    assert erm["reason"].str.contains("time limit of 1.2 s").all() and erm["error"].isna().all()
    assert (elim["status"] == "ok").all() and elim["error"].notna().all() and len(elim) == 15
    assert erm["code_hash"].notna().all()

    notes = timeout_notes(df)
    assert list(notes) == ["erm"] and notes["erm"].startswith("missing: 3 cell(s) timed out (size 32, 128, 512")
    write_theory_check("conjunctions", df, tmp_path / "t.csv")
    theory = pd.read_csv(tmp_path / "t.csv")
    assert theory.loc[theory["learner"] == "erm", "note"].str.contains("timed out").all()
    assert not theory.loc[theory["learner"] == "elimination", "note"].fillna("").str.contains("timed out").any()


def test_without_a_timeout_nothing_is_noted(grid, tmp_path):
    cells = [c for c in grid.experiments["conjunctions"].cells if c.learner == "elimination"]
    run_shard(cells, root_seed=grid.seed, out=tmp_path / "s.parquet", cell_timeout=grid.cell_timeout_seconds)
    df = read_results(tmp_path / "s.parquet")
    assert (df["status"] == "ok").all() and timeout_notes(df) == {}


class _SlowRepetitions(_Slow):
    """halfspaces_online whose ``winnow`` repetitions take 0.5 s each (under the limit one by
    one, past it together)."""

    def run_repetition(self, cell, target, root_seed, rep, *, sharers):
        if cell.learner == "winnow":
            time.sleep(0.5)
        return self.exp.run_repetition(cell, target, root_seed, rep, sharers=sharers)


def test_the_limit_of_cells_run_together_counts_all_their_repetitions(tmp_path, monkeypatch):
    """Cells sharing streams run repetition-outer: a cell's limit applies to the sum of its
    repetitions; it alone becomes timeout rows, its group's other cells are unchanged."""
    from dpbench.foundation import provenance

    provenance.experiment_module("halfspaces_online")
    config = yaml.safe_load(TINY_CONFIG.read_text())
    block = config["experiments"]["halfspaces_online"] | {"repetitions": 4, "sweeps": [{"problem_params": {"d": 8, "s": 3, "rho": 0.3}}]}
    grid = from_dict({"seed": 5, "cell_timeout_minutes": 0.02, "experiments": {"halfspaces_online": block}})
    cells = list(grid.experiments["halfspaces_online"].cells)
    run_shard(cells, root_seed=grid.seed, out=tmp_path / "plain.parquet")
    real = dpbench.experiments.base.registry.experiment
    monkeypatch.setattr(dpbench.experiments.base.registry, "experiment", lambda exp_id: _SlowRepetitions(real(exp_id)))
    run_shard(cells, root_seed=grid.seed, out=tmp_path / "s.parquet", cell_timeout=grid.cell_timeout_seconds)
    df, plain = read_results(tmp_path / "s.parquet"), read_results(tmp_path / "plain.parquet")
    winnow = df[df["learner"] == "winnow"]
    assert (winnow["status"] == "timeout").all() and len(winnow) == 4
    others = df[df["learner"] != "winnow"].drop(columns=["fit_seconds"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(others, plain[plain["learner"] != "winnow"].drop(columns=["fit_seconds"]).reset_index(drop=True),
                                  check_dtype=False)  # a timeout row has no t: the column is float
