# One local job after every shard does everything the run writes besides them
# (dpbench.reporting.pipeline.summarise_run): per experiment, collect its shards into
# {output}/{experiment}.parquet, write the theory check (CSV, and HTML for the report) and
# draw every figure; then theory vs practice (dpbench.reporting.summary), the cost of
# privacy (dpbench.theory_check.cost_of_privacy) and the report's landing page and galleries.
# One process: the interpreter starts and pandas, scipy and matplotlib are imported once
# for the run instead of once per experiment and per table (issue 32: the workflow's CPU
# outside cells). Every file is still an output Snakemake knows; a failed job's outputs are
# removed by Snakemake, and each file is renamed into place only once complete.
rule summarise:
    input:
        unpack(lambda wildcards: {experiment: experiment_shards(experiment) for experiment in GRID.experiments}),
    output:
        results=[PATHS.results(experiment) for experiment in GRID.experiments],
        theory_csv=[PATHS.theory_csv(experiment) for experiment in GRID.experiments],
        theory_html=[
            report(
                PATHS.theory_html(experiment),
                caption="../report/theory.rst",
                category=experiment,
                subcategory="tables",
                labels={"table": "theory check" if experiment != "privacy_audit" else "audit"},
            )
            for experiment in GRID.experiments
        ],
        figures=[path for experiment in GRID.experiments for path in figure_outputs(experiment)],
        summary_csv=PATHS.summary_csv,
        summary_html=report(
            PATHS.summary_html,
            caption="../report/summary.rst",
            category="theory vs practice",
            labels={"table": "summary"},
        ),
        cost=(
            [
                PATHS.cost_of_privacy_csv,
                report(
                    PATHS.cost_of_privacy_html,
                    caption="../report/cost_of_privacy.rst",
                    category="theory vs practice",
                    labels={"table": "cost of privacy"},
                ),
            ]
            if cost_experiments()
            else []
        ),
        landing=PATHS.landing_html,
        galleries=[
            report(
                PATHS.gallery_html(experiment),
                caption="../report/gallery.rst",
                category=experiment,
                subcategory="figures",
                labels={"figure": "every figure, each with its caption"},
            )
            for experiment in GRID.experiments
        ],
    log:
        PATHS.summarise_log("summarise"),
    params:
        experiments=list(GRID.experiments),
        cost_experiments=cost_experiments(),
        # the analysis and plotting code's fingerprints (dpbench.foundation.provenance, per
        # experiment): editing it re-runs the summary
        code_hash=" ".join(summary_code_hash(experiment) for experiment in GRID.experiments),
    conda:
        CONDA_ENV
    localrule: True
    script:
        "../scripts/summarise.py"
