rule theory_check:
    input:
        "results/{experiment}.parquet",
    output:
        csv="results/theory/{experiment}.csv",
        html=report(
            "results/theory/{experiment}.html",
            caption="../report/theory.rst",
            category="{experiment}",
            labels={"figure": "theory check"},
        ),
    log:
        "results/logs/theory_check/{experiment}.log",
    script:
        "../scripts/theory_check.py"
