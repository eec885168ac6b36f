"""``dpbench calibrate``: this machine's cost constants, measured in a couple of minutes.

The shipped cost table (:data:`dpbench.orchestration.cost_table.COST_TABLE` and the shared and
per-job constants of :mod:`dpbench.orchestration.cost`) was measured on one machine
(:data:`dpbench.orchestration.cost_table.SHIPPED_MACHINE`); another CPU runs the same cells
faster or slower, learner by learner (a vector kernel gains more from AVX-512 than a Python
loop does). Calibration runs *probe cells* of a config (by default the default grid) the way
a shard job runs them and compares their process CPU time with the shipped prediction:

- per learner (or audit experiment) ``L``, its probe cells are drawn with probability
  proportional to their shipped prediction (:func:`choose_probes`; a cell too large for its
  share of the budget is cut to a range of its repetitions, as the shard splitter cuts it); they run, after one *warm-up* cell (the cheapest: it pays the
  learner's imports and first use), in fresh interpreters with one BLAS
  thread (:func:`dpbench.experiments.base.run_shard`, rows written to a scratch file; the
  experiments split between ``jobs`` interpreters).
  ``factor[L] = Σ measured CPU / Σ predicted seconds`` of the probe cells (own and shared work);
- the per-job imports and first uses get one factor: the warm-up cells' CPU beyond
  ``factor[L]`` × their cells' prediction, over the shipped imports and first uses they
  were predicted to pay (those not already paid earlier in the same interpreter), the first
  warm-up of each interpreter aside;
- the runner's start-up is the interpreter's CPU once the runner is imported (the median
  over the probe interpreters), plus Snakemake's script preamble, plus what the first shard
  run of an interpreter pays once whatever its cells (the first warm-up's CPU beyond its
  cell and its first uses, as the factors above predict them: the first Parquet write, the
  code fingerprint of the shared modules).

The result (:class:`dpbench.orchestration.cost_table.Calibration`, JSON) is written to
:func:`dpbench.orchestration.cost_table.calibration_path`, which ``dpbench plan`` and the
workflow read; it records the machine, the date and the dpbench version and the shipped table
it is relative to (a file made with another version or table is refused as stale).
"""

from __future__ import annotations

import datetime
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from dpbench.foundation import registry
from dpbench.foundation.cell import Cell, cells_from_json, cells_to_json
from dpbench.orchestration import cost, cost_table
from dpbench.orchestration.config import Grid

#: Snakemake's script preamble in a shard job (CPU s, measured with
#: :data:`dpbench.orchestration.cost.JOB_OVERHEAD_SECONDS`): not in a probe interpreter.
SCRIPT_PREAMBLE_SECONDS = 0.3

#: at most this many probe cells per learner (the largest that fit its budget)
PROBES_PER_LEARNER = 6

#: a learner whose probe cells are predicted shorter than this (CPU s) keeps the shipped constants
MIN_PROBE_SECONDS = 0.25

#: factors outside these bounds are clamped (a probe too short to time is noise)
FACTOR_BOUNDS = (0.05, 20.0)

_CHILD = "import sys; from dpbench.orchestration.calibrate import probe_main; probe_main(sys.argv[1], sys.argv[2])"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def probe_main(spec_path: str, out_dir: str) -> None:
    """In a fresh interpreter: run each probe of ``spec_path`` (JSON: the root seed and, per
    learner, a warm-up cell and the probe cells) and print the process CPU seconds of the
    start-up and of each run as one JSON line."""
    from dpbench.experiments.base import run_shard  # the runner a shard job imports

    startup = _cpu()
    spec = json.loads(Path(spec_path).read_text())
    runs = []
    for probe in spec["probes"]:
        timed = []
        for which in ("warm", "cells"):
            start = _cpu()
            run_shard(cells_from_json(probe[which]), root_seed=spec["seed"], out=Path(out_dir) / "probe.parquet")
            timed.append(_cpu() - start)
        runs.append({"name": probe["name"], "warm": timed[0], "cells": timed[1]})
    print(json.dumps({"startup": startup, "runs": runs}))


def cost_name(cell: Cell) -> str:
    """The name a cell's cost factor is keyed by: its learner, or its experiment for an
    audit (cells without a learner's cost model, :func:`dpbench.orchestration.cost.cell_cost`)."""
    return cell.experiment if registry.experiment(cell.experiment).units is not None else cell.learner


def _weight(c: cost.CellCost) -> float:
    return cost.cost_seconds([c], jobs=False)


