"""End to end on S3: a local S3 server (moto, on 127.0.0.1 only), the tiny config (two of
its experiments, a batch and an online one: every kind of output, at a fraction of the
time the whole suite may take) run with Snakemake's S3 storage plugin, ``--default-storage-provider s3 --shared-fs-usage none``:
every output the run declares is an object in the bucket (and nothing is written to the
local results directory), then a re-run has nothing to do (docs/running.md "Remote storage")."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time

import pytest
import yaml

from dpbench.foundation.paths import RunPaths, output_root
from dpbench.orchestration.config import from_dict
from tests.conftest import TINY_CONFIG, run_snakemake

pytestmark = pytest.mark.slow
#: moto (with boto3) and the storage plugin: .ci/run installs them; in CI a missing one fails the test
MISSING = [m for m in ("moto", "boto3", "snakemake_storage_plugin_s3") if importlib.util.find_spec(m) is None]


@pytest.fixture(scope="module", autouse=True)
def _needs_s3_packages():
    if MISSING and os.environ.get("CI") == "true":
        pytest.fail(f"not installed: {MISSING} (.ci/run installs them)")
    if MISSING:
        pytest.skip(f"not installed: {MISSING}")

BUCKET = "dpbench-test"
KEYS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3_endpoint(tmp_path_factory):
    """A moto S3 server on 127.0.0.1 (stopped after the module), with an empty bucket."""
    port = _free_port()
    log = open(tmp_path_factory.mktemp("moto") / "moto.log", "w")
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                              stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **KEYS})  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):  # up to 20 s for the server to listen
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.2)
        import boto3

        client = boto3.client("s3", endpoint_url=url, **_boto_keys())
        client.create_bucket(Bucket=BUCKET)
        yield url, client
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def _boto_keys() -> dict:
    return {"aws_access_key_id": KEYS["AWS_ACCESS_KEY_ID"], "aws_secret_access_key": KEYS["AWS_SECRET_ACCESS_KEY"],
            "region_name": KEYS["AWS_DEFAULT_REGION"]}  # fmt: skip


def _s3_args(url: str) -> list[str]:
    return ["--default-storage-provider", "s3", "--default-storage-prefix", f"s3://{BUCKET}", "--shared-fs-usage", "none",
            "--storage-s3-endpoint-url", url, "--storage-s3-access-key", KEYS["AWS_ACCESS_KEY_ID"],
            "--storage-s3-secret-key", KEYS["AWS_SECRET_ACCESS_KEY"]]  # fmt: skip


def _expected_objects(config: dict) -> set[str]:
    """Every file the run declares: shards, experiment results, theory CSV/HTML, figures
    and captions (dpbench.foundation.paths)."""
    grid = from_dict(config)
    paths = RunPaths(output_root(grid.output, TINY_CONFIG))
    out = set()
    for exp, plan in grid.experiments.items():
        out |= set(paths.shards(exp, len(plan.shards())))
        out |= set(paths.experiment_outputs(exp))
        out |= {files["caption"] for files in paths.figure_files(exp).values()}
    return out


#: the tiny config's experiments run on S3
EXPERIMENTS = ("conjunctions", "linear_loss")


def test_workflow_on_s3(s3_endpoint, tmp_path):
    url, client = s3_endpoint
    config = yaml.safe_load(TINY_CONFIG.read_text())
    config["experiments"] = {exp: config["experiments"][exp] for exp in EXPERIMENTS}
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(config))
    start = time.perf_counter()
    proc = run_snakemake(tmp_path, *_s3_args(url), configfile=path)
    seconds = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-5000:]
    objects = {o["Key"] for page in client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET) for o in page.get("Contents", [])}
    expected = _expected_objects(config)
    assert expected <= objects, sorted(expected - objects)[:10]
    for key in expected:
        assert client.head_object(Bucket=BUCKET, Key=key)["ContentLength"] > 0, key
    assert not (tmp_path / "results" / "theory").exists(), "outputs went to the local results directory, not to S3"
    again = run_snakemake(tmp_path, "-n", *_s3_args(url), configfile=path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Nothing to be done" in again.stdout + again.stderr, (again.stdout + again.stderr)[-3000:]
    print(f"S3 run: {seconds:.0f} s, {len(expected)} objects checked")
