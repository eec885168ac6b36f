"""Rules `summarise_*`: collect one experiment's shards, check the theory, draw the figures."""
import logging

import checkout  # noqa: F401  (dpbench from this checkout if the environment lacks it)

from dpbench.pipeline import summarise

logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
seconds = summarise(
    snakemake.params.experiment,
    snakemake.input,
    snakemake.output.results,
    snakemake.output.theory_csv,
    snakemake.output.theory_html,
)
logging.info("seconds: %s", ", ".join(f"{step} {s:.2f}" for step, s in seconds.items()))
