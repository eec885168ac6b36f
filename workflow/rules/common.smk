# Named helpers over the validated grid (dpbench.config / dpbench.grid: package code,
# tested without Snakemake). An invalid config raises a WorkflowError here, before any job.
import json
import math

from dpbench.config import ConfigError, from_dict
from dpbench import registry
from dpbench.cost import shard_memory_mb, shard_seconds

try:
    GRID = from_dict(config)
except ConfigError as exc:
    raise WorkflowError(f"invalid config: {exc}") from None

SHARDS = {exp: plan.shards() for exp, plan in GRID.experiments.items()}
PROBLEMS = GRID.problem_cells()


wildcard_constraints:
    experiment="|".join(GRID.experiments),
    shard=r"\d{3}",
    figure=r"[a-z0-9_]+",
    problem_id=r"[a-z_]+-[0-9a-f]{12}",


# Aggregates, and drawing a target (well under a second: never worth a queue wait).
localrules:
    distribution,
    collect,
    theory_check,
    figure,


def shard_cells(wildcards):
    """The shard's cells as JSON (a rule param: a changed grid re-runs the shard)."""
    cells = SHARDS[wildcards.experiment][int(wildcards.shard)]
    return json.dumps([c.to_dict() for c in cells])


def shard_runtime(wildcards, attempt):
    """Minutes: 5 + 3 × the cost model's predicted minutes for the shard, × attempt."""
    seconds = shard_seconds(SHARDS[wildcards.experiment][int(wildcards.shard)])
    return attempt * (5 + math.ceil(3 * seconds / 60))


def shard_mem_mb(wildcards, attempt):
    """MB: the predicted peak of the shard (libraries + cached samples), × attempt."""
    return attempt * math.ceil(shard_memory_mb(SHARDS[wildcards.experiment][int(wildcards.shard)]))


def shard_distributions(wildcards):
    cells = SHARDS[wildcards.experiment][int(wildcards.shard)]
    return sorted({f"results/distributions/{c.problem_id}.json" for c in cells})


def problem_cell(wildcards):
    return json.dumps(PROBLEMS[wildcards.problem_id].to_dict())


def experiment_shards(wildcards):
    n = len(SHARDS[wildcards.experiment])
    return [f"results/runs/{wildcards.experiment}/{i:03d}.parquet" for i in range(n)]


def config_hash(wildcards):
    return GRID.experiments[wildcards.experiment].config_hash


def figure_caption(wildcards):
    return registry.experiment(wildcards.experiment).figures[wildcards.figure].caption


def final_targets():
    targets = []
    for exp in GRID.experiments:
        targets += [f"results/{exp}.parquet", f"results/theory/{exp}.csv"]
        for fig in registry.experiment(exp).figures:
            targets += [f"results/figures/{exp}_{fig}.pdf", f"results/figures/{exp}_{fig}.png"]
    return targets
