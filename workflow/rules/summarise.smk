# One local job per experiment after its shards: collect them into {output}/{experiment}.parquet,
# write the theory check (CSV, and HTML for the report) and draw every figure
# (dpbench.pipeline.summarise) — one process, so the results are read and the libraries
# imported once. Figure names differ between experiments, so each gets its own rule.
for experiment in GRID.experiments:

    rule:
        name:
            f"summarise_{experiment}"
        input:
            experiment_shards(experiment),
        output:
            results=PATHS.results(experiment),
            theory_csv=PATHS.theory_csv(experiment),
            theory_html=report(
                PATHS.theory_html(experiment),
                caption="../report/theory.rst",
                category=experiment,
                labels={"figure": "theory check"},
            ),
            figures=figure_outputs(experiment),
        log:
            PATHS.summarise_log(experiment),
        params:
            experiment=experiment,
            # the analysis and plotting code's fingerprint: editing it re-runs the summary
            code_hash=summary_code_hash(experiment),
        conda:
            CONDA_ENV
        priority: SUMMARISE_PRIORITY
        localrule: True
        script:
            "../scripts/summarise.py"