def choose_probes(cells: Sequence[Cell], budget: float) -> tuple[Cell, list[Cell]]:
    """(warm-up cell, probe cells) of one learner's ``cells`` (one experiment's): the cheapest
    cell, and :data:`PROBES_PER_LEARNER` cells drawn systematically with probability
    proportional to their shipped prediction (the cells at the midpoints of equal slices of
    the cumulative predicted seconds), so the probes weigh small and large cells as the
    grid's shards do; a probe above its share of ``budget`` is cut to fewer repetitions."""
    costs = {cell: _weight(cost.cell_cost(cell)) for cell in cells}
    ordered = sorted(cells, key=lambda c: (costs[c], c.key_string()))
    warm, rest = ordered[0], ordered[1:] or ordered
    total = sum(costs[c] for c in rest)
    k = min(PROBES_PER_LEARNER, len(rest))
    marks, chosen, acc, j = [(i + 0.5) * total / k for i in range(k)], [], 0.0, 0
    for cell in rest:
        acc += costs[cell]
        if j < k and acc >= marks[j]:
            chosen.append(cell)
            while j < k and acc >= marks[j]:
                j += 1
    share = budget / max(1, len(chosen))
    # a cell whose one repetition is too long for its share gives way to the largest cell not
    # chosen whose repetition fits (an audit's cells are one repetition each: the cheapest
    # alone is mostly per-cell overhead and mis-states the factor of the large ones)
    fitting = [c for c in reversed(rest) if costs[c] <= 2 * share * c.repetitions and c not in chosen]
    out, spent = [], 0.0
    for cell in chosen:
        if costs[cell] > 2 * share * cell.repetitions:
            if not fitting or spent >= budget:
                continue
            cell = fitting.pop(0)
        per_rep = costs[cell] / cell.repetitions
        reps = min(cell.repetitions, max(1, int(share / per_rep))) if per_rep > 0 else cell.repetitions
        out.append(cell if reps == cell.repetitions else cell.piece(cell.first_rep, reps))
        spent += per_rep * reps
    return warm, out or [rest[0].piece(rest[0].first_rep, 1)]  # else one repetition of the cheapest


def budget_shares(groups: Mapping[tuple[str, str], Sequence[Cell]], budget: float) -> dict[tuple[str, str], float]:
    """Each group's (learner's cells of one experiment) share of ``budget``: half of it equally,
    half in proportion to the group's shipped prediction, so the groups that hold most of a
    run's CPU (an audit's indivisible cells of tens of seconds) are probed on cells like
    theirs, and every group on some."""
    weights = {key: sum(_weight(cost.cell_cost(c)) for c in cells) for key, cells in groups.items()}
    total = sum(weights.values()) or 1.0
    return {key: budget / 2 / len(groups) + budget / 2 * weights[key] / total for key in groups}


def _machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    return f"{cost.machine_id()}, load {load:.1f} at calibration"


