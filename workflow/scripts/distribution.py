"""Rule `distribution`: draw one problem's target and write it as JSON."""
import json
import logging
import sys

from dpbench.experiment import write_target
from dpbench.grid import Cell

logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
write_target(Cell.from_dict(json.loads(snakemake.params.cell)), snakemake.params.seed, snakemake.output[0])
