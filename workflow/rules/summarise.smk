# One local job per experiment after its shards: collect them into results/{experiment}.parquet,
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
            results=f"results/{experiment}.parquet",
            theory_csv=f"results/theory/{experiment}.csv",
            theory_html=report(
                f"results/theory/{experiment}.html",
                caption="../report/theory.rst",
                category=experiment,
                labels={"figure": "theory check"},
            ),
            figures=figure_outputs(experiment),
        log:
            f"results/logs/summarise/{experiment}.log",
        params:
            experiment=experiment,
        conda:
            CONDA_ENV
        priority: SUMMARISE_PRIORITY
        localrule: True
        script:
            "../scripts/summarise.py"


# Theory vs practice: one row per (source theorem, learner, regime) over every experiment's
# theory check (dpbench.summary), and its report page. The privacy audit's table is another
# kind (no verdicts against a rate) and is read but skipped.
rule theory_summary:
    input:
        [f"results/theory/{experiment}.csv" for experiment in GRID.experiments],
    output:
        csv="results/theory/summary.csv",
        html=report(
            "results/theory/summary.html",
            caption="../report/summary.rst",
            category="theory vs practice",
            labels={"figure": "summary"},
        ),
    log:
        "results/logs/summarise/theory_summary.log",
    conda:
        CONDA_ENV
    localrule: True
    script:
        "../scripts/summary.py"
