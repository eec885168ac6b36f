"""Benchmark (run by hand): plan and DAG of a 100× paper grid (issue 22).

    python benchmarks/bench_scale.py [--factor 100] [--skip-dag]

The 100× grid is config/paper.yaml with every ε list replaced by ``factor`` copies
``ε·(1 + j/1000)``, j = 0 … factor−1 (ε = ∞ stays one value): the same problems, sizes and
learners, ``factor`` times the cells, so experiments get thousands of shards (well past the
three-digit shard names). Prints:

1. plan: ``dpbench.orchestration.config.load`` + every experiment's shards and costs + ``make_plan`` (what
   ``dpbench plan`` does), in process; target ≤ 15 s on 2 cores;
2. DAG: ``snakemake -n`` of that config in a scratch directory (a fresh interpreter: its
   imports included), started as ``python -m dpbench.orchestration.local_run`` starts a
   local run (without the SLURM plugin's ``scontrol`` probe); target ≤ 15 s wall on an idle
   machine (issue 32, item 4), CPU s printed beside it for a loaded one;

each beside the same for config/paper.yaml itself, timed in the same run. It says whether
the interpreter finds compiled bytecode for Snakemake and dpbench: an environment installed
without it (``uv pip install`` compiles none) and run with ``PYTHONDONTWRITEBYTECODE=1``
compiles every module it imports at every start, ~8 s more of the DAG's CPU here
(``python -m compileall -q .venv/lib dpbench`` once removes it).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


def widen(node, factor: int):
    """Every ``epsilon`` list (or value) of the config replaced by ``factor`` nearby copies."""
    if isinstance(node, dict):
        return {k: (_copies(v, factor) if k == "epsilon" else widen(v, factor)) for k, v in node.items()}
    if isinstance(node, list):
        return [widen(v, factor) for v in node]
    return node


def _copies(eps, factor: int):
    values = eps if isinstance(eps, list) else [eps]
    out = []
    for e in values:
        e = float(e)
        out += [e] if math.isinf(e) else [round(e * (1 + j / 1000), 9) for j in range(factor)]
    return out


def plan_seconds(path: Path):
    """(wall s, CPU s, plan)."""
    from dpbench.orchestration.config import load
    from dpbench.orchestration.plan import make_plan

    start, cpu = time.perf_counter(), time.process_time()
    plan = make_plan(load(path))
    return time.perf_counter() - start, time.process_time() - cpu, plan


def dag_seconds(path: Path) -> tuple[float, float, int]:
    """(wall s, CPU s of the snakemake process, run_shard jobs in the DAG)."""
    from dpbench.orchestration.local_run import snakemake_env

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory(prefix="bench_scale_") as workdir:
        cmd = [sys.executable, "-m", "snakemake", "-n", "--snakefile", str(REPO / "Snakefile"), "--directory", workdir,
               "--configfile", str(path), "--cores", "2", "--quiet", "rules"]  # fmt: skip
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, env=snakemake_env(cmd[3:]))
        seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"dry run of {path} failed:\n{done.stderr[-3000:]}")
    shards = re.search(r"^run_shard\s+(\d+)$", done.stdout + done.stderr, flags=re.M)
    return seconds, cpu, int(shards.group(1)) if shards else -1


def bytecode() -> str:
    """Whether Snakemake's and dpbench's modules have compiled bytecode beside them."""
    import importlib.util

    names = ("snakemake.workflow", "dpbench.orchestration.grid")
    sources = {n: importlib.util.find_spec(n).origin for n in names}
    missing = [n for n in names if not Path(importlib.util.cache_from_source(sources[n])).is_file()]
    if not missing:
        return "compiled bytecode found"
    return f"no compiled bytecode for {', '.join(missing)}: every start compiles them"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--factor", type=int, default=100)
    parser.add_argument("--skip-dag", action="store_true")
    args = parser.parse_args()
    paper = REPO / "config" / "paper.yaml"
    with tempfile.TemporaryDirectory(prefix="bench_scale_cfg_") as tmp:
        big = Path(tmp) / f"paper_x{args.factor}.yaml"
        big.write_text(yaml.safe_dump(widen(yaml.safe_load(paper.read_text()), args.factor)))
        import dpbench.orchestration.config  # noqa: F401  (imports outside the timings)

        rows = []
        for name, path in (("paper.yaml", paper), (f"paper x{args.factor}", big)):
            wall, cpu, plan = plan_seconds(path)
            dag = (math.nan, math.nan) if args.skip_dag else dag_seconds(path)
            if not args.skip_dag:
                assert dag[2] == plan.shard_jobs, f"{name}: DAG has {dag[2]} run_shard jobs, plan {plan.shard_jobs}"
            rows.append((name, plan, wall, cpu, dag[0], dag[1]))
        print(f"{'grid':<14} {'cells':>8} {'shards':>7} {'widest experiment':>26} {'plan s (CPU s)':>16} {'DAG s (CPU s)':>16}")
        for name, plan, wall, cpu, dag_wall, dag_cpu in rows:
            wide = max(plan.experiments, key=lambda e: e.shards)
            print(f"{name:<14} {sum(e.cells for e in plan.experiments):>8} {plan.shard_jobs:>7} {wide.id + ' (' + str(wide.shards) + ')':>26}"
                  f" {wall:>7.1f} ({cpu:>5.1f}) {dag_wall:>8.1f} ({dag_cpu:>5.1f})")  # fmt: skip
        _, plan, wall, cpu, dag_wall, dag_cpu = rows[1]
        print(f"{args.factor}x grid: plan {wall:.1f} s wall, {cpu:.1f} s CPU (target <= 15 s); DAG {dag_wall:.1f} s wall, "
              f"{dag_cpu:.1f} s CPU (target <= 15 s wall, idle); "
              f"load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
              f"(wall times on a busy machine exceed the CPU times); {bytecode()}")  # fmt: skip

if __name__ == "__main__":
    main()
