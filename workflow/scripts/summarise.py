"""Rules `summarise_*`: collect one experiment's shards, check the theory, draw the figures."""
import logging

import checkout  # noqa: F401  (dpbench from this checkout if the environment lacks it)

from dpbench.foundation.registry import load_plugins
from dpbench.reporting.pipeline import figure_files, summarise

logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
# the config's plugins: a plugin learner's declared theorem draws its theory line and verdict
load_plugins(snakemake.config.get("plugins", ()))
logging.getLogger("fontTools").setLevel(logging.WARNING)  # ~3,000 INFO lines per PDF's font subsetting
# every file goes exactly where Snakemake declared it (on remote storage: its local copies)
seconds = summarise(
    snakemake.params.experiment,
    snakemake.input,
    snakemake.output.results,
    snakemake.output.theory_csv,
    snakemake.output.theory_html,
    figure_files(snakemake.params.experiment, snakemake.output.figures),
)
logging.info("seconds: %s", ", ".join(f"{step} {s:.2f}" for step, s in seconds.items()))
