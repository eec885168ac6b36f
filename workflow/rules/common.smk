# Named helpers over the validated grid (dpbench.config / dpbench.grid / dpbench.pipeline:
# package code, tested without Snakemake). An invalid config stops here, before any job,
# with the one line `dpbench validate` prints and exit status 2.
import functools
import json
import math
import os
import sys

from dpbench.config import ConfigError, error_line, from_dict
from dpbench.cost import shard_memory_mb
from dpbench.pipeline import CAPTIONS_DIR, FIGURES_DIR, figure_stems

CONFIG_SOURCE = ", ".join(map(str, workflow.overwrite_configfiles)) or "config/config.yaml"
try:
    GRID = from_dict(config)
except ConfigError as exc:
    print(error_line(CONFIG_SOURCE, exc), file=sys.stderr)
    sys.exit(2)

# The plan, computed once: each cell's key and predicted cost, the shards and their
# predicted seconds (the resource functions below read these, never the cost model).
SHARDS = {exp: plan.shards() for exp, plan in GRID.experiments.items()}
SHARD_SECONDS = {exp: plan.shard_seconds() for exp, plan in GRID.experiments.items()}


def shard_name(i):
    """Shard file stem: the index zero-padded to three digits (any number of shards)."""
    return f"{i:03d}"


wildcard_constraints:
    experiment="|".join(GRID.experiments),
    shard=r"\d{3}\d*",  # three digits or more (written so: Snakemake did not match `\d{3,}` here)


# The software every job needs, relative to the .smk files in workflow/rules/. Documents
# it, and `--software-deployment-method conda` builds it. dpbench itself comes from this
# checkout (the scripts put it on sys.path when the environment does not have it).
CONDA_ENV = "../../environment.yml"


def shard_cells(wildcards):
    """The shard's cells as JSON (a parameter: a changed grid re-runs the shard)."""
    cells = SHARDS[wildcards.experiment][int(wildcards.shard)]
    return json.dumps([c.to_dict() for c in cells])


def shard_runtime(wildcards, attempt):
    """Minutes: 5 + 3 × the cost model's predicted minutes for the shard, × attempt."""
    seconds = SHARD_SECONDS[wildcards.experiment][int(wildcards.shard)]
    return attempt * (5 + math.ceil(3 * seconds / 60))


def shard_priority(wildcards):
    """The shard's predicted seconds: the longest shards start first (LPT order), so the
    cores finish together instead of one idling while the last long shard runs."""
    return SHARD_SECONDS[wildcards.experiment][int(wildcards.shard)]


#: summarise jobs start as soon as their shards are done, between the remaining shards
SUMMARISE_PRIORITY = 10**9


def shard_mem_mb(wildcards, attempt):
    """MB: the predicted peak of the shard (libraries + cached samples), × attempt."""
    return attempt * math.ceil(_shard_memory(wildcards.experiment, int(wildcards.shard)))


@functools.cache
def _shard_memory(experiment, i):
    """Predicted peak MB of one shard, computed once per shard."""
    return shard_memory_mb(SHARDS[experiment][i])


def experiment_shards(experiment):
    """The shard files of one experiment (the input of its summarise rule)."""
    return [f"results/runs/{experiment}/{shard_name(i)}.parquet" for i in range(len(SHARDS[experiment]))]


def config_hash(wildcards):
    return GRID.experiments[wildcards.experiment].config_hash


def figure_outputs(experiment):
    """Every figure file of the experiment (PNG in the report, with its own escaped caption
    file written by the same job; PDF) and the caption files."""
    outputs = []
    for name, stem in figure_stems(experiment).items():
        caption = f"{CAPTIONS_DIR}/{stem}.rst"
        png = report(
            f"{FIGURES_DIR}/{stem}.png",
            caption=os.path.abspath(caption),
            category=experiment,
            labels={"figure": name or experiment},
        )
        outputs += [png, f"{FIGURES_DIR}/{stem}.pdf", caption]
    return outputs


def final_targets():
    targets = []
    for exp in GRID.experiments:
        targets += [f"results/{exp}.parquet", f"results/theory/{exp}.csv", f"results/theory/{exp}.html"]
        for stem in figure_stems(exp).values():
            targets += [f"{FIGURES_DIR}/{stem}.pdf", f"{FIGURES_DIR}/{stem}.png"]
    return targets + ["results/theory/summary.csv", "results/theory/summary.html"]
