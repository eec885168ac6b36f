"""The workflow through a real SLURM scheduler (issue 7).

A single-node cluster on localhost is started by ``tests/tools/slurm_local_setup.sh`` (in
the repository; it installs Debian's slurmctld/slurmd/munge with apt-get where they are
missing; accounting off, so the
profile polls with ``squeue``) and stopped by the script's ``stop`` — which kills only the
daemons it started, by PID — in a finalizer that runs even when a test fails.

Checked: every shard of ``tests/data/tiny_slurm.yaml`` runs as its own SLURM job (the job
id each shard logs is a job the scheduler ran to COMPLETED); the collected Parquet is
identical, apart from :data:`dpbench.foundation.results.TIMING_COLUMNS`, to a local run of the same
config; a shard job cancelled with ``scancel`` while running fails its run, and a re-run
resubmits exactly that shard and completes with identical results.

Skips (with the reason) only when not root or when neither SLURM nor apt-get is
available; with ``CI=true`` those conditions fail the test instead.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from dpbench.foundation.results import TIMING_COLUMNS
from dpbench.orchestration.config import load
from dpbench.orchestration.local_run import real_env  # the real scontrol: its probe runs, as on a cluster

REPO = Path(__file__).resolve().parents[1]
SETUP = REPO / "tests" / "tools" / "slurm_local_setup.sh"
CONFIG = REPO / "tests" / "data" / "tiny_slurm.yaml"
PROFILE = REPO / "workflow" / "profiles" / "slurm_local"
EXPERIMENT = "conjunctions"
SLURM_ENV = {"SLURM_LOCAL_ACCOUNTING": "0"}  # matches `slurm-status-command: squeue`

pytestmark = [pytest.mark.slurm, pytest.mark.slow]


def _unavailable() -> str | None:
    if os.geteuid() != 0:
        return "needs root to start slurmctld, slurmd and munge"
    if not SETUP.is_file():
        return f"{SETUP} not found"
    if shutil.which("sbatch") is None and shutil.which("apt-get") is None:
        return "SLURM is not installed and apt-get is not available to install it"
    return None


def _setup(action: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SETUP), action], env={**real_env(), **SLURM_ENV}, capture_output=True, text=True, timeout=900
    )


@pytest.fixture(scope="module")
def cluster(request):
    """A running localhost cluster; stopped (our daemons only) after the module's tests."""
    reason = _unavailable()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the SLURM test must run in CI but cannot: {reason}")
        pytest.skip(reason)
    request.addfinalizer(lambda: _setup("stop"))  # registered first: runs even if start fails
    started = _setup("start")
    assert started.returncode == 0, f"slurm_local_setup.sh start failed:\n{started.stderr[-3000:]}"
    return started


