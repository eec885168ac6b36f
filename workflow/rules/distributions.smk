rule distribution:
    output:
        "results/distributions/{problem_id}.json",
    log:
        "results/logs/distribution/{problem_id}.log",
    params:
        cell=problem_cell,
        seed=GRID.seed,
    script:
        "../scripts/distribution.py"
