"""``dpbench calibrate`` and the calibration file the plan reads (issue 32, item 3), and the
shard rule at 100× the paper grid (item 4)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dpbench.foundation.cell import Cell
from dpbench.orchestration import cost, cost_table
from dpbench.orchestration.config import from_dict

REPO = Path(__file__).resolve().parents[1]

#: one experiment, two learners, seconds of work: what the fast calibration test probes
MINI = {
    "seed": 3,
    "experiments": {
        "conjunctions": {
            "problem": "conjunction",
            "problem_params": {"d": 6, "k": 2, "skew": 2.0},
            "learners": ["elimination", "sq_conjunction"],
            "epsilon": [1.0],
            "n": [64, 4096],
            "repetitions": 3,
            "shards": 1,
        }
    },
}


def _dpbench(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    import os

    return subprocess.run(
        [sys.executable, "-m", "dpbench.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, **env},
    )


@pytest.fixture
def use_file(monkeypatch):
    """Point the cost model at a calibration file for one test (the cache reset around it)."""

    def use(path: Path | str) -> None:
        monkeypatch.setenv(cost_table.CALIBRATION_ENV, str(path))
        cost.calibration.cache_clear()
        cost.job_costs.cache_clear()

    yield use
    monkeypatch.setenv(cost_table.CALIBRATION_ENV, "shipped")
    cost.calibration.cache_clear()
    cost.job_costs.cache_clear()


def _calibration(tmp_path: Path, **factors: float) -> Path:
    from dpbench import __version__

    body = cost_table.Calibration(
        "", cost.machine_id() + ", load 0.0 at calibration", "2026-11-27", __version__, cost.table_digest(), 2.0, 1.5, factors
    )
    path = tmp_path / "cal.json"
    path.write_text(body.to_json())
    return path


def test_calibrate_writes_a_file_that_plan_reads(tmp_path):
    config = tmp_path / "mini.yaml"
    config.write_text(yaml.safe_dump(MINI))
    out = tmp_path / "cal.json"
    done = _dpbench(
        "calibrate",
        str(config),
        "--budget",
        "0.5",
        "--jobs",
        "1",
        "-o",
        str(out),
        env={cost_table.CALIBRATION_ENV: "shipped"},
    )
    assert done.returncode == 0, done.stderr
    body = json.loads(out.read_text())
    assert set(body["factors"]) == {"elimination", "sq_conjunction"}
    assert body["dpbench_version"] and body["machine"] and body["date"] and body["table"] == cost.table_digest()
    plan = _dpbench("plan", str(config), env={cost_table.CALIBRATION_ENV: str(out)})
    assert plan.returncode == 0, plan.stderr
    assert f"cost table: calibrated on {body['machine']}" in plan.stdout and str(out) in plan.stdout
    shipped = _dpbench("plan", str(config), env={cost_table.CALIBRATION_ENV: "shipped"})
    assert "cost table: shipped, measured on the" in shipped.stdout


def test_factors_scale_the_prediction(tmp_path, use_file):
    cell = Cell(
        "conjunctions", "conjunction", (("d", 6), ("k", 2), ("skew", 2.0)), "elimination", (), 1.0, 0.0, 4096, 3
    )
    use_file("shipped")
    before, job = cost.cell_cost(cell), cost.job_overhead_seconds()
    use_file(_calibration(tmp_path, elimination=3.0))
    after = cost.cell_cost(cell)
    assert after.own == pytest.approx(3 * before.own)
    assert [after.shared[k] for k in before.shared if k[0] != "job"] == pytest.approx(
        [3 * before.shared[k] for k in before.shared if k[0] != "job"]
    )
    assert after.shared[("job", "first_use", "elimination")] == pytest.approx(
        1.5 * before.shared[("job", "first_use", "elimination")]
    )
    assert (job, cost.job_overhead_seconds()) == (cost.JOB_OVERHEAD_SECONDS, 2.0)


@pytest.mark.parametrize("damage", ["corrupt", "stale", "wrong", "another machine"])
def test_bad_calibration_file_is_one_line_exit_2(tmp_path, damage):
    path = _calibration(tmp_path, elimination=2.0)
    if damage == "corrupt":
        path.write_text(path.read_text()[:40])
    elif damage == "stale":
        path.write_text(path.read_text().replace(cost.table_digest(), "0" * 16))
    elif damage == "another machine":
        path.write_text(path.read_text().replace(cost.machine_id(), "otherhost: Some CPU, 64 cores"))
    else:
        path.write_text(json.dumps({"format": 1, "factors": {"erm": -1}}))
    done = _dpbench("plan", "tests/data/tiny.yaml", env={cost_table.CALIBRATION_ENV: str(path)})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "dpbench calibrate" in lines[0], done.stderr
    assert "Traceback" not in done.stderr


def test_shard_rule_holds_at_100x(use_file):
    """Every shard of the 100× paper grid (benchmarks/bench_scale.py) is predicted ≤ 3 min
    with the shipped table. It failed (4.45 min: 125 DP-SGD cells, each with its own ε and so
    its own noise calibration, a per-job key the splitter did not weigh) before the splitter
    counted the per-job keys that grow with the cells."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_scale import widen

    use_file("shipped")
    grid = from_dict(widen(yaml.safe_load((REPO / "config" / "paper.yaml").read_text()), 100))
    largest = max((s, e) for e, plan in grid.experiments.items() for s in plan.shard_seconds())
    assert largest[0] + cost.JOB_OVERHEAD_SECONDS <= 180.0, largest


