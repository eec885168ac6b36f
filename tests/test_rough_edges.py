"""Issue 20's rough edges, each with its test: results files readable by the group (umask
honoured), the cost model's refusal of a cell beyond this machine's memory (and --force),
no traceback for a bad ``shrink -o``, duplicate learners rejected, and ``dpbench run``'s
errors naming the flag the user typed."""

from __future__ import annotations

import os
import stat

import pytest
import yaml

from dpbench import cli
from dpbench.foundation.results import make_row, write_rows
from dpbench.orchestration.config import ConfigError, from_dict
from tests.conftest import TINY_CONFIG


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_results_files_honour_the_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        write_rows([make_row(experiment="x", status="ok")], tmp_path / "r.parquet")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.parquet").stat().st_mode) == mode


def _run(capsys, *argv):
    code = cli.main(["run", "--experiment", "conjunctions", "--learner", "erm", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_run_refuses_a_cell_beyond_the_machines_memory(capsys):
    code, out, err = _run(capsys, "-n", "1000000000")
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith("dpbench run: error: --size: the cost model predicts ") and "--force" in err


def test_force_runs_it_anyway(capsys, monkeypatch):
    monkeypatch.setattr("dpbench.orchestration.cost.machine_memory_mb", lambda: 1.0)  # every cell is "too big" now
    code, _, err = _run(capsys, "-n", "50", "--reps", "2")
    assert code == 2 and "more than this machine's 1 MB" in err
    code, out, err = _run(capsys, "-n", "50", "--reps", "2", "--force")
    assert code == 0 and "erm" in out, err


@pytest.mark.parametrize(
    "argv,line",
    [
        (["-n", "100", "--learner-param", "x=1"], "--learner-param x: unknown parameter 'x' of learner 'erm'"),
        (["-n", "100", "--param", "d=0"], "--param: "),
        (["-n", "100", "--param", "dd=3"], "--param dd: unknown parameter 'dd'"),
        (["-n", "0"], "--size: 0 is less than the minimum of 1"),
        (["-n", "10", "--reps", "0"], "--reps: 0 is less than the minimum of 1"),
        (["-n", "10", "--delta", "2"], "--delta: "),
        (["-n", "10", "--problem", "halfspace"], "--problem: unknown problem 'halfspace'"),
    ],
)
def test_run_errors_name_the_flag(capsys, argv, line):
    code, _, err = _run(capsys, *argv)
    assert code == 2 and "Traceback" not in err and "experiments." not in err, err
    assert err.startswith(f"dpbench run: error: {line}"), err


def test_run_epsilon_error_names_the_flag(capsys):
    code = cli.main(["run", "--experiment", "conjunctions", "--learner", "exp_mech_erm", "-n", "10", "--epsilon", "-1"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("dpbench run: error: --epsilon: "), err


def test_shrink_to_a_bad_output_path_is_one_line(capsys, tmp_path):
    code = cli.main(["shrink", str(TINY_CONFIG), "-o", "/nonexistent/x.yaml"])
    err = capsys.readouterr().err
    assert code == 2 and err.strip() == "dpbench shrink: error: -o /nonexistent/x.yaml: cannot write (No such file or directory)"


def test_duplicate_learner_rejected():
    config = yaml.safe_load(TINY_CONFIG.read_text())
    block = config["experiments"]["conjunctions"]
    block["learners"] = ["erm", "elimination", "erm"]
    with pytest.raises(ConfigError) as exc:
        from_dict({"seed": 1, "experiments": {"conjunctions": block}})
    assert exc.value.key == "experiments.conjunctions.learners[2]"
    assert "listed twice (also experiments.conjunctions.learners[0])" in exc.value.message
