"""Rules `figures_*`: draw every figure of one experiment (PDF, PNG, escaped caption)."""
import logging

from dpbench.pipeline import write_figures

logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
write_figures(snakemake.params.experiment, snakemake.input[0])
