"""Benchmark (run by hand): the cost model against the clock, per shard (issue 22).

    python benchmarks/bench_cost.py [CONFIG] [--sample K] [--seed S] [--max-predicted SECONDS]
                                    [--shards EXPERIMENT:INDEX,...]
    python benchmarks/bench_cost.py CONFIG --run RUN_DIR

Runs shards of CONFIG (default config/config.yaml; all its shards, or a random sample of K
— e.g. ``config/paper.yaml --sample 8``), each as the workflow runs it: a fresh
interpreter with one BLAS thread running :func:`dpbench.experiments.base.run_shard` on the
shard's cells (or the shards named by ``--shards``, e.g. ``private_erm:28,linear_loss:0``).
Prints per shard the predicted seconds (the plan's cells, their per-job first-use costs
included, plus the runner's start-up :data:`dpbench.orchestration.cost.JOB_OVERHEAD_SECONDS`) against the measured CPU seconds of
that process (user + system: less sensitive than wall time to other load on the
machine), their ratio, and how many shards are within 2× (the target).

``--run RUN_DIR`` runs nothing: it reads the measured CPU of every shard of a finished
workflow run of CONFIG (the ``job cpu`` line each run_shard job logs: the whole job process,
start-up included) and compares it with the same prediction — every shard of a real run,
e.g. the published paper run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

RUNNER = """
import json, sys
from dpbench.experiments.base import run_shard
from dpbench.foundation.cell import cells_from_json
run_shard(cells_from_json(open(sys.argv[1]).read()), root_seed=int(sys.argv[2]), out=sys.argv[3])
"""


def run_one(cells_json: str, seed: int, workdir: Path) -> tuple[float, float]:
    """(wall s, CPU s) of one shard job in a fresh interpreter."""
    cells = workdir / "cells.json"
    cells.write_text(cells_json)
    env = {**os.environ, **{v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", RUNNER, str(cells), str(seed), str(workdir / "out.parquet")], check=True, env=env, cwd=REPO)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def run_cpu(run_dir: Path, experiment: str, shard: int, count: int, cells) -> float | str:
    """The ``job cpu`` seconds a run_shard job of a finished run logged, or why it cannot be
    compared: no log line, or the run's shard holds other cells than this tree's plan puts
    there (a cost-model change moves cells between shards)."""
    import pandas as pd

    from dpbench.foundation.paths import RunPaths, shard_id
    from dpbench.reporting.publish import logged_job_cpu

    paths = RunPaths(str(run_dir))
    cpu = logged_job_cpu(Path(paths.shard_log(experiment, shard_id(shard, count))))
    parquet = Path(paths.shard(experiment, shard_id(shard, count)))
    if cpu is None or not parquet.exists():
        return "no 'job cpu' line or no Parquet in the run"
    if set(pd.read_parquet(parquet, columns=["cell_key"])["cell_key"]) != {c.key_string() for c in cells}:
        return "the run's shard holds other cells than this tree's plan (made with another cost model?)"
    return cpu


def main() -> None:
    from dpbench.foundation.cell import cells_to_json
    from dpbench.orchestration.config import load
    from dpbench.orchestration.cost import job_overhead_seconds, table_in_use

    parser = argparse.ArgumentParser()
    parser.add_argument("config", nargs="?", default=str(REPO / "config" / "config.yaml"))
    parser.add_argument("--sample", type=int, help="run this many shards, drawn at random (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample")
    parser.add_argument("--max-predicted", type=float, default=float("inf"), help="draw only shards predicted below this many seconds")
    parser.add_argument("--shards", help="comma-separated EXPERIMENT:INDEX: run just these shards")
    parser.add_argument("--run", type=Path, help="a finished run of CONFIG: compare with its logged CPU, run nothing")
    args = parser.parse_args()
    grid = load(args.config)
    JOB_OVERHEAD_SECONDS = job_overhead_seconds()
    print(table_in_use())
    shards = [(exp, i, s, seconds) for exp, plan in grid.experiments.items() for i, (s, seconds) in enumerate(zip(plan.shards(), plan.shard_seconds()))]
    shards = [x for x in shards if x[3] + JOB_OVERHEAD_SECONDS <= args.max_predicted]
    if args.shards:
        wanted = {(e, int(i)) for e, i in (x.rsplit(":", 1) for x in args.shards.split(","))}
        shards = [x for x in shards if (x[0], x[1]) in wanted]
    if args.sample is not None and args.sample < len(shards):
        shards = sorted(random.Random(args.seed).sample(shards, args.sample), key=lambda x: (x[0], x[1]))
    print(f"{args.config}: {len(shards)} shards; predicted = cells + {JOB_OVERHEAD_SECONDS:.1f} s start-up; measured = CPU s of the job")
    print(f"{'experiment':<18} {'shard':>5} {'cells':>5} {'predicted s':>11} {'measured s':>10} {'wall s':>7} {'pred/meas':>9}")
    ratios = []
    counts = {exp: len(plan.shards()) for exp, plan in grid.experiments.items()}
    with tempfile.TemporaryDirectory(prefix="bench_cost_") as tmp:
        for exp, i, cells, seconds in shards:
            if args.run is not None:
                cpu, wall = run_cpu(args.run, exp, i, counts[exp], cells), float("nan")
                if isinstance(cpu, str):
                    print(f"{exp:<18} {i:>5}: not compared: {cpu}")
                    continue
            else:
                wall, cpu = run_one(cells_to_json(cells), grid.seed, Path(tmp))
            predicted = seconds + JOB_OVERHEAD_SECONDS
            ratios.append(predicted / cpu)
            print(f"{exp:<18} {i:>5} {len(cells):>5} {predicted:>11.1f} {cpu:>10.1f} {wall:>7.1f} {predicted / cpu:>9.2f}", flush=True)
    if not ratios:
        print("no shard compared")
        return
    within = sum(0.5 <= r <= 2.0 for r in ratios)
    within15 = sum(1 / 1.5 <= r <= 1.5 for r in ratios)
    worst = max(ratios, key=lambda r: max(r, 1 / r))
    print(f"within 1.5x: {within15}, within 2x: {within} of {len(ratios)} shards;"
          f" predicted/measured from {min(ratios):.2f} to {max(ratios):.2f} (worst {worst:.2f})")
    summary = {"within_1_5x": within15, "within_2x": within, "shards": len(ratios)}
    print(json.dumps({**summary, "min_ratio": min(ratios), "max_ratio": max(ratios), "worst_ratio": worst}))


if __name__ == "__main__":
    main()
