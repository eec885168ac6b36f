"""The dpbench command: list, run, validate."""

from __future__ import annotations

from dpbench import registry
from dpbench.cli import main


def test_list_shows_every_registered_learner(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    registry.load_all()
    for name, cls in registry.LEARNERS.items():
        line = next(l for l in out.splitlines() if l.split()[:2] == ["learner", name])
        assert ("non-private" not in line) == cls.private and f"family={cls.family}" in line


def test_run_prints_a_summary_table(capsys):
    assert main(["run", "--experiment", "conjunctions", "--learner", "exp_mech_erm", "--epsilon", "1", "-n", "300",
                 "--param", "d=5", "--reps", "2"]) == 0
    out = capsys.readouterr().out
    assert "exp_mech_erm" in out and "error" in out


def test_run_rejects_a_bad_cell(capsys):
    assert main(["run", "--experiment", "conjunctions", "--learner", "exp_mech_erm", "--epsilon", "-1", "-n", "30"]) == 2
    assert "epsilon" in capsys.readouterr().err
