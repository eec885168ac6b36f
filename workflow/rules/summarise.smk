# One local job per experiment after its shards: collect them into {output}/{experiment}.parquet,
# write the theory check (CSV, and HTML for the report) and draw every figure
# (dpbench.reporting.pipeline.summarise) — one process, so the results are read and the libraries
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
                subcategory="tables",
                labels={"table": "theory check" if experiment != "privacy_audit" else "audit"},
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


# Theory vs practice: one row per (source theorem, learner, regime) over every experiment's
# theory check (dpbench.reporting.summary), and its report page. The privacy audit's table is another
# kind (no verdicts against a rate) and is read but skipped.
rule theory_summary:
    input:
        [PATHS.theory_csv(experiment) for experiment in GRID.experiments],
    output:
        csv=PATHS.summary_csv,
        html=report(
            PATHS.summary_html,
            caption="../report/summary.rst",
            category="theory vs practice",
            labels={"table": "summary"},
        ),
    log:
        PATHS.summarise_log("theory_summary"),
    conda:
        CONDA_ENV
    localrule: True
    script:
        "../scripts/summary.py"


# The report's landing page (results/report/landing.html, which workflow/report/workflow.rst
# includes): the verdict counts, the cost-of-privacy table where the run has one, links; and
# per experiment a gallery page, every figure with its caption beside it (dpbench.reporting.report_gallery).
rule report_landing:
    input:
        theory=[PATHS.theory_csv(experiment) for experiment in GRID.experiments],
        summary=PATHS.summary_csv,
        # per experiment, per figure: its PNG then its caption (params.figures names them)
        figures=[files[kind] for experiment in GRID.experiments for files in PATHS.figure_files(experiment).values()
                 for kind in ("png", "caption")],
    output:
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
    params:
        figures=[[experiment, list(figure_stems(experiment))] for experiment in GRID.experiments],
    log:
        PATHS.summarise_log("report_landing"),
    conda:
        CONDA_ENV
    localrule: True
    script:
        "../scripts/landing.py"
