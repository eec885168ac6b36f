"""Benchmark: planning and DAG build time of the paper grid; the cost model against the clock.

    python benchmarks/bench_plan.py [--skip-dag]

1. ``dpbench plan`` of config/paper.yaml: expand + shard + cost (in process, imports
   excluded), beside the quick config/config.yaml as the baseline.
2. ``snakemake -n --configfile config/paper.yaml``: the DAG build a cluster submission
   pays before its first job (issue 7: must be well under a minute), beside the same dry
   run of config/config.yaml.
3. Calibration: a slice of the quick conjunctions grid run in process, per learner the
   predicted seconds (dpbench.orchestration.cost) against the measured ones.
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


def plan_seconds(path: Path) -> tuple[float, object]:
    from dpbench.orchestration.config import load
    from dpbench.orchestration.plan import make_plan

    start = time.perf_counter()
    plan = make_plan(load(path))
    return time.perf_counter() - start, plan


def dry_run(path: Path) -> tuple[float, int]:
    with tempfile.TemporaryDirectory(prefix="bench_plan_") as workdir:
        cmd = [sys.executable, "-m", "snakemake", "-n", "--snakefile", str(REPO / "Snakefile"), "--directory", workdir,
               "--configfile", str(path), "--cores", "1", "--quiet", "rules"]  # fmt: skip
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True)
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"dry run of {path} failed:\n{done.stderr[-2000:]}")
    total = re.search(r"^total\s+(\d+)$", done.stdout + done.stderr, flags=re.M)
    return seconds, int(total.group(1)) if total else -1


def calibration() -> None:
    from dpbench.experiments.base import draw_target, run_batch_cell
    from dpbench.orchestration.config import from_dict
    from dpbench.orchestration.cost import cell_cost
    from dpbench.orchestration.grid import sort_cells

    block = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["experiments"]["conjunctions"]
    block = {**block, "epsilon": [0.1, 1.0], "n": [256, 4096, 32768], "repetitions": 5}
    block.pop("shard_minutes", None)
    seed = 1
    cells = from_dict({"seed": seed, "experiments": {"conjunctions": block}}).experiments["conjunctions"].cells
    target = draw_target(cells[0], seed)
    predicted, measured = collections.defaultdict(float), collections.defaultdict(float)

    for cell in sort_cells(cells):  # shard order: shared work lands on the first learner
        start = time.perf_counter()
        run_batch_cell(cell, target, seed)
        measured[cell.learner] += time.perf_counter() - start
        cost = cell_cost(cell)
        predicted[cell.learner] += cost.own
    shared = {}
    for cell in cells:
        shared.update(cell_cost(cell).shared)
    print("\n3. cost model vs clock (quick conjunctions slice, 5 reps, n = 256, 4096, 32768)")
    print(f"   {'learner':<26} {'predicted own s':>16} {'measured s':>11}")
    for learner in sorted(measured):
        print(f"   {learner:<26} {predicted[learner]:>16.3f} {measured[learner]:>11.3f}")
    total_pred = sum(predicted.values()) + sum(shared.values())
    total_meas = sum(measured.values())
    print(f"   {'shared work (predicted)':<26} {sum(shared.values()):>16.3f}")
    print(f"   {'total':<26} {total_pred:>16.3f} {total_meas:>11.3f}   ratio measured/predicted = {total_meas / total_pred:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-dag", action="store_true", help="skip the snakemake dry runs")
    args = parser.parse_args()

    from dpbench.foundation import registry

    start = time.perf_counter()
    registry.load_all()
    print(f"registry import (every problem/learner/experiment module): {time.perf_counter() - start:.1f} s")

    quick_s, quick = plan_seconds(REPO / "config" / "config.yaml")
    paper_s, paper = plan_seconds(REPO / "config" / "paper.yaml")
    print("\n1. dpbench plan (in process, after imports)")
    print(f"   config/config.yaml (baseline): {quick_s:6.2f} s  {quick.shard_jobs:5d} shard jobs  {quick.jobs:5d} jobs  {quick.cpu_hours:8.2f} CPU-h")
    print(f"   config/paper.yaml:             {paper_s:6.2f} s  {paper.shard_jobs:5d} shard jobs  {paper.jobs:5d} jobs  {paper.cpu_hours:8.2f} CPU-h")
    print("   experiments in paper.yaml: " + ", ".join(f"{e.id} ({e.shards} shards)" for e in paper.experiments))

    if not args.skip_dag:
        print("\n2. snakemake -n (DAG build, a fresh interpreter each)")
        for name in ("config.yaml", "paper.yaml"):
            seconds, jobs = dry_run(REPO / "config" / name)
            print(f"   config/{name:<12} {seconds:6.1f} s   {jobs} jobs in the DAG")

    calibration()


if __name__ == "__main__":
    main()
