"""The cost model's per-job keys (dpbench.orchestration.cost.job_costs) and shared feature matrix (issue 22)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from dpbench.foundation import registry
from dpbench.foundation.cell import Cell, freeze
from dpbench.orchestration.cost import (
    DEFAULT_FIRST_USE,
    FIRST_USE,
    FORMULAS,
    LIBRARY_SECONDS,
    cell_cost,
    job_costs,
    libraries_of,
    shard_seconds,
)
from dpbench.orchestration.cost_table import COST_TABLE, CostModel, Measurement
from dpbench.orchestration.grid import shard


def _cell(learner: str, size: int = 1000, reps: int = 10, eps: float = 1.0, experiment: str = "private_erm") -> Cell:
    params = freeze({"d": 10}) if experiment == "private_erm" else freeze({"d": 8, "k": 2, "l": 4, "r": 2, "p": 0.5, "noise": 0.0})
    problem = "halfspace" if experiment == "private_erm" else "decision_list"
    return Cell(experiment, problem, params, learner, (), eps, 1e-6, size, reps)


def test_first_use_is_paid_once_per_job_not_per_cell_or_repetition():
    one, two = _cell("dp_sgd", reps=1), _cell("dp_sgd", reps=100)
    jobs = job_costs("dp_sgd")
    assert jobs[("job", "first_use", "dp_sgd")] == FIRST_USE["dp_sgd"][0]
    assert ("job", "import", "dp_accounting") in jobs and ("job", "import", "numba") in jobs
    for c in (one, two):
        assert {k: v for k, v in cell_cost(c).shared.items() if k[0] == "job" and k[1] != "dp_sgd_calibration"} == jobs  # not scaled by repetitions
    # two cells of one learner: the job pays its first use once; a second learner sharing
    # numba adds its own first use and only the libraries dp_sgd did not import
    a, b = _cell("dp_sgd", eps=1.0), _cell("dp_sgd", eps=2.0)
    common = {k: v for k, v in cell_cost(b).shared.items() if k in cell_cost(a).shared}  # the sample and the job keys
    assert set(jobs) < set(common)
    assert shard_seconds([a, b]) == pytest.approx(cell_cost(a).alone + cell_cost(b).alone - sum(common.values()))
    c = _cell("output_perturbation")
    extra = shard_seconds([a, c]) - shard_seconds([a]) - cell_cost(c).own
    other = job_costs("output_perturbation")
    assert extra == pytest.approx(sum(v for k, v in other.items() if k not in jobs))
    assert extra < sum(other.values())  # numba (and scipy) counted once


def test_a_split_cell_pays_the_job_costs_in_every_piece():
    cell = _cell("dp_sgd", reps=100)
    costs: dict = {}
    pieces = [p for s in shard([cell], target_seconds=1e-3, costs=costs) for p in s]
    assert len(pieces) > 1 and sum(p.repetitions for p in pieces) == 100
    jobs = sum(job_costs("dp_sgd").values())
    for p in pieces:
        assert costs[p].own == pytest.approx(costs[cell].own * p.repetitions / 100)
        assert shard_seconds([p], costs) >= jobs


def test_job_costs_do_not_inflate_the_number_of_shards():
    """Packing weighs groups without their per-job keys: a grid of tiny cells of one learner
    fits one shard of a target that the cells' own work fits, whatever the first use costs."""
    cells = [_cell("output_perturbation", size=100, reps=1, eps=e) for e in (0.5, 1.0, 2.0, 4.0, 8.0)]
    own = sum(cell_cost(c).own for c in cells)
    assert len(shard(cells, target_seconds=own * 1.01 + 1e-9)) == 1


def test_libraries_are_recognised_from_module_names_and_unknown_learners_get_the_default():
    assert libraries_of(["numba", "dp_accounting", "dpbench.learners.dp_sgd"]) == ("numba", "dp_accounting")
    assert libraries_of(["diffprivlib", "sklearn.tree"]) == ("sklearn", "diffprivlib")
    assert job_costs("no_such_learner")[("job", "first_use", "no_such_learner")] == DEFAULT_FIRST_USE[0]
    assert all(lib in LIBRARY_SECONDS for _, libs in FIRST_USE.values() for lib in libs)


