"""``dpbench plan CONFIG``: what a config will cost, before anything is submitted.

For every experiment: cells, shards (= ``run_shard`` jobs), all workflow jobs, predicted
CPU-hours and the largest shard — from the same :func:`dpbench.orchestration.config.from_dict` and
:func:`dpbench.orchestration.grid.shard` the Snakefile uses, and the cost model :mod:`dpbench.orchestration.cost`.
Nothing here imports Snakemake, so the plan of a cluster-sized grid prints in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from dpbench.orchestration.config import Grid
from dpbench.orchestration.cost import job_overhead_seconds, shard_memory_mb, table_in_use
from dpbench.orchestration.grid import gc_paused


@dataclass(frozen=True)
class ExperimentCost:
    """The plan of one experiment (seconds are predicted CPU-seconds)."""

    id: str
    cells: int
    repetitions: int  # total over cells
    shards: int
    cell_seconds: float  # work inside the cells
    shard_seconds: tuple[float, ...]  # per shard, cells only
    largest_shard_cells: int
    largest_shard_memory_mb: float
    target_seconds: float | None

    @property
    def cpu_hours(self) -> float:
        """Cells plus the per-job start-up overhead of every shard."""
        return (self.cell_seconds + job_overhead_seconds() * self.shards) / 3600.0

    @property
    def largest_shard_seconds(self) -> float:
        return max(self.shard_seconds, default=0.0)


@dataclass(frozen=True)
class Plan:
    experiments: tuple[ExperimentCost, ...]

    @property
    def shard_jobs(self) -> int:
        return sum(e.shards for e in self.experiments)

    @property
    def jobs(self) -> int:
        """Every job of the DAG: the shards, the one ``summarise`` job (every experiment's
        collection, theory check and figures, the tables and the report's pages) and `all`."""
        return self.shard_jobs + 2

    @property
    def cpu_hours(self) -> float:
        return sum(e.cpu_hours for e in self.experiments)


@gc_paused()
def make_plan(grid: Grid) -> Plan:
    """The plan of a validated grid (:func:`dpbench.orchestration.config.load`)."""
    experiments = []
    for exp_id, plan in grid.experiments.items():
        shards = plan.shards()
        seconds = tuple(plan.shard_seconds())
        largest = max(range(len(shards)), key=seconds.__getitem__)
        experiments.append(
            ExperimentCost(
                id=exp_id,
                cells=len(plan.cells),
                repetitions=sum(c.repetitions for c in plan.cells),
                shards=len(shards),
                cell_seconds=sum(seconds),
                shard_seconds=seconds,
                largest_shard_cells=len(shards[largest]),
                largest_shard_memory_mb=max(shard_memory_mb(s) for s in shards),
                target_seconds=plan.target_seconds,
            )
        )
    return Plan(experiments=tuple(experiments))


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def format_plan(plan: Plan, source: str = "") -> str:
    """A fixed-width table, one line per experiment, and the totals."""
    head = f"{'experiment':<20} {'cells':>7} {'reps':>9} {'shards':>6} {'target':>9} {'CPU-h':>8} {'largest shard':>28} {'mem':>8}"
    lines = [f"plan of {source}" if source else "plan", head, "-" * len(head)]
    for e in plan.experiments:
        target = _duration(e.target_seconds) if e.target_seconds else "fixed"
        largest = f"{_duration(e.largest_shard_seconds)} ({e.largest_shard_cells} cells)"
        lines.append(
            f"{e.id:<20} {e.cells:>7} {e.repetitions:>9} {e.shards:>6} {target:>9} {e.cpu_hours:>8.2f} {largest:>28} {e.largest_shard_memory_mb:>5.0f} MB"
        )
    lines.append("-" * len(head))
    cells = sum(e.cells for e in plan.experiments)
    reps = sum(e.repetitions for e in plan.experiments)
    lines.append(f"{'total':<20} {cells:>7} {reps:>9} {plan.shard_jobs:>6} {'':>9} {plan.cpu_hours:>8.2f}")
    lines.append(
        f"jobs: {plan.jobs} in the DAG = {plan.shard_jobs} run_shard (submitted to the cluster) "
        "+ summarise (collection, theory checks, figures, tables, report pages) + all (local rules)"
    )
    lines.append(
        f"CPU-hours are predicted by dpbench.orchestration.cost (calibrated per learner; per-family defaults for others) "
        f"and include {job_overhead_seconds():.1f} s start-up per shard job."
    )
    lines.append(table_in_use())
    return "\n".join(lines)


#: the row of :func:`learner_hours` that holds the per-job start-up
#: (:data:`dpbench.orchestration.cost.JOB_OVERHEAD_SECONDS` per shard), which belongs to no learner
STARTUP = "(job start-up)"


def learner_hours(grid: Grid) -> dict[tuple[str, str], float]:
    """Predicted CPU-hours per (experiment, learner) — where a grid's time goes.

    Each learner gets its cells' own work; the work a shard's cells share (a sample, a
    class's mistakes, a feature matrix, a library's import, :mod:`dpbench.orchestration.cost`) is split
    equally among the learners of that shard whose cells carry its key; the start-up of
    every shard job is the row ``(experiment, STARTUP)``. The rows add up to
    :attr:`Plan.cpu_hours` (same shards and costs as :func:`make_plan`). Audit cells (no
    learner) are counted under the audited mechanism's name, as their rows name it.
    """
    out: dict[tuple[str, str], float] = {}
    for exp_id, plan in grid.experiments.items():
        costs = plan.cell_costs()
        for cells in plan.shards():
            holders: dict[tuple, dict[str, float]] = {}
            for cell in cells:
                cost = costs[cell]
                out[exp_id, cell.learner] = out.get((exp_id, cell.learner), 0.0) + cost.own
                for key, seconds in cost.shared.items():
                    by_learner = holders.setdefault(key, {})
                    by_learner[cell.learner] = max(by_learner.get(cell.learner, 0.0), seconds)
            for by_learner in holders.values():
                share = max(by_learner.values()) / len(by_learner)  # shard_seconds pays the key's max once
                for learner in by_learner:
                    out[exp_id, learner] += share
            out[exp_id, STARTUP] = out.get((exp_id, STARTUP), 0.0) + job_overhead_seconds()
    return {key: seconds / 3600.0 for key, seconds in out.items()}


def format_learner_hours(hours: dict[tuple[str, str], float], source: str = "") -> str:
    """One line per (experiment, learner), most CPU-hours first, with its share of the total."""
    total = sum(hours.values())
    head = f"{'experiment':<20} {'learner':<28} {'CPU-h':>8} {'share':>7}"
    lines = [f"CPU-hours by learner of {source}" if source else "CPU-hours by learner", head, "-" * len(head)]
    for (exp_id, learner), h in sorted(hours.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"{exp_id:<20} {learner:<28} {h:>8.3f} {100 * h / total if total else 0.0:>6.1f}%")
    lines.append("-" * len(head))
    lines.append(f"{'total':<20} {'':<28} {total:>8.3f} {100.0 if total else 0.0:>6.1f}%")
    return "\n".join(lines)
