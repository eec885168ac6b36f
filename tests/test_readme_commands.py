"""The README reproduced by the README: its headline is what its two commands produce.

- The run command installs every optional extra whose learners the headline counts
  (``peers``: diffprivlib_logreg), and the test command's extra includes it too.
- In CI (``CI=true``, or ``DPBENCH_README_COMMANDS=1``): a fresh copy of the repository's
  files, a fresh virtual environment, the README's run command verbatim, then
  ``dpbench readme --check`` there (~6 min on 2 cores: the install, the default run with its
  kernels compiled from scratch). Elsewhere it skips (it needs the network for pip and
  duplicates ``default_run``, whose README check tests/test_theory_default_run.py makes).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dpbench.reporting.summary import BEGIN, END
from tests.conftest import REPO

#: learners whose library is an optional extra of pyproject.toml, by extra
EXTRA_LEARNERS = {"peers": ("diffprivlib_logreg",)}


def readme_commands(readme: str) -> tuple[str, str]:
    """The README's two commands (run, test): the command lines of the ``bash`` block under
    ``## Two commands``."""
    section = readme.split("## Two commands", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    lines = [line.strip() for line in block.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert len(lines) == 2, lines
    return lines[0], lines[1]


def installed_extras(command: str) -> set[str]:
    """The extras ``pip install -e ".[a,b]"`` in ``command`` installs."""
    found = re.search(r"pip install -e \"?\.(?:\[([^\]]*)\])?\"?", command)
    assert found, command
    return {e.strip() for e in (found.group(1) or "").split(",") if e.strip()}


def test_the_run_command_installs_what_the_headline_counts():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    run, test = readme_commands(readme)
    headline = readme.split(BEGIN, 1)[1].split(END, 1)[0]
    needed = {extra for extra, learners in EXTRA_LEARNERS.items() if any(name in headline for name in learners)}
    assert needed <= installed_extras(run), (run, needed)
    assert run.endswith("snakemake --cores all") and test.endswith("pytest")


def test_the_check_catches_the_old_run_command():
    """It can fail: the old run command (`pip install -e .`) installs no extra."""
    assert installed_extras("pip install -e . && snakemake --cores all") == set()
    assert installed_extras('pip install -e ".[peers]" && snakemake --cores all') == {"peers"}
    assert installed_extras('pip install -e ".[test]" && pytest') == {"test"}


def _fresh_copy(dest: Path) -> None:
    """The repository's files as a fresh clone of this working tree would have them (tracked
    and new files, nothing ignored: no results, no caches, no virtual environments)."""
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-co", "--exclude-standard", "-z"],
                           capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, files):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


@pytest.mark.slow
def test_readme_check_passes_after_only_the_readmes_run_command(tmp_path):
    if not (os.environ.get("CI") or os.environ.get("DPBENCH_README_COMMANDS")):
        pytest.skip("CI only (CI=true or DPBENCH_README_COMMANDS=1): installs from the network and runs the default grid again")
    clone = tmp_path / "clone"
    _fresh_copy(clone)
    run, _ = readme_commands((clone / "README.md").read_text(encoding="utf-8"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    env["VIRTUAL_ENV"] = str(venv)
    proc = subprocess.run(["bash", "-c", run], cwd=clone, env=env, capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    check = subprocess.run(["dpbench", "readme", "--check"], cwd=clone, env=env, capture_output=True, text=True, timeout=600)
    assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-2000:]
