"""Shards: packing by predicted cost (dpbench.orchestration.grid.shard, dpbench.orchestration.cost); layout never
changes results."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

from dpbench.experiments.base import run_shard
from dpbench.foundation import registry
from dpbench.foundation.cell import Cell, cells_from_json, cells_to_json, freeze
from dpbench.foundation.results import TIMING_COLUMNS
from dpbench.foundation.seeding import key_string
from dpbench.orchestration.config import from_dict
from dpbench.orchestration.cost import FAMILY_DEFAULTS, PER_REP_SECONDS, cell_cost, job_costs, shard_seconds
from dpbench.orchestration.cost_table import COST_TABLE, CostModel, Measurement
from dpbench.orchestration.grid import shard, sort_cells

SEED = 5


def _cells(**overrides) -> list[Cell]:
    block = {
        "problem": "conjunction",
        "problem_params": {"d": [5, 7], "k": 2},
        "learners": ["elimination", "erm", "exp_mech_erm", "private_sq_conjunction"],
        "epsilon": [0.5, 2.0],
        "n": [16, 64, 256, 4096],
        "repetitions": 2,
        **overrides,
    }
    return list(from_dict({"seed": SEED, "experiments": {"conjunctions": block}}).experiments["conjunctions"].cells)


def _flatten(shards):
    return [c for s in shards for c in s]


@pytest.mark.parametrize("kwargs", [{"n_shards": 1}, {"n_shards": 5}, {"n_shards": 10_000}, {"target_seconds": 1e-3}, {"target_seconds": 0.05}, {"target_seconds": 1e6}])
def test_every_cell_in_exactly_one_shard(kwargs):
    cells = _cells()
    shards = shard(cells, **kwargs)
    # every repetition of every cell exactly once (a costly cell may be split by repetitions)
    assert sorted((c.key_string(), r) for c in _flatten(shards) for r in c.reps) == sorted((c.key_string(), r) for c in cells for r in c.reps)
    assert all(shards) and len(shards) <= sum(c.repetitions for c in cells)
    for s in shards:  # each shard in the canonical order
        assert s == sort_cells(s)


def test_layout_is_deterministic_and_independent_of_input_order():
    cells = _cells()
    shuffled = [cells[i] for i in np.random.default_rng(0).permutation(len(cells))]
    for kwargs in ({"n_shards": 4}, {"target_seconds": 0.02}):
        assert shard(cells, **kwargs) == shard(shuffled, **kwargs)


def test_target_seconds_sets_the_number_of_shards_and_bounds_each():
    """ceil(total / target) shards; LPT keeps each within target + the largest unit."""
    cells = _cells(repetitions=5)
    costs = {c: cell_cost(c) for c in cells}
    for target in (0.01, 0.05, 0.2):
        shards = shard(cells, target_seconds=target, costs=costs)
        loads = [shard_seconds(s, costs) for s in shards]
        whole_runs = {}
        for c in cells:
            whole_runs.setdefault((c.problem_id, c.size), []).append(c)
        largest_unit = max(shard_seconds(run, costs) for run in whole_runs.values())
        assert max(loads) <= target + largest_unit + 1e-12
        assert len(shards) <= math.ceil(sum(loads) / target)
    # a coarser target never gives more jobs
    counts = [len(shard(cells, target_seconds=t)) for t in (0.005, 0.02, 0.08, 0.3, 100.0)]
    assert counts == sorted(counts, reverse=True) and counts[-1] == 1


def test_cells_sharing_a_sample_stay_together():
    """Same (problem, n): the class enumeration of erm/exp_mech_erm is paid once per job."""
    cells = _cells()
    for kwargs in ({"n_shards": 6}, {"target_seconds": 0.01}):
        home = {}
        for i, s in enumerate(shard(cells, **kwargs)):
            for c in s:
                assert home.setdefault((c.problem_id, c.size, c.first_rep), i) == i


def test_fixed_shard_count_does_not_grow_with_repetitions():
    few, many = _cells(repetitions=1), _cells(repetitions=40)
    assert len(shard(few, n_shards=6)) == len(shard(many, n_shards=6))


def test_shared_work_is_charged_once_per_shard():
    cells = [c for c in _cells() if c.size == 4096 and dict(c.problem_params)["d"] == 7 and c.learner in ("erm", "exp_mech_erm")]
    costs = [cell_cost(c) for c in cells]
    assert all(("class_mistakes", cells[0].problem_id, 4096, 0) in c.shared for c in costs)
    together = shard_seconds(cells)
    assert together < sum(c.alone for c in costs)
    union: dict = {}
    for c in costs:  # each key once: the class's mistakes, the sample, numba's import
        for key, seconds in c.shared.items():
            union[key] = max(union.get(key, 0.0), seconds)
    assert len(union) < sum(len(c.shared) for c in costs)
    assert together == pytest.approx(sum(c.own for c in costs) + sum(union.values()))


def test_invalid_arguments():
    with pytest.raises(ValueError, match="target_seconds"):
        shard(_cells(), target_seconds=0.0)
    with pytest.raises(ValueError, match="n_shards or target_seconds"):
        shard(_cells())
    assert shard([], n_shards=3) == []


def test_results_do_not_depend_on_the_shard_layout(tmp_path):
    """Seeds come from the cells' keys: one shard or many, the rows are identical (each
    shard draws its own targets from the problem-keyed stream)."""
    cells = [c for c in _cells() if c.size <= 256]

    def run(shards, name):
        paths = []
        for i, s in enumerate(shards):
            paths.append(tmp_path / f"{name}{i}.parquet")
            run_shard(s, root_seed=SEED, out=paths[-1])
        df = pd.concat([pd.read_parquet(p) for p in paths]).drop(columns=list(TIMING_COLUMNS))
        return df.sort_values(["cell_key", "rep"]).reset_index(drop=True)

    one = run(shard(cells, n_shards=1), "one")
    many = run(shard(cells, target_seconds=1e-4), "many")
    reversed_cells = run([[c] for c in reversed(sort_cells(cells))], "single")
    assert len(shard(cells, target_seconds=1e-4)) > 5
    pd.testing.assert_frame_equal(one, many)
    pd.testing.assert_frame_equal(one, reversed_cells)


class _FakeOnline:
    family = "online"


class _FakeWithEntry:
    family = "batch"


def _fake_cell(learner: str, size: int, reps: int) -> Cell:
    return Cell("conjunctions", "conjunction", freeze({"d": 8}), learner, (), math.inf, 0.0, size, reps)


def test_unknown_learners_get_family_default_and_hook_overrides(monkeypatch):
    monkeypatch.setitem(registry.LEARNERS, "fake_online", _FakeOnline)
    monkeypatch.setitem(registry.LEARNERS, "fake_hook", _FakeWithEntry)
    entry = CostModel("linear", {"per_rep": 0.25, "per_example_variable": 1e-6 / 8}, Measurement("today", "here", "none"))
    monkeypatch.setitem(COST_TABLE, "fake_hook", entry)  # a learner's own entry overrides its family's default
    per_rep, per_unit = FAMILY_DEFAULTS["online"]
    c = cell_cost(_fake_cell("fake_online", 10_000, 3))
    assert {k: v for k, v in c.shared.items() if k[0] != "job"} == {}  # online: no shared sample
    assert c.shared == job_costs("fake_online")  # a learner the first-use table does not know: the default
    assert c.own == pytest.approx(3 * (per_rep + per_unit * 10_000 * 8 + PER_REP_SECONDS))
    hooked = cell_cost(_fake_cell("fake_hook", 1000, 4))
    assert hooked.own == pytest.approx(4 * (0.25 + 1e-3 + PER_REP_SECONDS))


def _odd_cells() -> list[Cell]:
    """Cells whose texts take the slow paths: braces and non-ASCII in names, nested, bool,
    None and infinite parameters, ε and δ infinite, a numpy ε, −0.0, a piece, plugins."""
    params = freeze({"a": (1, 2.5), "b": True, "c": None, "d": "{x}", "e": math.inf})
    return [
        Cell("exp{x}", "pr\u00e9", params, "l", freeze({"z": "\u00fc"}), math.inf, math.inf, 5, 3, freeze({"o": 1}), first_rep=2, plugins=("p.q",)),
        Cell("e", "p", (), "l", (), np.float64(0.5), 1e-300, 5, 3, ()),
        Cell("e", "p", (), "l", (), -0.0, -0.0, 7, 3, ()),
        Cell("e", "p", params, "l", (), 1.0, 0.0, 5, 10, ()).piece(4, 3),
    ]


def test_cell_texts_are_the_json_of_their_fields():
    """A cell's key string is the canonical text of its key (its seeds' name), and a shard's
    JSON is json.dumps of its cells' dicts, fast paths or not; the JSON decodes to equal
    cells."""
    cells = _cells() + _odd_cells()
    for cell in cells:
        assert cell.key_string() == key_string(cell.key())
    assert cells_to_json(cells) == json.dumps([c.to_dict() for c in cells])
    assert cells_to_json([]) == "[]"
    plain = [c for c in cells if c.experiment == "conjunctions"]
    assert cells_from_json(cells_to_json(plain)) == plain


def test_a_piece_is_its_cell_with_other_repetitions():
    cell = _cells()[0]
    piece = cell.piece(1, 1)
    same = dataclasses.replace(cell, first_rep=1, repetitions=1)
    assert piece == same and hash(piece) == hash(same)
    assert piece.key_string() == cell.key_string() and piece.problem_id == cell.problem_id and piece != cell
