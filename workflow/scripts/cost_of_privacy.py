"""Rule `cost_of_privacy`: results/theory/cost_of_privacy.csv and its report page."""
import logging

import checkout  # noqa: F401  (dpbench from this checkout if the environment lacks it)

from dpbench.foundation.registry import load_plugins
from dpbench.reporting.cost_of_privacy import write_cost_of_privacy

logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
# the config's plugins: a plugin learner's declared theorem draws its theory line and verdict
load_plugins(snakemake.config.get("plugins", ()))
table = write_cost_of_privacy(list(snakemake.input), snakemake.output.csv, snakemake.output.html)
logging.info("cost of privacy: %d rows; positions %s", len(table), table["position"].value_counts().to_dict())
