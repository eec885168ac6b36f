"""Rule `theory_check`: fitted slopes and bound checks of one experiment, as CSV and HTML."""
import logging

from dpbench.pipeline import write_theory_check

logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
write_theory_check(snakemake.wildcards.experiment, snakemake.input[0], snakemake.output.csv, snakemake.output.html)
