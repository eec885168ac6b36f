"""Rule `theory_summary`: results/theory/summary.csv (theory vs practice) and its report page."""
import logging

import checkout  # noqa: F401  (dpbench from this checkout if the environment lacks it)

from dpbench.reporting.summary import write_summary

logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
table = write_summary(list(snakemake.input), snakemake.output.csv, snakemake.output.html)
logging.info("summary: %d rows; verdicts %s", len(table), table["verdict"].value_counts().to_dict())
