"""Rule `figure`: draw one figure of one experiment (PDF + PNG)."""
import logging

from dpbench.pipeline import write_figure

logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
write_figure(snakemake.wildcards.experiment, snakemake.wildcards.figure, snakemake.input[0], snakemake.output.pdf)