def _run_child(spec: dict, jobs_env: Mapping[str, str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="dpbench_calibrate_") as tmp:
        path = Path(tmp) / "spec.json"
        path.write_text(json.dumps(spec))
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(path), tmp], capture_output=True, text=True, env=jobs_env
        )
    if done.returncode != 0:
        raise RuntimeError(f"calibration probe failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def first_use_factor(warmups: Sequence[Sequence[tuple[float, float]]]) -> tuple[float, float]:
    """(factor of the shipped imports and first uses, CPU s every job pays once) from the
    warm-up cells of each probe interpreter, in order: per warm-up, its CPU beyond its
    cell's calibrated prediction and the shipped imports and first uses it was the first of
    its interpreter to pay. The first warm-up of an interpreter also pays what a job pays
    once whatever its learners (the first Parquet write, the code fingerprint of the shared
    modules), which the shipped first uses of every learner hold a share of: the factor is
    the later warm-ups' ``Σ beyond / Σ shipped`` (clamped to [0.2, 5]; 1 if they were
    predicted less than 0.5 s), and the per-job CPU the median over interpreters of the
    first warm-up's ``beyond − factor × shipped`` (at least 0)."""
    later = [w for runs in warmups for w in runs[1:]]
    shipped = sum(s for _, s in later)
    factor = _clamp(sum(b for b, _ in later) / shipped, 0.2, 5.0) if shipped > 0.5 else 1.0
    firsts = [max(0.0, runs[0][0] - factor * runs[0][1]) for runs in warmups if runs]
    return factor, statistics.median(firsts) if firsts else 0.0


def _clamp(x: float, lo: float, hi: float) -> float:
    return min(max(x, lo), hi)


def calibrate(
    grid: Grid, budget: float, *, jobs: int = 2, log: Callable[[str], None] = print
) -> cost_table.Calibration:
    """Measure this machine's factors on probe cells of ``grid`` (``budget``: predicted CPU
    seconds of probe cells in all, shared equally by the learners) and return them."""
    saved = os.environ.get(cost_table.CALIBRATION_ENV)
    os.environ[cost_table.CALIBRATION_ENV] = "shipped"  # predictions relative to the shipped table
    _reset()
    try:
        by_name: dict[str, dict[str, list[Cell]]] = defaultdict(lambda: defaultdict(list))
        for exp_id, plan in grid.experiments.items():
            for cell in plan.cells:
                by_name[cost_name(cell)][exp_id].append(cell)
        groups_of = {(name, exp_id): cells for name, per_exp in by_name.items() for exp_id, cells in per_exp.items()}
        shares = budget_shares(groups_of, budget)
        specs: dict[str, list[dict]] = defaultdict(list)
        predicted: dict[tuple[str, str], tuple[float, float, dict]] = {}
        for name, per_exp in sorted(by_name.items()):
            for exp_id, cells in sorted(per_exp.items()):
                warm, probes = choose_probes(cells, shares[name, exp_id])
                warm_cost = cost.cell_cost(warm)
                predicted[exp_id, name] = (cost.shard_seconds(probes, jobs=False), _weight(warm_cost), warm_cost.shared)
                specs[exp_id].append({"name": name, "warm": cells_to_json([warm]), "cells": cells_to_json(probes)})
        env = {**os.environ, **{v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}}
        # one interpreter per group of experiments (``jobs`` groups of about equal prediction)
        groups: list[list[dict]] = [[] for _ in range(max(1, min(jobs, len(specs))))]
        loads = [0.0] * len(groups)
        for exp_id in sorted(specs, key=lambda e: -sum(predicted[e, p["name"]][0] for p in specs[e])):
            i = loads.index(min(loads))
            groups[i] += [{**p, "exp": exp_id} for p in specs[exp_id]]
            loads[i] += sum(predicted[exp_id, p["name"]][0] for p in specs[exp_id])
        with ThreadPoolExecutor(len(groups)) as pool:
            results = list(pool.map(lambda g: _run_child({"seed": grid.seed, "probes": g}, env), groups))
        measured, shipped_cells = defaultdict(float), defaultdict(float)
        for group, result in zip(groups, results):
            for probe, run in zip(group, result["runs"]):
                measured[run["name"]] += run["cells"]
                shipped_cells[run["name"]] += predicted[probe["exp"], run["name"]][0]
        # a probe predicted too short to time keeps the shipped constants
        factors = {
            name: _clamp(measured[name] / shipped_cells[name], *FACTOR_BOUNDS)
            if shipped_cells[name] >= MIN_PROBE_SECONDS
            else 1.0
            for name in measured
        }
        warmups = []
        for group, result in zip(groups, results):
            seen: set[tuple] = set()
            warmups.append([])
            for probe, run in zip(group, result["runs"]):
                _, warm_seconds, warm_shared = predicted[probe["exp"], run["name"]]
                new = {
                    k: v
                    for k, v in warm_shared.items()
                    if k[0] == "job" and k[1] in cost.ONCE_PER_JOB and k not in seen
                }
                seen |= set(new)
                warmups[-1].append((run["warm"] - factors[run["name"]] * warm_seconds, sum(new.values())))
        first_use, per_job = first_use_factor(warmups)
        startup = statistics.median(r["startup"] for r in results) + SCRIPT_PREAMBLE_SECONDS + per_job
        for name in sorted(factors):
            log(
                f"  {name:<26} measured {measured[name]:7.2f} s CPU, "
                f"shipped prediction {shipped_cells[name]:7.2f} s: factor {factors[name]:.2f}"
            )
        log(
            f"  imports and first uses: factor {first_use:.2f}; "
            f"job start-up {startup:.2f} s (shipped {cost.JOB_OVERHEAD_SECONDS:.2f} s)"
        )
        from dpbench import __version__

        coefficients = {
            name: {k: v * factors[name] if k not in NOT_SECONDS else v for k, v in model.coefficients.items()}
            for name, model in cost_table.COST_TABLE.items()
            if name in factors
        }
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        return cost_table.Calibration(
            "", _machine(), now, __version__, cost.table_digest(), startup, first_use, factors, coefficients
        )
    finally:
        if saved is None:
            os.environ.pop(cost_table.CALIBRATION_ENV, None)
        else:
            os.environ[cost_table.CALIBRATION_ENV] = saved
        _reset()


#: coefficients that are not seconds (left as they are in the recorded coefficients)
NOT_SECONDS = frozenset({"calibration_epsilon_from"})


def _reset() -> None:
    """Forget the calibration read so far (the next prediction reads the file again)."""
    cost.calibration.cache_clear()
    cost.job_costs.cache_clear()


def write(calibration: cost_table.Calibration, path: Path) -> Path:
    """Write ``calibration`` to ``path`` (atomically) and return it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(calibration.to_json())
    os.replace(tmp, path)
    _reset()
    return path


def run(grid: Grid, budget: float, path: Path, *, jobs: int = 2) -> Path:
    """``dpbench calibrate``: measure, write, report the wall time."""
    start = time.perf_counter()
    print(
        f"calibrating the cost model on probe cells ({budget:.0f} s of shipped prediction, {jobs} at a time) ...",
        flush=True,
    )
    written = write(calibrate(grid, budget, jobs=jobs, log=lambda line: print(line, flush=True)), path)
    print(
        f"wrote {written} in {time.perf_counter() - start:.0f} s wall; `dpbench plan` and the workflow read it "
        f"(set {cost_table.CALIBRATION_ENV}=shipped to use the shipped table)"
    )
    return written
