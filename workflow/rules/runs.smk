# run_shard: one job per shard of cells (dpbench.grid.shard, sized by dpbench.cost). Its
# runtime (minutes) and memory (MB) come from the cost model's prediction for the shard,
# with slack, and grow with each retry (`retries:` in the profile) through `attempt`.
import math

from dpbench.cost import shard_memory_mb, shard_seconds


def shard_runtime(wildcards, attempt):
    """Minutes: 5 + 3 × the predicted minutes of the shard, × attempt."""
    seconds = shard_seconds(SHARDS[wildcards.experiment][int(wildcards.shard)])
    return attempt * (5 + math.ceil(3 * seconds / 60))


def shard_mem_mb(wildcards, attempt):
    """MB: the predicted peak of the shard (libraries + cached samples), × attempt."""
    return attempt * math.ceil(shard_memory_mb(SHARDS[wildcards.experiment][int(wildcards.shard)]))


# Drawing a target takes well under a second: on a cluster, never worth a queue wait.
localrules:
    distribution,


rule run_shard:
    input:
        shard_distributions,
    output:
        "results/runs/{experiment}/{shard}.parquet",
    log:
        "results/logs/run_shard/{experiment}/{shard}.log",
    params:
        cells=shard_cells,
        seed=GRID.seed,
        config_hash=config_hash,
    threads: 1
    resources:
        runtime=shard_runtime,
        mem_mb=shard_mem_mb,
    script:
        "../scripts/run_shard.py"
