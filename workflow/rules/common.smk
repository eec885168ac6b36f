# Named helpers over the validated grid (dpbench.config / dpbench.grid: package code,
# tested without Snakemake). An invalid config raises a WorkflowError here, before any job.
import json

from dpbench.config import ConfigError, from_dict
from dpbench import registry

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


localrules:
    collect,
    theory_check,
    figure,


def shard_cells(wildcards):
    """The shard's cells as JSON (a rule param: a changed grid re-runs the shard)."""
    cells = SHARDS[wildcards.experiment][int(wildcards.shard)]
    return json.dumps([c.to_dict() for c in cells])


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