def _snakemake(workdir: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run the workflow; on timeout stop it with SIGINT (so the plugin cancels its jobs)."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--configfile", str(CONFIG), "--cores", "2", *args]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**real_env(), "PYTHONHASHSEED": "0"})
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
        pytest.fail(f"snakemake did not finish in {timeout} s:\n{out[-3000:]}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, "")


def _slurm(workdir: Path, *targets: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return _snakemake(workdir, "--workflow-profile", str(PROFILE), *targets, timeout=timeout)


def _n_shards() -> int:
    return len(load(CONFIG).experiments[EXPERIMENT].shards())


def _shard_job_ids(workdir: Path) -> dict[str, str]:
    """shard → the SLURM_JOB_ID its run_shard log recorded ('none' outside SLURM)."""
    out = {}
    for log in sorted((workdir / "results" / "logs" / "run_shard" / EXPERIMENT).glob("*.log")):
        match = re.search(r"SLURM_JOB_ID=(\S+)", log.read_text())
        out[log.stem] = match.group(1) if match else "missing"
    return out


def _job_states(job_ids) -> dict[str, str]:
    """State of each job as the scheduler reports it (finished jobs stay 5 min: MinJobAge)."""
    ids = ",".join(sorted(job_ids))
    text = subprocess.run(["squeue", "-h", "-t", "all", "-j", ids, "-o", "%i|%T"], capture_output=True, text=True, check=True).stdout
    return dict(line.split("|") for line in text.split())


def _results(workdir: Path) -> pd.DataFrame:
    df = pd.read_parquet(workdir / "results" / f"{EXPERIMENT}.parquet")
    df = df.drop(columns=list(TIMING_COLUMNS))
    return df.sort_values(["cell_key", "rep", "t"], na_position="first").reset_index(drop=True)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    """The same config run locally (no SLURM): the reference results."""
    workdir = tmp_path_factory.mktemp("local")
    done = _snakemake(workdir, f"results/{EXPERIMENT}.parquet")
    assert done.returncode == 0, done.stdout[-3000:]
    assert set(_shard_job_ids(workdir).values()) == {"none"}  # the job-id check can fail
    return workdir


def test_workflow_through_slurm_matches_local_run(cluster, local_run, tmp_path):
    """End to end through the scheduler: every shard a COMPLETED SLURM job, same rows."""
    start = time.perf_counter()
    done = _slurm(tmp_path)
    assert done.returncode == 0, done.stdout[-5000:]
    print(f"SLURM end-to-end run: {time.perf_counter() - start:.1f} s")

    jobs = _shard_job_ids(tmp_path)
    assert len(jobs) == _n_shards() == 3
    assert all(job.isdigit() for job in jobs.values()), jobs
    assert len(set(jobs.values())) == len(jobs), f"shards shared a job: {jobs}"
    states = _job_states(jobs.values())
    assert all(states.get(job) == "COMPLETED" for job in jobs.values()), (jobs, states)
    for name in ("figures/conjunctions_error_vs_n.png", "theory/conjunctions.csv"):
        assert (tmp_path / "results" / name).is_file()
    pd.testing.assert_frame_equal(_results(tmp_path), _results(local_run))


def _running_shard_job(deadline: float) -> tuple[str, str]:
    """(job id, shard) of the first run_shard job seen RUNNING, polling until ``deadline``."""
    while time.time() < deadline:
        text = subprocess.run(["squeue", "-h", "-t", "R", "-o", "%i|%k"], capture_output=True, text=True).stdout
        for line in text.split():
            job, comment = line.split("|", 1)
            match = re.fullmatch(rf"rule_run_shard_wildcards_{EXPERIMENT}_(\d+)", comment)
            if match:
                return job, match.group(1)
        time.sleep(0.1)
    pytest.fail("no run_shard job was seen running")


def test_cancelled_job_is_recovered_by_rerun(cluster, local_run, tmp_path):
    """scancel one running shard job: that run fails; a plain re-run resubmits that shard."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(tmp_path),
           "--configfile", str(CONFIG), "--cores", "2", "--workflow-profile", str(PROFILE),
           f"results/{EXPERIMENT}.parquet"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**real_env(), "PYTHONHASHSEED": "0"})
    try:
        job, shard = _running_shard_job(deadline=time.time() + 600)
        subprocess.run(["scancel", job], check=True)
        out, _ = proc.communicate(timeout=600)
    except BaseException:
        proc.send_signal(signal.SIGINT)  # the plugin cancels its own jobs
        proc.communicate(timeout=120)
        raise
    assert proc.returncode != 0, f"the run survived a cancelled job:\n{out[-3000:]}"
    assert _job_states([job]).get(job) == "CANCELLED"
    assert not (tmp_path / "results" / "runs" / EXPERIMENT / f"{shard}.parquet").exists()
    assert not (tmp_path / "results" / f"{EXPERIMENT}.parquet").exists()

    before = _shard_job_ids(tmp_path)

    again = _slurm(tmp_path, f"results/{EXPERIMENT}.parquet")
    assert again.returncode == 0, again.stdout[-5000:]
    jobs = _shard_job_ids(tmp_path)
    assert len(jobs) == _n_shards() and jobs[shard].isdigit() and jobs[shard] != job, (jobs, job)
    # only the cancelled shard was resubmitted: the others kept the jobs of the first run
    assert {k: v for k, v in jobs.items() if k != shard} == {k: v for k, v in before.items() if k != shard}
    assert _job_states([jobs[shard]]).get(jobs[shard]) == "COMPLETED"
    pd.testing.assert_frame_equal(_results(tmp_path), _results(local_run))