def _count_draws(monkeypatch, module) -> list[int]:
    """Count the data draws (``data_rng`` calls) of ``module`` from now on."""
    calls = []
    real = module.data_rng

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "data_rng", counting)
    return calls


def test_probes_draw_their_own_samples(tmp_path, monkeypatch, capsys):
    """A probe pays for its samples as the shard job it stands for does: the warm-up cell and
    the probe cells run in one interpreter (``probe_main``), each with its own sample cache.
    With one cache shared across them (before), the probe found the warm-up's samples of the
    same problem and size and drew none: its CPU, and the factor, came out low."""
    from dpbench.experiments import base
    from dpbench.foundation.cell import cells_to_json
    from dpbench.orchestration.calibrate import probe_main

    cells = [c for c in from_dict(MINI).experiments["conjunctions"].cells if c.size == 64]
    warm = next(c for c in cells if c.learner == "elimination")
    probe = next(c for c in cells if c.learner == "sq_conjunction")
    assert (warm.problem_id, warm.size) == (probe.problem_id, probe.size)  # the same samples
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"seed": 3, "probes": [
        {"name": "sq_conjunction", "warm": cells_to_json([warm]), "cells": cells_to_json([probe])}
    ]}))  # fmt: skip
    draws = _count_draws(monkeypatch, base)
    probe_main(str(spec), str(tmp_path))
    assert len(draws) == warm.repetitions + probe.repetitions  # shared cache: warm.repetitions
    assert json.loads(capsys.readouterr().out)["runs"][0]["cells"] > 0


def test_a_shard_draws_its_own_loss_sequences(tmp_path, monkeypatch):
    """The experts' loss-sequence cache is a shard's too: run twice in one process, a shard
    draws its losses twice (once before: the second run found the first run's)."""
    from dpbench.experiments import base, experts

    config = {"seed": 3, "experiments": {"experts": {
        "problem": "experts", "problem_params": {"kind": "stochastic", "k": 4, "gap": 0.2}, "learners": ["rwm"],
        "epsilon": [1.0], "T": [200], "repetitions": 2, "shards": 1}}}  # fmt: skip
    cells = from_dict(config).experiments["experts"].cells
    draws = _count_draws(monkeypatch, experts)
    for _ in range(2):
        base.run_shard(cells, root_seed=3, out=tmp_path / "shard.parquet")
    assert len(draws) == 2 * sum(c.repetitions for c in cells)


def test_audit_probes_are_cells_like_the_audits(use_file):
    """The privacy audit's cells are one repetition each, most far above an equal share of
    the probe budget: its probes are the largest cells that fit a budget share weighted by
    the audits' part of the run (:func:`dpbench.orchestration.calibrate.budget_shares`), not
    the one cheapest cell (0.25 s of the audits' 107 s before: mostly per-cell overhead, a
    factor of 1.5 where the shards ran at 0.65)."""
    from dpbench.orchestration import calibrate
    from dpbench.orchestration.config import load

    use_file("shipped")
    grid = load(str(REPO / "config" / "config.yaml"))
    groups: dict[tuple[str, str], list[Cell]] = {}
    for exp_id, plan in grid.experiments.items():
        for cell in plan.cells:
            groups.setdefault((calibrate.cost_name(cell), exp_id), []).append(cell)
    shares = calibrate.budget_shares(groups, 60.0)
    assert sum(shares.values()) == pytest.approx(60.0)
    audits = groups["privacy_audit", "privacy_audit"]
    _, probes = calibrate.choose_probes(audits, shares["privacy_audit", "privacy_audit"])
    assert cost.shard_seconds(probes, jobs=False) >= 0.1 * cost.shard_seconds(audits, jobs=False)
    assert cost.shard_seconds(probes, jobs=False) <= 2 * shares["privacy_audit", "privacy_audit"]


def test_per_job_cpu_goes_to_the_start_up():
    """The first warm-up of a probe interpreter pays what every job pays once (2.8 s here)
    besides its first uses; later warm-ups pay only theirs (0.2 × shipped). Spread over
    every learner's first uses (one ratio, before: 1.2 here) it made a one-learner shard
    short by most of it and a many-learner shard long."""
    from dpbench.orchestration.calibrate import first_use_factor

    interpreter = [(2.8 + 0.2 * 1.0, 1.0)] + [(0.2 * 0.5, 0.5)] * 8
    factor, per_job = first_use_factor([interpreter, interpreter])
    assert factor == pytest.approx(0.2) and per_job == pytest.approx(2.8)
    assert first_use_factor([[(0.3, 1.0)]]) == (1.0, pytest.approx(0.0))  # no later warm-up: shipped factor
