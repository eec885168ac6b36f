rule run_shard:
    output:
        PATHS.shard("{experiment}", "{shard}"),
    log:
        PATHS.shard_log("{experiment}", "{shard}"),
    params:
        cells=shard_cells,
        seed=GRID.seed,
        config_hash=config_hash,
        code_hash=shard_code,
        cell_timeout=GRID.cell_timeout_seconds,
    threads: 1
    priority: shard_priority
    conda:
        CONDA_ENV
    resources:
        runtime=shard_runtime,
        mem_mb=shard_mem_mb,
    script:
        "../scripts/run_shard.py"
