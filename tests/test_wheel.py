"""dpbench installs like a library (issue 28): the wheel built from the source holds the
package data the code reads at run time, and installed non-editable into a fresh virtual
environment, with no checkout on ``sys.path``, it validates a config, runs one cell, and
plans (``snakemake -n``) the default workflow from a workflow copy (Snakefile, workflow/,
config/) that has no ``dpbench/`` beside it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO

#: what the wheel is built from: the package and the files pyproject.toml names
SOURCE = ("pyproject.toml", "README.md", "LICENSE", "dpbench")
#: what a workflow checkout provides (and nothing of the package)
WORKFLOW = ("Snakefile", "workflow", "config", "environment.yml")
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc", "*.egg-info")


def _copy(names: tuple[str, ...], to: Path) -> None:
    to.mkdir(parents=True)
    for name in names:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, to / name, ignore=_IGNORE)
        else:
            shutil.copy2(source, to / name)


def _run(cmd: list[str], cwd: Path, env: dict, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_wheel_installs_and_runs_without_a_checkout(tmp_path):
    uv = [sys.executable, "-m", "uv"]  # the test extra installs uv
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    # build from a copy of the sources (setuptools writes build/ and *.egg-info beside them)
    _copy(SOURCE, tmp_path / "src")
    built = _run([*uv, "build", "--wheel", "-q", "-o", str(tmp_path / "dist"), str(tmp_path / "src")], tmp_path, env)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("dpbench_learning-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    data = sorted(str(path.relative_to(REPO)) for path in (REPO / "dpbench").rglob("*")
                  if path.is_file() and path.suffix not in (".py", ".pyc", ".nbi", ".nbc"))
    assert "dpbench/orchestration/schema.yaml" in data
    assert [path for path in data if path not in names] == [], "package data missing from the wheel"

    venv = tmp_path / "venv"
    made = _run([*uv, "venv", "-q", "--python", sys.executable, str(venv)], tmp_path, env)
    assert made.returncode == 0, made.stderr[-3000:]
    installed = _run([*uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"), str(wheel)], tmp_path, env)
    assert installed.returncode == 0, installed.stderr[-3000:]
    env = {**env, "PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}", "VIRTUAL_ENV": str(venv), "PYTHONHASHSEED": "0"}

    work = tmp_path / "work"
    _copy(WORKFLOW, work)
    assert not (work / "dpbench").exists()
    where = _run([str(venv / "bin" / "python"), "-c", "import dpbench; print(dpbench.__file__, dpbench.__version__)"], work, env)
    path, version = where.stdout.split()
    assert Path(path).is_relative_to(venv) and version != "0+unknown", where.stdout + where.stderr

    dpbench = str(venv / "bin" / "dpbench")
    valid = _run([dpbench, "validate", "config/config.yaml"], work, env)
    assert valid.returncode == 0 and "valid" in valid.stdout, valid.stdout + valid.stderr
    bad = work / "bad.yaml"
    bad.write_text((work / "config" / "config.yaml").read_text().replace("repetitions: 10", "repetitions: -1", 1))
    refused = _run([dpbench, "validate", str(bad)], work, env)  # the schema is read from the installed package
    assert refused.returncode == 2 and "repetitions" in refused.stderr and "Traceback" not in refused.stderr, refused.stderr

    cell = _run([dpbench, "run", "--experiment", "conjunctions", "--learner", "elimination", "--size", "64", "--reps", "2"], work, env)
    assert cell.returncode == 0 and "error" in cell.stdout, cell.stdout + cell.stderr

    plan = _run([str(venv / "bin" / "snakemake"), "-n", "--cores", "1"], work, env)
    assert plan.returncode == 0, plan.stderr[-4000:]
    assert "run_shard" in plan.stdout + plan.stderr and "summarise" in plan.stdout + plan.stderr

    docs = _run([dpbench, "docs"], work, env)  # needs a checkout: says so in one line
    lines = docs.stderr.strip().splitlines()
    assert docs.returncode == 2 and len(lines) == 1 and "source checkout" in lines[0], docs.stderr
