"""Output directories (dpbench.foundation.paths) and code-aware re-runs through Snakemake itself:
each config writes under its own directory, two configs never write the same file (the
README's plugin example leaves the default run's results untouched), and editing a
learner's source re-runs exactly the shards that run it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from dpbench.foundation.paths import DEFAULT_CONFIG, OutputClash, RunPaths, check_owner, claim, output_root
from tests.conftest import PLUGIN_CONFIG, REPO, TINY_CONFIG, declared_outputs, default_stand_ins, run_snakemake


def test_output_root_is_derived_from_the_config_file():
    assert output_root(None, None) == "results" and output_root(None, DEFAULT_CONFIG) == "results"
    assert output_root(None, REPO / "config" / "paper.yaml") == "results/paper"
    assert output_root(None, PLUGIN_CONFIG) == "results/plugin"  # a file called config.yaml: its folder's name
    assert output_root(None, "/x/runs.yaml") == "results/run-runs"  # never inside the default run's directories
    assert output_root("out/mine/", "/x/runs.yaml") == "out/mine"  # the config's own `output:` wins


def test_a_directory_belongs_to_one_config(tmp_path):
    paths = RunPaths("results/x")
    claim(paths, tmp_path / "a" / "x.yaml", tmp_path)
    claim(paths, tmp_path / "a" / "x.yaml", tmp_path)  # the same config again: fine
    with pytest.raises(OutputClash, match=r"output directory results/x/ holds the results of a/x.yaml"):
        check_owner(paths, tmp_path / "b" / "x.yaml", tmp_path)


def test_default_and_plugin_example_share_no_file():
    default, plugin = declared_outputs(DEFAULT_CONFIG), declared_outputs(PLUGIN_CONFIG)
    assert "results/conjunctions.parquet" in default and "results/plugin/conjunctions.parquet" in plugin
    assert not default & plugin


@pytest.mark.slow
def test_plugin_example_leaves_default_results_untouched(plugin_example_run):
    """A default run's files are in place (stand-ins: the run itself takes minutes); the
    README's plugin example runs beside them (tests/conftest.py, the run shared with
    tests/test_plugins.py), writes only under results/plugin/, and the default config then
    still sees its own directory (a dry run, no clash)."""
    tmp_path = plugin_example_run
    default_files = sorted(default_stand_ins())
    for name in default_files:
        assert (tmp_path / name).read_bytes() == b"default run: " + name.encode(), name
    assert (tmp_path / "results" / "plugin" / "conjunctions.parquet").stat().st_size > 0
    written = {p.relative_to(tmp_path).as_posix() for p in (tmp_path / "results").rglob("*") if p.is_file()}
    assert written - set(default_files) <= declared_outputs(PLUGIN_CONFIG) | {"results/.owner"}
    # the other order: a run of the default config here is not stopped by the plugin's files
    dry = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(tmp_path),
                          "--configfile", str(DEFAULT_CONFIG), "-n", "--cores", "1"],
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert dry.returncode == 0, dry.stderr[-3000:]


MY_PLUGIN = '''"""A plugin learner for the re-run test: ERM under another name."""
from dataclasses import dataclass
from typing import ClassVar

from dpbench.learners.erm import ERM
from dpbench.foundation.registry import register_learner


@register_learner
@dataclass(frozen=True, kw_only=True)
class MyERM(ERM):
    name: ClassVar[str] = "my_erm"
'''


def _scheduled_shards(proc: subprocess.CompletedProcess) -> set[str]:
    """Shards a dry run would run (the output of each ``rule run_shard`` job)."""
    text = proc.stdout + proc.stderr
    return set(re.findall(r"rule run_shard:\s*\n(?:\s+\w+:.*\n)*?\s+output: \S*/runs/conjunctions/(\d+)\.parquet", text))


@pytest.mark.slow
def test_editing_a_learner_reruns_exactly_its_shards(tmp_path):
    (tmp_path / "myplug.py").write_text(MY_PLUGIN)
    config = {"seed": 3, "plugins": ["myplug"], "experiments": {"conjunctions": {
        "problem": "conjunction", "problem_params": {"d": 4, "k": 2}, "learners": ["elimination", "erm", "decision_tree", "my_erm"],
        "epsilon": [1.0], "n": [32], "repetitions": 2, "shard_minutes": 1e-6}}}  # fmt: skip  (one repetition per shard)
    path = tmp_path / "edit.yaml"
    path.write_text(yaml.safe_dump(config))
    until = ("--until", "run_shard")  # the shards only: the figures know only the catalogue's learners
    proc = run_snakemake(tmp_path, *until, configfile=path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert _scheduled_shards(run_snakemake(tmp_path, "-n", *until, configfile=path)) == set()
    shards = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "results" / "edit" / "runs").rglob("*.parquet"))
    assert len(shards) == 8, shards  # 4 cells, each split into its 2 repetitions (dpbench.orchestration.grid)

    # the shards that ran my_erm, read from their rows (this process does not import the plugin)
    uses = {Path(s).stem for s in shards if "my_erm" in set(pd.read_parquet(tmp_path / s, columns=["learner"])["learner"])}
    assert uses and len(uses) < len(shards), "the test needs shards with and without the learner"
    with open(tmp_path / "myplug.py", "a") as fh:
        fh.write("# an edit\n")
    dry = run_snakemake(tmp_path, "-n", *until, configfile=path)
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert _scheduled_shards(dry) == uses, dry.stdout[-3000:]


@pytest.mark.slow
def test_snakemake_stops_on_another_configs_directory(tmp_path):
    """Through snakemake: a directory owned by another config stops the run before any job,
    one line naming the owner, exit status 2, no traceback."""
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / ".owner").write_text("elsewhere/other.yaml\n")
    proc = run_snakemake(tmp_path, "-n")  # tiny.yaml: `output: results`
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stderr.strip() == (f"invalid config {TINY_CONFIG}: output: output directory results/ holds the results of "
                                   "elsewhere/other.yaml; give this config its own `output:` directory (or delete results/)")  # fmt: skip
