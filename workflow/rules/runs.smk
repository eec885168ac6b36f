rule run_shard:
    output:
        "results/runs/{experiment}/{shard}.parquet",
    log:
        "results/logs/run_shard/{experiment}/{shard}.log",
    params:
        cells=shard_cells,
        seed=GRID.seed,
        config_hash=config_hash,
    threads: 1
    priority: shard_priority
    conda:
        CONDA_ENV
    resources:
        runtime=shard_runtime,
        mem_mb=shard_mem_mb,
    script:
        "../scripts/run_shard.py"
