"""`dpbench shrink` (issue 11): the shape of a grid at a size that runs in minutes."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from dpbench.cli import main
from dpbench.foundation import registry
from dpbench.foundation.paths import RunPaths, output_root
from dpbench.orchestration.config import ConfigError, from_dict, load
from dpbench.orchestration.shrink import MAX_SIZES, predicted_seconds, shrink, shrink_sizes
from tests.conftest import REPO

PAPER = REPO / "config" / "paper.yaml"
SHAPE_KEYS = ("problem", "problem_params", "learners", "learner_params", "epsilon", "delta", "options")


def test_shrink_sizes_keeps_three_and_never_grows():
    grid = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
    assert shrink_sizes(grid, 4096) == [16, 128, 512, 4096]  # ≤ MAX_SIZES, ends kept
    assert shrink_sizes(grid, 100) == [16, 32, 64]
    assert shrink_sizes([1000, 10000, 100000], 500) == [5, 50, 500]  # too few under the cap: scaled
    assert shrink_sizes([100000000], 6250) == [6250]
    for cap in (1, 7, 64, 10**6):
        out = shrink_sizes(grid, cap)
        assert 3 <= len(out) <= MAX_SIZES and out == sorted(set(out)) and max(out) <= max(cap, 3)


def _blocks(config: dict):
    for exp_id, block in config["experiments"].items():
        yield exp_id, None, block
        for i, sweep in enumerate(block.get("sweeps", [])):
            yield exp_id, i, sweep


def test_shrunk_paper_config_keeps_the_shape():
    paper = yaml.safe_load(PAPER.read_text())
    small = shrink(paper, budget_seconds=20.0)
    floor = shrink(paper, budget_seconds=1e-9)  # the smallest sizes shrink tries (its last resort)
    assert list(small["experiments"]) == list(paper["experiments"])
    big_grid, small_grid = load(PAPER), from_dict(small)
    for (exp_id, i, a), (_, j, b) in zip(_blocks(paper), _blocks(small), strict=True):
        assert i == j and {k: a.get(k) for k in SHAPE_KEYS} == {k: b.get(k) for k in SHAPE_KEYS}, (exp_id, i)
        size = registry.experiment(exp_id).size
        if size in a:
            assert len(b[size]) >= min(3, len(a[size])) and max(b[size]) <= max(a[size]), (exp_id, i)
    for exp_id in paper["experiments"]:
        big, tiny = big_grid.experiments[exp_id].cells, small_grid.experiments[exp_id].cells
        strip = {"size", "repetitions"}
        key = lambda c: tuple((k, str(v)) for k, v in c.key().items() if k not in strip)  # noqa: E731
        assert {key(c) for c in big} == {key(c) for c in tiny}, exp_id  # every (problem, learner, ε, δ) kept
        assert {c.repetitions for c in tiny} == {2}
        # within the budget (dpbench.orchestration.cost), unless even the smallest sizes are above it (private_erm:
        # dp_sgd's per-cell calibration does not shrink with n), and then at those smallest sizes
        budget = max(20.0, predicted_seconds(floor, exp_id))
        assert predicted_seconds(small, exp_id) <= budget, exp_id


def test_shrink_rejects_bad_input(tmp_path, capsys):
    with pytest.raises(ConfigError, match="reps"):
        shrink(yaml.safe_load(PAPER.read_text()), repetitions=1)
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 1\nexperiments: {conjunctions: {problem: conjunction, learners: [erm], epsilon: -1, n: [4]}}\n")
    assert main(["shrink", str(bad), "-o", str(tmp_path / "out.yaml")]) == 2
    assert "epsilon" in capsys.readouterr().err and not (tmp_path / "out.yaml").exists()


@pytest.mark.slow
def test_shrunk_paper_grid_runs_end_to_end(shrunk_paper_run):
    """`dpbench shrink config/paper.yaml` + snakemake on its output (the shared
    :func:`tests.conftest.shrunk_paper_run`): every Parquet file, theory CSV and figure of
    the paper grid, in minutes on 2 cores — the paper grid's shape is run before anyone
    spends cluster hours on it."""
    tmp_path, small = shrunk_paper_run
    paths = RunPaths(output_root(None, small))  # results/paper_small: its own directory
    for exp_id in yaml.safe_load(small.read_text())["experiments"]:
        assert len(pd.read_parquet(tmp_path / paths.results(exp_id))) > 0
        assert len(pd.read_csv(tmp_path / paths.theory_csv(exp_id))) > 0, exp_id
        for files in paths.figure_files(exp_id).values():
            assert (tmp_path / files["png"]).stat().st_size > 5_000, files["png"]


def test_shrunk_config_gets_its_own_output_directory():
    config = yaml.safe_load(PAPER.read_text()) | {"output": "results/paper_full"}
    assert "output" not in shrink(config)
