# dpbench: generate distributions, run every learner over the grid in shards, collect tidy
# Parquet, check the theory, draw the figures. See README.md ("Configuration").
from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config/config.yaml"


validate(config, schema="config/schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/distributions.smk"
include: "workflow/rules/runs.smk"
include: "workflow/rules/collect.smk"
include: "workflow/rules/theory.smk"
include: "workflow/rules/figures.smk"


rule all:
    input:
        final_targets(),