def test_cover_learners_share_the_feature_matrix_of_a_sample():
    """rivest, privdl and privdl_composition on one sample build Φ once (cached on the
    sample): the shard pays it once, and it grows with n·|F|."""
    cells = [dataclasses.replace(_cell(name, size=65536, experiment="decision_lists"), epsilon=math.inf if name == "rivest" else 1.0)
             for name in ("rivest", "privdl", "privdl_composition")]  # fmt: skip
    keys = [{k for k in cell_cost(c).shared if k[0] == "dl_feature_matrix"} for c in cells]
    assert keys[0] == keys[1] == keys[2] and len(keys[0]) == 1
    (key,) = keys[0]
    phi = cell_cost(cells[0]).shared[key]
    assert phi > 0
    # a third covering learner on the same sample adds its own work and first use, no Φ
    seen = {k for c in cells[:2] for k in cell_cost(c).shared}
    third = cell_cost(cells[2])
    added = shard_seconds(cells) - shard_seconds(cells[:2])
    assert added == pytest.approx(third.own + sum(v for k, v in third.shared.items() if k not in seen))
    small = cell_cost(dataclasses.replace(cells[0], size=1024)).shared
    assert small[next(k for k in small if k[0] == "dl_feature_matrix")] == pytest.approx(phi / 64)


def test_dp_sgd_accounting_is_paid_once_per_job_and_grows_with_n():
    """The PLD calibration is cached per process on (ε, δ, q, T): a cell split into pieces
    pays it in every piece's job (not a fraction), two cells of one (ε, n) in a job once,
    and it is ~1 s at ε = 10, n = 1e5 (measured 0.77 s) against ~0.2 s at n = 1e3."""
    def accounting(c):
        return {k: v for k, v in cell_cost(c).shared.items() if k[0] == "job" and k[1] == "dp_sgd_calibration"}

    big, small = _cell("dp_sgd", size=100_000, eps=10.0), _cell("dp_sgd", size=1000, eps=10.0)
    (seconds,) = accounting(big).values()
    assert 0.5 < seconds < 2.0 and sum(accounting(small).values()) < 0.4
    assert accounting(_cell("dp_sgd", size=100_000, eps=math.inf)) == {}
    assert accounting(_cell("dp_sgd", size=100_000, reps=1, eps=10.0)) == accounting(big)  # not per repetition
    costs: dict = {}
    pieces = [p for s in shard([big], target_seconds=0.05, costs=costs) for p in s]
    assert len(pieces) > 1
    for p in pieces:
        assert {k: v for k, v in costs[p].shared.items() if k[1] == "dp_sgd_calibration"} == accounting(big)
    twin = dataclasses.replace(big, learner_params=freeze({"clip": 1.0}))  # another cell, same (ε, δ, q, T)
    assert shard_seconds([big, twin]) - shard_seconds([big]) < cell_cost(twin).alone - seconds + 1e-9


class _FakeOnline:
    family = "online"


def _table(cell, c):
    return {("job", "table", cell.size): c["table"]}
def test_a_per_job_key_of_a_cost_formula_is_paid_once_per_job_whatever_the_repetitions(monkeypatch):
    monkeypatch.setitem(registry.LEARNERS, "fake_job", _FakeOnline)
    monkeypatch.setitem(FORMULAS, "fake_table", _table)
    entry = CostModel("linear", {"per_rep": 0.0, "per_example_variable": 0.0, "table": 2.0}, Measurement("today", "here", "none"), shared=("fake_table",))
    monkeypatch.setitem(COST_TABLE, "fake_job", entry)
    one, many = (Cell("conjunctions", "conjunction", freeze({"d": 8}), "fake_job", (), math.inf, 0.0, 100, r) for r in (1, 50))
    assert cell_cost(one).shared[("job", "table", 100)] == cell_cost(many).shared[("job", "table", 100)] == 2.0
    other = dataclasses.replace(one, epsilon=1.0)  # another cell, same table: paid once in a job
    assert shard_seconds([one, other]) == pytest.approx(cell_cost(one).alone + cell_cost(other).own)
