# One job per experiment draws all of its figures (dpbench.pipeline.write_figures): the
# figure names differ between experiments, so each experiment gets its own rule.
for experiment in GRID.experiments:

    rule:
        name:
            f"figures_{experiment}"
        input:
            f"results/{experiment}.parquet",
        output:
            figure_outputs(experiment),
        log:
            f"results/logs/figures/{experiment}.log",
        params:
            experiment=experiment,
        localrule: True
        script:
            "../scripts/figures.py"
