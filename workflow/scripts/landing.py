"""Rule `report_landing`: the theory-vs-practice table of the report's landing page."""
import logging

import checkout  # noqa: F401  (dpbench from this checkout if the environment lacks it)

from dpbench.reporting.report_tables import write_landing

logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
rows = write_landing(list(snakemake.input.theory), [snakemake.input.summary], snakemake.output[0])
logging.info("landing table: %d rows", rows)
