# dpbench: run every learner over the grid in shards; then one job collects each experiment's
# tidy Parquet, checks the theory, draws the figures and writes the tables and report pages.
# See docs/configuration.md.
from snakemake.utils import min_version, validate

min_version("9.17.0")


# The default grid, used only when no --configfile is given: a config given on the
# command line replaces it (Snakemake would otherwise merge the two). The paths given with
# --configfile: Workflow.overwrite_configfiles (tests/test_snakemake_api.py checks it).
if not workflow.overwrite_configfiles:
    # a YAML syntax error names the file, line and column (Snakemake's own message has none)
    from dpbench.orchestration.config import exit_on_yaml_error

    exit_on_yaml_error("config/config.yaml")

    configfile: "config/config.yaml"


# common.smk runs dpbench's own checks first: a bad config stops with one line naming the
# file and key, exit status 2, before Snakemake's schema validation below.
include: "workflow/rules/common.smk"


# the schema ships inside the package (the installed one: a wheel install runs this workflow too)
from dpbench.orchestration.config import SCHEMA_PATH

validate(config, schema=str(SCHEMA_PATH))


report: "workflow/report/workflow.rst"


include: "workflow/rules/runs.smk"
include: "workflow/rules/summarise.smk"


rule all:
    input:
        final_targets(),


# a real run (not a dry run) records this config as the owner of its output directory
# (dpbench.foundation.paths.claim): a run of another config there then stops before any job
onstart:
    if LOCAL_OUTPUTS:
        from dpbench.foundation.paths import claim

        claim(PATHS, CONFIG_FILE)
