"""dpbench.reporting.pipeline: figure file names and report captions (issue 13)."""

from __future__ import annotations

from docutils.core import publish_parts

from dpbench.foundation.paths import RunPaths
from dpbench.reporting.pipeline import figure_stem, rst_literal


def test_figure_stem_of_the_unnamed_figure():
    assert figure_stem("experts", "ftl_trap") == "experts_ftl_trap"
    assert figure_stem("privacy_audit", "") == "privacy_audit"


def test_captions_are_escaped_restructuredtext():
    """A caption with reStructuredText (and Jinja) markup renders as written, in one paragraph."""
    text = "n*(α) vs |F| for k = 1..3,\n   `code`, a_b_ and C:\\\\path — *not emphasis* {{ not jinja }} {# nor this #}\n- no list"
    html = publish_parts(rst_literal(text), writer="html", settings_overrides={"report_level": 1})["body"]
    assert "system-message" not in html and html.count("<p>") == 1
    for literal in ("*not emphasis*", "|F|", "`code`", "a_b_", "C:\\\\path", "{{ not jinja }}", "{# nor this #}", "- no list"):
        assert literal in html, literal


def test_summarise_collects_checks_and_draws_one_experiment(tmp_path):
    """The summarise job of one experiment: the shards concatenated (every row once), the
    theory table with a row per curve, and every registered figure with its caption."""
    import yaml

    from dpbench.experiments.base import run_shard
    from dpbench.foundation import registry
    from dpbench.foundation.results import read_results
    from dpbench.orchestration.config import from_dict
    from dpbench.reporting.pipeline import summarise
    from tests.conftest import REPO

    config = yaml.safe_load((REPO / "tests" / "data" / "tiny.yaml").read_text())
    config["experiments"] = {"linear_loss": config["experiments"]["linear_loss"] | {"shards": 2}}
    grid = from_dict(config)
    shards = []
    for i, cells in enumerate(grid.experiments["linear_loss"].shards()):
        shards.append(tmp_path / f"{i:03d}.parquet")
        run_shard(cells, root_seed=grid.seed, out=shards[-1])
    assert len(shards) == 2
    files = RunPaths(str(tmp_path)).figure_files("linear_loss", pdf=True)
    seconds = summarise("linear_loss", shards, tmp_path / "r.parquet", tmp_path / "t.csv", tmp_path / "t.html", files)
    assert set(seconds) == {"collect", "theory_check", "figures"}
    rows = read_results(tmp_path / "r.parquet")
    assert len(rows) == sum(len(read_results(s)) for s in shards)
    theory = (tmp_path / "t.csv").read_text().splitlines()
    assert len(theory) > 1 and "<table" in (tmp_path / "t.html").read_text()
    for name in registry.experiment("linear_loss").figures:
        stem = figure_stem("linear_loss", name)
        assert (tmp_path / "figures" / f"{stem}.png").stat().st_size > 0
        assert (tmp_path / "figures" / f"{stem}.pdf").stat().st_size > 0
        assert (tmp_path / "captions" / f"{stem}.rst").read_text().strip()
