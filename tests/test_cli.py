"""The dpbench command: list, run, validate, audit/check wiring, and bad input: one line,
exit status 2, never a traceback (issue 12)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from dpbench.cli import main
from dpbench.foundation import registry
from tests.conftest import TINY_CONFIG


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


# --------------------------------------------------------------------------- bad input (issue 12)


def _error(capsys, argv: list[str]) -> str:
    """Run ``dpbench argv``: exit status 2 and exactly one line on stderr, returned."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err + captured.out, captured.err
    return lines[0]


def test_missing_config_file(capsys, tmp_path):
    line = _error(capsys, ["validate", str(tmp_path / "nope.yaml")])
    assert line.endswith(f"{tmp_path / 'nope.yaml'}: no such file"), line


def test_yaml_syntax_error_names_file_and_line(capsys, tmp_path):
    bad = tmp_path / "syntax.yaml"
    bad.write_text("seed: 1\nexperiments:\n  conjunctions: {problem: conjunction\n")
    line = _error(capsys, ["plan", str(bad)])
    assert str(bad) in line and "YAML syntax error at line" in line, line


def test_typo_in_a_key_suggests_the_key(capsys, tmp_path):
    config = yaml.safe_load(TINY_CONFIG.read_text())
    config["experiments"]["conjunctions"]["repetitons"] = config["experiments"]["conjunctions"].pop("repetitions")
    bad = tmp_path / "typo.yaml"
    bad.write_text(yaml.safe_dump(config))
    line = _error(capsys, ["validate", str(bad)])
    assert "experiments.conjunctions.repetitons: unknown key 'repetitons'; did you mean 'repetitions'" in line, line


def test_unknown_experiment_suggests_the_nearest(capsys):
    line = _error(capsys, ["run", "--experiment", "conjunctionz", "--learner", "erm", "-n", "10"])
    assert "unknown experiment 'conjunctionz'; did you mean 'conjunctions'?" in line, line


def test_unknown_learner_lists_only_the_nearest(capsys):
    line = _error(capsys, ["run", "--experiment", "conjunctions", "--learner", "exp_mech_er", "--epsilon", "1", "-n", "10"])
    assert "unknown learner 'exp_mech_er'; did you mean 'exp_mech_erm'" in line, line
    assert "private_rwm" not in line  # not the whole catalogue


def test_unknown_problem_and_parameter(capsys):
    line = _error(capsys, ["run", "--experiment", "conjunctions", "--problem", "conjuction", "--learner", "erm", "-n", "10"])
    assert "did you mean 'conjunction'?" in line, line
    line = _error(capsys, ["run", "--experiment", "conjunctions", "--learner", "erm", "-n", "10", "--param", "noize=0.1"])
    assert "--param noize: unknown parameter" in line and "did you mean 'noise'?" in line, line
    line = _error(capsys, ["run", "--experiment", "conjunctions", "--learner", "erm", "-n", "10", "--param", "noise"])
    assert "--param takes NAME=VALUE" in line, line


def test_private_learner_requires_epsilon(capsys):
    line = _error(capsys, ["run", "--experiment", "conjunctions", "--learner", "exp_mech_erm", "-n", "30"])
    assert "--epsilon is required" in line and "exp_mech_erm" in line, line


def test_run_shows_mean_and_spread(capsys):
    assert main(["run", "--experiment", "conjunctions", "--learner", "elimination", "-n", "64", "--param", "d=6",
                 "--param", "noise=0.1", "--reps", "4", "--seed", "3"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "mean ± sd over 4 repetitions" in out
    row = next(line for line in out.splitlines() if line.lstrip().startswith("elimination"))
    assert row.split()[4] == "4" and "±" in row  # reps column, then "mean ± sd" metrics


def test_every_option_has_help_and_its_default():
    from dpbench.cli import build_parser

    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command").choices
    for name, sub in subparsers.items():
        for action in sub._actions:
            if action.dest == "help":
                continue
            assert action.help, f"dpbench {name} {action.dest}: no help text"
            if not action.required and action.default not in (None, []):
                assert "(default: %(default)s)" in sub.formatter_class("x")._get_help_string(action), (name, action.dest)


def test_audit_and_check_are_wired(monkeypatch):
    """`dpbench audit` and `dpbench check` pass their arguments to dpbench.audits.engine.cli_audit and
    dpbench.check.cli_check (implemented by issues 10 and 12) and return their status."""
    import dpbench.audits.engine
    import dpbench.check

    calls = []
    monkeypatch.setattr(dpbench.audits.engine, "cli_audit", lambda learner, **kw: calls.append(("audit", learner, kw)) or 0)
    monkeypatch.setattr(dpbench.check, "cli_check", lambda target, **kw: calls.append(("check", target, kw)) or 1)
    assert main(["audit", "private_rwm", "--epsilon", "0.5", "--delta", "1e-6", "--runs", "1000", "--seed", "4"]) == 0
    assert main(["audit", "laplace"]) == 0
    assert main(["check", "mypkg.mod:Learner", "--config", "c.yaml"]) == 1
    assert calls == [
        ("audit", "private_rwm", {"epsilon": 0.5, "delta": 1e-6, "runs": 1000, "seed": 4}),
        ("audit", "laplace", {"epsilon": None, "delta": None, "runs": None, "seed": 0}),
        ("check", "mypkg.mod:Learner", {"config": "c.yaml"}),
    ]


def test_console_script_prints_no_traceback(tmp_path):
    """Through the installed `dpbench` command: one line, status 2."""
    done = subprocess.run([sys.executable, "-m", "dpbench.cli", "validate", str(tmp_path / "missing.yaml")],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().endswith("missing.yaml: no such file"), done.stderr


@pytest.mark.parametrize("epsilon", ["inf", "nan", "0", "-1", "-inf"])
def test_audit_rejects_a_non_finite_or_non_positive_epsilon(epsilon, capsys, monkeypatch):
    """`dpbench audit NAME --epsilon inf` (or nan, 0, < 0): one line naming --epsilon, status 2,
    and no audit is run (review of issue 19, finding 6)."""
    import dpbench.audits.engine

    monkeypatch.setattr(dpbench.audits.engine, "cli_audit", lambda *a, **kw: pytest.fail("audited a claim that should be refused"))
    assert main(["audit", "private_rwm", f"--epsilon={epsilon}", "--runs", "20"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--epsilon must be finite and > 0" in err[0], err
