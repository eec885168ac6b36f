"""Bad configs stop before any job with a message naming the key."""

from __future__ import annotations

import copy
import math

import pytest
import yaml

from dpbench.cli import main
from dpbench.orchestration.config import ConfigError, from_dict, load
from tests.conftest import TINY_CONFIG


def _config() -> dict:
    cfg = yaml.safe_load(TINY_CONFIG.read_text())
    return {"seed": cfg["seed"], "experiments": {"conjunctions": copy.deepcopy(cfg["experiments"]["conjunctions"])}}


def _with(path: str, value) -> dict:
    cfg = _config()
    node = cfg["experiments"]["conjunctions"]
    *parents, last = path.split(".")
    for key in parents:
        node = node[key]
    node[last] = value
    return cfg


BAD = {
    "epsilon <= 0": (_with("epsilon", [0.5, -1.0]), "experiments.conjunctions.epsilon[1]"),
    "epsilon zero": (_with("epsilon", [0.0]), "experiments.conjunctions.epsilon[0]"),
    "delta >= 1": (_with("delta", 1.0), "experiments.conjunctions.delta"),
    "unknown learner": (_with("learners", ["erm", "no_such_learner"]), "experiments.conjunctions.learners[1]"),
    "n < 1": (_with("n", [10, 0]), "experiments.conjunctions.n[1]"),
    "empty n grid": (_with("n", []), "experiments.conjunctions.n"),
    "empty learner list": (_with("learners", []), "experiments.conjunctions.learners"),
    "unknown problem parameter": (_with("problem_params.width", 3), "experiments.conjunctions.problem_params.width"),
    "bad problem parameter": (_with("problem_params.noise", 0.7), "experiments.conjunctions.problem_params"),
    "bad learner parameter": (_with("learner_params", {"sq_conjunction": {"alpha": 2.0}}), "experiments.conjunctions.learner_params.sq_conjunction"),
    "learner on wrong problem": (_with("problem", "decision_list_does_not_exist"), "experiments.conjunctions.problem"),
    "repetitions < 1": (_with("repetitions", 0), "experiments.conjunctions.repetitions"),
    "unknown experiment key": (_with("colour", "red"), "experiments.conjunctions.colour"),
    "typo in a sweep": (_with("sweeps", [{}, {"epsilonn": [1.0]}]), "experiments.conjunctions.sweeps[1].epsilonn: unknown key 'epsilonn' in a sweep; did you mean 'epsilon'?"),
    "typo'd learner parameter": (_with("learner_params", {"sq_conjunction": {"alpah": 0.1}}), "experiments.conjunctions.learner_params.sq_conjunction.alpah: unknown parameter 'alpah' of learner 'sq_conjunction'; did you mean 'alpha'?"),
    "typo'd experiment": ({"seed": 1, "experiments": {"conjunctionz": {}}}, "experiments: unknown experiment 'conjunctionz'; did you mean 'conjunctions'?"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_config_names_the_key(case):
    cfg, key = BAD[case]
    with pytest.raises(ConfigError) as info:
        from_dict(cfg)
    assert str(info.value).startswith(key), str(info.value)


def test_unreadable_config_files(tmp_path):
    with pytest.raises(ConfigError, match="no such file") as info:
        load(tmp_path / "missing.yaml")
    assert info.value.key == str(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 1\nexperiments:\n  - a\n  b: 2\n")
    with pytest.raises(ConfigError, match=r"YAML syntax error at line 4, column 3"):
        load(bad)


def test_missing_and_empty_top_level():
    with pytest.raises(ConfigError, match="seed"):
        from_dict({"experiments": _config()["experiments"]})
    with pytest.raises(ConfigError, match="experiments"):
        from_dict({"seed": 1, "experiments": {}})
    with pytest.raises(ConfigError, match="experiments"):
        from_dict({"seed": 1, "experiments": {"no_such_experiment": {}}})


def test_infinite_epsilon_is_the_non_private_limit():
    grid = from_dict(_with("epsilon", [math.inf]))
    private = [c for c in grid.experiments["conjunctions"].cells if c.learner == "exp_mech_erm"]
    assert {c.epsilon for c in private} == {math.inf}


def test_non_private_learners_get_one_cell_per_size_not_per_epsilon():
    grid = from_dict(_config())
    cells = grid.experiments["conjunctions"].cells
    assert {c.epsilon for c in cells if c.learner == "erm"} == {math.inf}
    n_sizes = len(_config()["experiments"]["conjunctions"]["n"])
    assert sum(c.learner == "erm" for c in cells) == n_sizes


def test_learner_order_does_not_change_cells():
    cfg = _config()
    reordered = copy.deepcopy(cfg)
    reordered["experiments"]["conjunctions"]["learners"].reverse()
    a = sorted(c.key_string() for c in from_dict(cfg).experiments["conjunctions"].cells)
    b = sorted(c.key_string() for c in from_dict(reordered).experiments["conjunctions"].cells)
    assert a == b


def test_sweeps_union_and_merge():
    cfg = _config()
    cfg["experiments"]["conjunctions"]["sweeps"] = [{}, {"problem_params": {"d": [4, 5]}, "n": [64]}]
    cells = from_dict(cfg).experiments["conjunctions"].cells
    assert {dict(c.problem_params)["d"] for c in cells} == {4, 5, 6}
    assert {c.size for c in cells if dict(c.problem_params)["d"] == 4} == {64}


def test_cli_validate_exit_codes(tmp_path, capsys):
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(_config()))
    assert main(["validate", str(good)]) == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(BAD["epsilon <= 0"][0]))
    assert main(["validate", str(bad)]) == 2
    assert "experiments.conjunctions.epsilon[1]" in capsys.readouterr().err
