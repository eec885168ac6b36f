"""The one Snakemake name the workflow uses that Snakemake does not document:
``workflow.overwrite_configfiles``, the paths given with ``--configfile`` (the Snakefile loads
the default config only without one; workflow/rules/common.smk names the config in error
messages and derives the output directory from it). Nothing documented gives the paths, so
this test fails, naming the files to change, the day Snakemake renames or changes it."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import snakemake.api  # noqa: F401 (imports snakemake.workflow in the order Snakemake does: not a cycle)
from snakemake.workflow import Workflow

SNAKEMAKE = version("snakemake")

USERS = "Snakefile and workflow/rules/common.smk"


def test_workflow_overwrite_configfiles_is_still_a_property():
    attr = getattr(Workflow, "overwrite_configfiles", None)
    assert isinstance(attr, property), (
        f"Snakemake {SNAKEMAKE} has no property Workflow.overwrite_configfiles any more: "
        f"{USERS} read the --configfile paths from it; find its new name and update them"
    )


def test_it_gives_the_configfile_paths_in_order(tmp_path: Path):
    (tmp_path / "a.yaml").write_text("x: 1\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("x: 2\n", encoding="utf-8")
    (tmp_path / "Snakefile").write_text(
        'import os\nprint("FILES", [os.path.basename(p) for p in workflow.overwrite_configfiles], config.get("x"))\n'
        "rule all:\n    run:\n        pass\n",
        encoding="utf-8",
    )
    run = [sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--quiet", "all"]
    given = subprocess.run([*run, "--configfile", "a.yaml", "b.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert given.returncode == 0, given.stderr
    assert "FILES ['a.yaml', 'b.yaml'] 2" in given.stdout + given.stderr, (
        f"Snakemake {SNAKEMAKE}: workflow.overwrite_configfiles no longer lists the --configfile paths in "
        f"order ({USERS} rely on it):\n{given.stdout}{given.stderr}"
    )


def test_the_oldest_supported_snakemake_is_declared_alike_everywhere():
    """pyproject.toml (what CI's minimum-versions environment installs), environment.yml and
    the Snakefile's min_version name the same oldest release."""
    import re

    repo = Path(__file__).resolve().parents[1]
    found = {
        "pyproject.toml": re.search(r'"snakemake>=([\d.]+),', (repo / "pyproject.toml").read_text(encoding="utf-8")),
        "environment.yml": re.search(r"snakemake>=([\d.]+),", (repo / "environment.yml").read_text(encoding="utf-8")),
        "Snakefile": re.search(r'^min_version\("([\d.]+)"\)', (repo / "Snakefile").read_text(encoding="utf-8"), re.M),
    }
    versions = {name: m.group(1) if m else None for name, m in found.items()}
    assert len(set(versions.values())) == 1 and None not in versions.values(), versions
