"""Rule `collect`: concatenate the shards of one experiment (input list from snakemake.input)."""
import logging

from dpbench.results import concat

logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
concat(list(snakemake.input), snakemake.output[0])
