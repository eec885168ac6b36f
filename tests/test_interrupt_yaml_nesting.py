"""Issue 31's rough edges, each with its test: Ctrl-C stops a workflow run with one line and
the command that resumes it (dpbench.orchestration.interrupt); a YAML syntax error in the config a run reads
names the file, line and column, under ``dpbench`` and ``snakemake`` alike; an ``output:``
inside another run's own folders is refused with one line, exit status 2 (dpbench.foundation.paths)."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time

import pytest

from dpbench import cli
from dpbench.foundation.paths import OutputClash, RunPaths, check_owner, nesting_error
from dpbench.orchestration.interrupt import interrupt_line, resume_command
from tests.conftest import REPO, TINY_CONFIG, run_snakemake

BAD_YAML = "seed: 1\nexperiments:\n  conjunctions: [a\n  b: 2\n"


# --- output: inside another run's folder -------------------------------------------------

@pytest.mark.parametrize("output", ["results/theory", "results/figures/mine", "./results/report/x", "results/runs"])
def test_an_output_inside_the_default_runs_folders_is_refused(tmp_path, capsys, output):
    config = tmp_path / "nested.yaml"
    config.write_text(TINY_CONFIG.read_text().replace("output: results ", f"output: {output} "))
    assert f"output: {output} " in config.read_text()
    code = cli.main(["validate", str(config)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert f"invalid config {config}: output: " in err and "a folder of the run in results/" in err


@pytest.mark.parametrize("output", ["results", "results/plugin", "results/run-theory", "elsewhere/theory"])
def test_a_run_directory_of_its_own_is_accepted(output):
    assert nesting_error(output) is None


def test_an_output_inside_a_derived_runs_folders_is_refused(tmp_path):
    """The derived run results/plugin owns results/plugin/theory: found by its .owner."""
    (tmp_path / "results" / "plugin").mkdir(parents=True)
    (tmp_path / "results" / "plugin" / ".owner").write_text("examples/plugin/config.yaml\n")
    assert nesting_error("results/plugin/theory") is None  # the static check does not know the run
    with pytest.raises(OutputClash, match=r"results/plugin/theory/x/ lies in results/plugin/theory/"):
        check_owner(RunPaths("results/plugin/theory/x"), tmp_path / "mine.yaml", tmp_path)
    check_owner(RunPaths("results/plugin2"), tmp_path / "mine.yaml", tmp_path)  # beside it: fine


def test_snakemake_refuses_a_nested_output_with_one_line(tmp_path):
    config = tmp_path / "nested.yaml"
    config.write_text(TINY_CONFIG.read_text().replace("output: results ", "output: results/theory "))
    proc = run_snakemake(tmp_path, "-n", configfile=config)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines()[-1].startswith(f"invalid config {config}: output: results/theory/ lies in results/theory/")
    assert "Traceback" not in proc.stderr and not (tmp_path / "results" / "theory").exists()


# --- YAML syntax errors ----------------------------------------------------------------------

def test_validate_names_file_line_and_column(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD_YAML)
    assert cli.main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"dpbench validate: error: invalid config {bad}: YAML syntax error at line 4, column 4: expected ',' or ']', but got ':'"


def test_snakemake_names_file_line_and_column_of_the_default_config(tmp_path):
    """`snakemake` without --configfile reads config/config.yaml of its working directory:
    a syntax error there is one line with the line and column (Snakemake's own message,
    'Config file is not valid JSON or YAML', names neither)."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text(BAD_YAML)
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(tmp_path), "-n", "--cores", "1"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines()[-1] == (
        "invalid config config/config.yaml: YAML syntax error at line 4, column 4: expected ',' or ']', but got ':'"), proc.stderr[-2000:]


# --- Ctrl-C ------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv,line", [
    (["/venv/bin/snakemake", "--cores", "all"], "snakemake --cores all"),
    (["/x/site-packages/snakemake/__main__.py", "--configfile", "my config.yaml"], "python -m snakemake --configfile 'my config.yaml'"),
])
def test_the_resume_command_is_the_command_typed(argv, line):
    assert resume_command(argv) == line
    assert interrupt_line(argv).endswith(f"resume with: {line}")


@pytest.mark.slow
def test_ctrl_c_stops_with_one_line_and_the_printed_command_resumes(tmp_path):
    """SIGINT to the process group (as a terminal's Ctrl-C) once a shard job runs: the
    output after it is exactly one line, no traceback; the command it names finishes the run."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(tmp_path),
           "--configfile", str(TINY_CONFIG), "--cores", "2"]
    log = tmp_path / "out.txt"
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True, start_new_session=True,
                                env={**os.environ, "PYTHONHASHSEED": "0"},
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.time() + 300
        while "localrule run_shard" not in log.read_text() and time.time() < deadline and proc.poll() is None:
            time.sleep(0.2)
        time.sleep(1.0)  # the job's Python is importing or running its cells
        before = log.stat().st_size
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=300)
    after = log.read_bytes()[before:].decode()
    assert proc.returncode != 0
    lines = after.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in after, after[-3000:]
    assert lines[0].startswith("dpbench: interrupted; finished jobs are kept, resume with: python -m snakemake "), lines[0]
    resume = shlex.split(lines[0].split("resume with: ", 1)[1])
    assert resume[:3] == ["python", "-m", "snakemake"] and resume[3:] == cmd[3:]
    done = subprocess.run([sys.executable, *resume[1:]], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "results" / "theory" / "summary.csv").is_file()
