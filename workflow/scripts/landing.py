"""Rule `report_landing`: the report's landing page (verdict counts, the cost-of-privacy
table where the run has one, links) and each experiment's gallery (figures with captions)."""
import logging
from pathlib import Path

import checkout  # noqa: F401  (dpbench from this checkout if the environment lacks it)

from dpbench.reporting.report_gallery import write_gallery
from dpbench.reporting.report_tables import COST_OF_PRIVACY, write_landing

logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
summary = snakemake.input.summary
rows = write_landing(list(snakemake.input.theory), [summary], snakemake.output.landing,
                     cost_csv=Path(summary).with_name(COST_OF_PRIVACY))
logging.info("landing counts: %d rows", rows)
files = iter(snakemake.input.figures)
for (experiment, names), out in zip(snakemake.params.figures, snakemake.output.galleries):
    figures = [(name or experiment, next(files), next(files)) for name in names]
    write_gallery(experiment, figures, out)
    logging.info("gallery %s: %d figures", experiment, len(figures))
