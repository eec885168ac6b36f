rule collect:
    input:
        experiment_shards,
    output:
        "results/{experiment}.parquet",
    log:
        "results/logs/collect/{experiment}.log",
    script:
        "../scripts/collect.py"
