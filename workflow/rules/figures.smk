rule figure:
    input:
        "results/{experiment}.parquet",
    output:
        pdf="results/figures/{experiment}_{figure}.pdf",
        png=report(
            "results/figures/{experiment}_{figure}.png",
            caption="../report/figure.rst",
            category="{experiment}",
            labels={"figure": "{figure}"},
        ),
    log:
        "results/logs/figure/{experiment}_{figure}.log",
    params:
        caption=figure_caption,
    script:
        "../scripts/figure.py"
