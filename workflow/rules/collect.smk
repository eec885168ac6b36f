rule collect:
    input:
        experiment_shards,
    output:
        "results/{experiment}.parquet",
    log:
        "results/logs/collect/{experiment}.log",
    conda:
        CONDA_ENV
    script:
        "../scripts/collect.py"
