"""Benchmark: the default workflow (config/config.yaml) from scratch — jobs, wall time and
the share of the machine spent outside the experiments' cells.

Runs `snakemake --cores N` (N = 2 unless given) in a fresh temporary directory (its own
results/ and .snakemake/), after a dry run that counts the jobs, then once more to check
that nothing re-runs. Run: python benchmarks/bench_workflow.py [CONFIG] [--cores N]

Definitions (what the numbers printed mean):

- ``wall``: seconds of the `snakemake` run from scratch, DAG building included.
- ``cell work``: the sum over every ``run_shard`` job of the seconds spent inside its
  cells (drawing the target, fitting, scoring, building rows), read from the job logs'
  ``… N rows in X s (cpu Y s)`` lines (dpbench.experiments.base.run_shard).
- ``overhead share`` = 1 − cell work / (N × wall): the fraction of the N cores' wall time
  not spent in cells — Snakemake (DAG, scheduling, script wrappers), interpreter start-up
  and imports of every job, Parquet writes, the summarise jobs (collect, theory checks,
  figures), and cores left idle while the last jobs finish.
  Meaningful on idle cores only: under load, other processes' CPU time counts as overhead.
- ``overhead CPU share`` = 1 − cell CPU / workflow CPU, where workflow CPU is the user +
  system time of Snakemake and every job it ran (getrusage of the children): the same
  question asked of CPU time instead of wall time, so it barely moves with the machine's
  load (it leaves out idle cores). Issue 32's target: ≤ 20 % on the default run
  (:data:`CPU_SHARE_TARGET`; the line says whether it is met).
- ``wall time with no run_shard job running``: wall minus the union of the run_shard jobs'
  intervals — the part of the user's wait that no experiment is running at all (Snakemake
  start-up and DAG build, summarise jobs after the last shard). A laxer reading of
  "time outside run_shard work" than the overhead share, which also counts each shard
  job's start-up and the summarise jobs that overlap other shards.
- ``CPU outside cells``, split by where it goes: the run_shard jobs' CPU besides their cells and
  the summarise job's CPU (the ``job cpu`` line each job logs), and the rest (Snakemake's
  own process: DAG, scheduling, script wrappers).
- per rule: the sum of the jobs' durations from Snakemake's own log (1 s resolution).

The load average before and after is printed: on a shared machine, timings are only
comparable at equal load.

Run it from the environment the README's main command makes (`pip install -e .`). With the
SLURM executor plugin installed (`.[slurm]`, `.[test]`), every `snakemake` start imports it,
and it runs `scontrol show config`: instant without SLURM or with a reachable controller,
~9 s where a slurm.conf names a controller that is down. The benchmark starts `snakemake` as
a local run is started (dpbench.orchestration.local_run: the probe is skipped) and prints
whether the plugin is installed and what the probe would cost here.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

from dpbench.foundation.paths import output_root
from dpbench.orchestration.config import load
from dpbench.orchestration.local_run import snakemake_env

REPO = Path(__file__).resolve().parents[1]
CELL_LINE = re.compile(r": \d+ rows in ([0-9.]+)s \(cpu ([0-9.]+)s\)$", flags=re.M)
STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]$")


def snakemake(workdir: Path, config: Path, cores: int, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--configfile", str(config), "--cores", str(cores), *args]  # fmt: skip
    # started as dpbench.orchestration.local_run starts a local run: without the SLURM plugin's probe
    return subprocess.run(cmd, capture_output=True, text=True, env=snakemake_env(cmd[3:]))


def run_root(workdir: Path, config: Path) -> Path:
    """The run's output directory, as the workflow derives it in ``workdir`` (a config file
    given from outside the working directory names its own folder under results/)."""
    with contextlib.chdir(workdir):
        return workdir / output_root(load(config).output, config)


def cell_seconds(root: Path) -> tuple[float, float]:
    """(wall, CPU) seconds inside cells, summed over every run_shard job log of the run in ``root``."""
    logs = (root / "logs" / "run_shard").rglob("*.log")
    pairs = [(float(w), float(c)) for log in logs for w, c in CELL_LINE.findall(log.read_text())]
    return sum(w for w, _ in pairs), sum(c for _, c in pairs)


#: Issue 32's target for ``overhead CPU share`` on the default run.
CPU_SHARE_TARGET = 0.20

JOB_CPU = re.compile(r"job cpu ([0-9.]+)s")


def job_cpu(root: Path, rule: str) -> tuple[int, float]:
    """(jobs, CPU seconds) of a rule's jobs, from the ``job cpu`` line each job logs (its
    whole process: interpreter start-up, imports, work, writes); jobs without one count 0."""
    logs = sorted((root / "logs" / rule).rglob("*.log"))
    return len(logs), sum(float(c) for log in logs for c in JOB_CPU.findall(log.read_text()))


def rule_seconds(workdir: Path) -> dict[str, tuple[int, float]]:
    """Rule → (jobs, summed job seconds), from the Snakemake log of the run."""
    out: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for rule, began, ended in job_intervals(workdir):
        out[rule][0] += 1
        out[rule][1] += (ended - began).total_seconds()
    return {rule: (int(n), s) for rule, (n, s) in out.items()}


def shard_covered_seconds(workdir: Path) -> float:
    """Seconds during which at least one run_shard job ran (1 s resolution), from the
    Snakemake log."""
    covered, end = 0.0, None
    for _, began, ended in sorted((j for j in job_intervals(workdir) if j[0] == "run_shard"), key=lambda j: j[1]):
        if end is None or ended > end:
            covered += (ended - (began if end is None else max(began, end))).total_seconds()
            end = ended
    return covered


def job_intervals(workdir: Path) -> list[tuple[str, datetime, datetime]]:
    """(rule, start, end) of every job, from the Snakemake log of the run (1 s resolution)."""
    log = sorted((workdir / ".snakemake" / "log").glob("*.log"))[0].read_text().splitlines()
    start: dict[str, tuple[str, datetime]] = {}
    out = []
    stamp = None
    for i, line in enumerate(log):
        if m := STAMP.match(line):
            stamp = datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y")
        elif m := re.match(r"^(?:local)?rule (\w+):$", line):
            jobid = next(re.match(r"\s+jobid: (\d+)", x).group(1) for x in log[i:] if re.match(r"\s+jobid: ", x))
            start[jobid] = (m.group(1), stamp)
        elif m := re.match(r"^Finished jobid: (\d+)", line):
            rule, began = start[m.group(1)]
            out.append((rule, began, stamp))
    return out


def print_timeline(workdir: Path, root: Path) -> None:
    """Every job's start and end (seconds after the first job started) and, for run_shard
    jobs, the seconds inside its cells, in start order."""
    intervals = job_intervals(workdir)
    first = min(began for _, began, _ in intervals)
    shard_logs = sorted((root / "logs" / "run_shard").rglob("*.log"))
    cells = {log: sum(float(w) for w, _ in CELL_LINE.findall(log.read_text())) for log in shard_logs}
    print("timeline (s after the first job; run_shard cells from its log, in file order):")
    print("  " + ", ".join(f"{log.parent.name}/{log.stem} {s:.1f}" for log, s in cells.items()))
    for rule, began, ended in sorted(intervals, key=lambda j: j[1]):
        print(f"  {rule:<28} {(began - first).total_seconds():>6.0f} {(ended - first).total_seconds():>6.0f}")


def slurm_probe() -> str:
    """Whether the SLURM executor plugin is installed, and the seconds of its start-up probe."""
    import importlib.util
    import shutil

    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        return "SLURM executor plugin: not installed (no start-up probe)"
    if shutil.which("scontrol") is None:
        return "SLURM executor plugin: installed, no scontrol (probe fails at once)"
    start = time.perf_counter()
    try:
        subprocess.run(["scontrol", "show", "config"], capture_output=True, timeout=10)
    except subprocess.TimeoutExpired:
        pass
    return (f"SLURM executor plugin: installed; its probe `scontrol show config` takes {time.perf_counter() - start:.1f} s here "
            "(skipped by these local runs: dpbench.orchestration.local_run)")


#: Libraries every job imports: their bytecode cache decides what each job's start-up costs.
JOB_LIBRARIES = ("numpy", "pandas", "pyarrow", "matplotlib", "snakemake")


def bytecode_note() -> str:
    """Whether the libraries every job imports have their compiled bytecode cached
    (``__pycache__/*.pyc`` beside the source, PEP 3147). Without it every job compiles every
    module it imports from source — pandas alone takes seconds of CPU then, not a fraction
    of one — and that start-up is counted outside cells. ``pip install`` compiles at install
    time; ``uv pip install`` does only with ``--compile-bytecode``; otherwise Python caches
    it on the first import, unless ``PYTHONDONTWRITEBYTECODE`` is set."""
    import importlib.util

    missing = []
    for name in JOB_LIBRARIES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            if not Path(importlib.util.cache_from_source(spec.origin)).exists():
                missing.append(name)
    if not missing:
        return f"bytecode: cached for {', '.join(JOB_LIBRARIES)}"
    names = ", ".join(missing)
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return (f"bytecode: NOT cached for {names}, and PYTHONDONTWRITEBYTECODE is set: every job "
                "compiles every module it imports, counted outside cells "
                "(`uv pip install --compile-bytecode`, or pip, caches it)")
    return f"bytecode: not cached yet for {names}: this run's first jobs compile and cache it"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", default=str(REPO / "config" / "config.yaml"))
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--workdir", help="run here (a new directory, kept afterwards) instead of a temporary one")
    parser.add_argument("--timeline", action="store_true", help="also print every job's start, end and cell seconds")
    args = parser.parse_args()
    config = Path(args.config).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(args.workdir).resolve() if args.workdir else Path(tmp)
        if args.workdir:
            workdir.mkdir(parents=True)  # a new directory: fails if it exists, so nothing is mixed in
        bytecode = bytecode_note()  # before the run: its jobs may cache it
        load_before = os.getloadavg()
        start = time.perf_counter()
        dry = snakemake(workdir, config, args.cores, "-n")
        dag_seconds = time.perf_counter() - start
        counts = dict(re.findall(r"^(\w+)\s+(\d+)$", dry.stdout, flags=re.M))
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        run = snakemake(workdir, config, args.cores)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
        if run.returncode != 0:
            print(run.stderr[-3000:])
            raise SystemExit("workflow failed")
        load_after = os.getloadavg()
        root = run_root(workdir, config)
        work, work_cpu = cell_seconds(root)
        if not work:
            raise SystemExit(f"no run_shard cell logs under {root / 'logs' / 'run_shard'}")
        print(f"config: {config}")
        print(f"load average (1, 5, 15 min): before {load_before[0]:.1f} {load_before[1]:.1f} {load_before[2]:.1f}, "
              f"after {load_after[0]:.1f} {load_after[1]:.1f} {load_after[2]:.1f} ({os.cpu_count()} CPUs)")  # fmt: skip
        print(slurm_probe())
        print(bytecode)
        print(f"jobs: {counts.get('total')} ({', '.join(f'{k} {v}' for k, v in counts.items() if k != 'total')})")
        print(f"dry run (DAG build): {dag_seconds:.1f} s")
        print(f"wall time, from scratch, {args.cores} cores: {wall:.1f} s")
        print(f"cell work (inside run_shard cells): {work:.1f} s wall, {work_cpu:.1f} s CPU")
        print(f"overhead share = 1 - cell work / ({args.cores} x wall) = {1 - work / (args.cores * wall):.0%}")
        share = 1 - work_cpu / cpu
        print(f"workflow CPU (snakemake and every job): {cpu:.1f} s; "
              f"overhead CPU share = 1 - cell CPU / workflow CPU = {share:.1%} "
              f"(target <= {CPU_SHARE_TARGET:.0%}: {'met' if share <= CPU_SHARE_TARGET else 'NOT met'})")  # fmt: skip
        shard_jobs, shard_cpu = job_cpu(root, "run_shard")
        summarise_jobs, summarise_cpu = job_cpu(root, "summarise")
        rest = cpu - shard_cpu - summarise_cpu
        print(f"CPU outside cells, {cpu - work_cpu:.1f} s: run_shard jobs outside their cells (start-up, imports, "
              f"Parquet) {shard_cpu - work_cpu:.1f} s over {shard_jobs} jobs; summarise {summarise_cpu:.1f} s "
              f"({summarise_jobs} job); Snakemake itself and the rest {rest:.1f} s")  # fmt: skip
        free = wall - shard_covered_seconds(workdir)
        print(f"wall time with no run_shard job running: {free:.0f} s of {wall:.0f} s = {free / wall:.0%} "
              "(Snakemake start-up and DAG build, then summarise jobs after the last shard)")  # fmt: skip
        grouped: dict[str, tuple[int, float]] = defaultdict(lambda: (0, 0.0))
        for rule, (n, seconds) in rule_seconds(workdir).items():
            key = rule
            grouped[key] = (grouped[key][0] + n, grouped[key][1] + seconds)
        for rule, (n, seconds) in sorted(grouped.items(), key=lambda kv: -kv[1][1]):
            print(f"  {rule:<14} {n:>3} jobs {seconds:>7.0f} s")
        if args.timeline:
            print_timeline(workdir, root)
        start = time.perf_counter()
        again = snakemake(workdir, config, args.cores)
        print(f"re-run (nothing to do): {time.perf_counter() - start:.1f} s, "
              f"{'nothing to be done' if 'Nothing to be done' in again.stdout + again.stderr else 'JOBS RAN AGAIN'}")


if __name__ == "__main__":
    main()
