"""Shared fixtures: a fixed-seed generator, the repository root, a snakemake runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
TINY_CONFIG = REPO / "tests" / "data" / "tiny.yaml"


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def run_snakemake(workdir: Path, *args: str, configfile: Path = TINY_CONFIG, cores: int = 2) -> subprocess.CompletedProcess:
    """Run the repository's workflow in ``workdir`` (its own results/ and .snakemake/)."""
    cmd = [
        sys.executable, "-m", "snakemake",
        "--snakefile", str(REPO / "Snakefile"),
        "--directory", str(workdir),
        "--configfile", str(configfile),
        "--cores", str(cores),
        *args,
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> Path:
    """The workflow run once on the tiny config (every experiment), shared by the
    end-to-end and report tests."""
    workdir = tmp_path_factory.mktemp("e2e_a")
    proc = run_snakemake(workdir)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return workdir
