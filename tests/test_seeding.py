"""Random streams are a pure function of (root seed, stream, cell key) (docs/results.md, "Randomness")."""

from __future__ import annotations

import math

import numpy as np

from dpbench.experiments.base import data_rng, mech_rng
from dpbench.foundation.cell import Cell, freeze
from dpbench.foundation.seeding import key_string, make_rng


def _cell(**over):
    base = dict(experiment="conjunctions", problem="conjunction", problem_params=freeze({"d": 5, "k": 2}), learner="erm",
                learner_params=(), epsilon=math.inf, delta=0.0, size=100, repetitions=3)
    base.update(over)
    return Cell(**base)


def test_same_inputs_same_stream():
    a = make_rng(1, "data", {"x": 1, "y": 2.5}).random(5)
    b = make_rng(1, "data", {"y": 2.5, "x": 1}).random(5)  # key order is irrelevant
    np.testing.assert_array_equal(a, b)


def test_streams_differ_by_name_seed_and_key():
    draws = {
        tuple(make_rng(seed, stream, {"x": x}).random(3))
        for seed in (1, 2) for stream in ("data", "mech") for x in (1, 2)
    }
    assert len(draws) == 8


def test_canonical_keys_handle_inf_and_nesting():
    assert key_string({"e": math.inf, "p": {"b": 1, "a": [1.0, 2]}}) == '{"e":"inf","p":{"a":[1.0,2],"b":1}}'


def test_data_stream_is_shared_across_learners_epsilon_and_size():
    """Common random numbers: every learner, ε and n of a repetition sees the same data."""
    a = data_rng(_cell(), 0, 7).random(4)
    b = data_rng(_cell(learner="exp_mech_erm", epsilon=1.0, size=1000), 0, 7).random(4)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, data_rng(_cell(), 1, 7).random(4))


def test_mech_stream_depends_on_the_whole_cell():
    a = mech_rng(_cell(learner="exp_mech_erm", epsilon=1.0), 0, 7).random(4)
    b = mech_rng(_cell(learner="exp_mech_erm", epsilon=2.0), 0, 7).random(4)
    assert not np.array_equal(a, b)


def test_cell_json_round_trip():
    cell = _cell(epsilon=math.inf, learner_params=freeze({"alpha": 0.1}))
    assert Cell.from_dict(cell.to_dict()) == cell
