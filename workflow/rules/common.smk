# Named helpers over the validated grid (dpbench.orchestration.config / dpbench.orchestration.grid / dpbench.reporting.pipeline:
# package code, tested without Snakemake). An invalid config stops here, before any job,
# with the one line `dpbench validate` prints and exit status 2.
import functools
import gc
import math
import os
import sys

from dpbench.orchestration.config import ConfigError, error_line, from_dict
from dpbench.orchestration.cost import shard_memory_mb
from dpbench.foundation.cell import cells_to_json
from dpbench.foundation.paths import figure_stems
from dpbench.foundation.paths import OutputClash, RunPaths, check_owner, output_root
from dpbench.foundation.provenance import shard_code_hash, summary_code_hash

# The --configfile paths: Workflow.overwrite_configfiles, Snakemake's own name for them, not in
# its documentation (nothing documented gives the paths); tests/test_snakemake_api.py fails,
# naming this file, the day it changes.
CONFIG_SOURCE = ", ".join(map(str, workflow.overwrite_configfiles)) or "config/config.yaml"

# Ctrl-C: one line and the command that resumes (dpbench.orchestration.interrupt)
from dpbench.orchestration.interrupt import resume_on_interrupt

resume_on_interrupt()
try:
    GRID = from_dict(config)
except ConfigError as exc:
    print(error_line(CONFIG_SOURCE, exc), file=sys.stderr)
    sys.exit(2)

# the cost table that sizes the shards: this machine's (`dpbench calibrate`) or the shipped one
from dpbench.orchestration.cost import table_in_use
from dpbench.orchestration.cost_table import CalibrationError

try:
    COST_TABLE_LINE = table_in_use()  # said once the config and its output directory are accepted
except CalibrationError as exc:
    print(exc, file=sys.stderr)
    sys.exit(2)

# --- outputs (dpbench.foundation.paths): every file of this run is under its own directory, and
# every path below comes from PATHS. The config file that names the directory is the last
# --configfile (None: the default config).
CONFIG_FILE = workflow.overwrite_configfiles[-1] if workflow.overwrite_configfiles else None
PATHS = RunPaths(output_root(GRID.output, CONFIG_FILE))
# the report's description (workflow/report/workflow.rst) includes {output}/report/landing.html
config["output"] = PATHS.root
#: on remote storage (--default-storage-provider) the owner record is not kept
LOCAL_OUTPUTS = getattr(workflow.storage_settings, "default_storage_provider", None) is None
if LOCAL_OUTPUTS:
    try:
        check_owner(PATHS, CONFIG_FILE)
    except OutputClash as exc:
        print(f"invalid config {CONFIG_SOURCE}: output: {exc}", file=sys.stderr)
        sys.exit(2)
print(COST_TABLE_LINE, file=sys.stderr)


def shard_code(wildcards):
    """Fingerprint of the source the shard's cells run (dpbench.foundation.provenance): a parameter,
    so editing a learner re-runs exactly the shards that run it."""
    return shard_code_hash(SHARDS[wildcards.experiment][int(wildcards.shard)])


# The plan, computed once: each cell's key and predicted cost, the shards and their
# predicted seconds (the resource functions below read these, never the cost model).
SHARDS = {exp: plan.shards() for exp, plan in GRID.experiments.items()}
SHARD_SECONDS = {exp: plan.shard_seconds() for exp, plan in GRID.experiments.items()}
# The plan's millions of objects live as long as the workflow: the garbage collector need
# not scan them again in every full pass while Snakemake builds the DAG.
gc.freeze()


wildcard_constraints:
    experiment="|".join(GRID.experiments),
    shard=r"\d{3}\d*",  # three digits or more (written so: Snakemake did not match `\d{3,}` here)


# The software every job needs, relative to the .smk files in workflow/rules/. Documents
# it, and `--software-deployment-method conda` builds it. dpbench itself comes from this
# checkout (the scripts put it on sys.path when the environment does not have it).
CONDA_ENV = "../../environment.yml"


def shard_cells(wildcards):
    """The shard's cells as JSON (a parameter: a changed grid re-runs the shard)."""
    return cells_to_json(SHARDS[wildcards.experiment][int(wildcards.shard)])


def shard_runtime(wildcards, attempt):
    """Minutes: 5 + 3 × the cost model's predicted minutes for the shard, × attempt."""
    seconds = SHARD_SECONDS[wildcards.experiment][int(wildcards.shard)]
    return attempt * (5 + math.ceil(3 * seconds / 60))


def shard_priority(wildcards):
    """The shard's predicted seconds: the longest shards start first (LPT order), so the
    cores finish together instead of one idling while the last long shard runs."""
    return SHARD_SECONDS[wildcards.experiment][int(wildcards.shard)]


def shard_mem_mb(wildcards, attempt):
    """MB: the predicted peak of the shard (libraries + cached samples), × attempt."""
    return attempt * math.ceil(_shard_memory(wildcards.experiment, int(wildcards.shard)))


@functools.cache
def _shard_memory(experiment, i):
    """Predicted peak MB of one shard, computed once per shard."""
    return shard_memory_mb(SHARDS[experiment][i])


def experiment_shards(experiment):
    """The shard files of one experiment (the input of its summarise rule)."""
    return PATHS.shards(experiment, len(SHARDS[experiment]))


def config_hash(wildcards):
    return GRID.experiments[wildcards.experiment].config_hash


def figure_outputs(experiment):
    """Every figure file of the experiment (PNG in the report, with its own escaped caption
    file written by the same job; PDF with the config key figures_pdf) and the caption files."""
    outputs = []
    names = {stem: name for name, stem in figure_stems(experiment).items()}
    for stem, files in PATHS.figure_files(experiment, GRID.figures_pdf).items():
        png = report(
            files["png"],
            caption=os.path.abspath(files["caption"]),
            category=experiment,
            subcategory="figures",
            labels={"figure": names[stem] or experiment},
        )
        outputs += [png, files["caption"]] + ([files["pdf"]] if "pdf" in files else [])
    return outputs


def final_targets():
    return (
        [path for exp in GRID.experiments for path in PATHS.experiment_outputs(exp, GRID.figures_pdf)]
        + [PATHS.summary_csv, PATHS.summary_html, PATHS.landing_html]
        + ([PATHS.cost_of_privacy_csv, PATHS.cost_of_privacy_html] if cost_experiments() else [])
    )


def cost_experiments():
    """The experiments whose results the cost of privacy reads (the privacy audit has no
    learning curves)."""
    return [exp for exp in GRID.experiments if exp != "privacy_audit"]
