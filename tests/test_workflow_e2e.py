"""End to end: the workflow through snakemake on the tiny config (every experiment in
tests/data/tiny.yaml), in a temporary directory — Parquet schema, theory CSVs, figures,
report, idempotence, bit-identical re-runs, and bad configs stopped before any job."""

from __future__ import annotations

import os
import shutil

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from dpbench.foundation import registry
from dpbench.foundation.results import SCHEMA, TIMING_COLUMNS
from dpbench.reporting.pipeline import figure_stems
from dpbench.theory_check.analysis import THEORY_COLUMNS
from tests.conftest import TINY_CONFIG, run_snakemake

pytestmark = pytest.mark.slow

EXPERIMENTS = list(yaml.safe_load(TINY_CONFIG.read_text())["experiments"])


@pytest.fixture(scope="module")
def first_run(tiny_run):
    return tiny_run  # tests/conftest.py: one tiny run for this module and tests/test_report.py


def test_outputs_exist_with_the_schema(first_run):
    registry.load_all()
    for exp in EXPERIMENTS:
        table = pq.read_table(first_run / "results" / f"{exp}.parquet")
        assert table.schema.equals(SCHEMA), exp
        df = table.to_pandas()
        assert len(df) > 0 and set(df["experiment"]) == {exp}
        assert (df["status"] != "failed").all()
        theory = pd.read_csv(first_run / "results" / "theory" / f"{exp}.csv")
        columns = registry.experiment(exp).theory_columns or THEORY_COLUMNS  # privacy_audit: AUDIT_COLUMNS
        assert list(theory.columns) == list(columns) and len(theory) > 0
        assert "<table" in (first_run / "results" / "theory" / f"{exp}.html").read_text()
        for stem in figure_stems(exp).values():
            path = first_run / "results" / "figures" / f"{stem}.png"
            assert path.stat().st_size > 5_000, path
            assert not path.with_suffix(".pdf").exists(), path  # the default config leaves figures_pdf off


def test_logs_free_of_library_noise_and_files_group_readable(first_run):
    """No fontTools INFO lines in the summarise logs (thousands per PDF before); results
    files get 0666 less the umask (0644 under the usual 022), not a temporary file's 0600."""
    umask = os.umask(0)
    os.umask(umask)
    for log in (first_run / "results" / "logs" / "summarise").glob("*.log"):
        assert "fontTools" not in log.read_text(), log
    for path in [*(first_run / "results").glob("*.parquet"), *(first_run / "results" / "theory").glob("*.csv")]:
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask, path


def test_theory_summary_is_written(first_run):
    """results/theory/summary.csv (theory vs practice) and its report page, from every theory CSV."""
    from dpbench.reporting.summary import SUMMARY_COLUMNS
    from dpbench.theory_check.verdict import VERDICTS

    summary = pd.read_csv(first_run / "results" / "theory" / "summary.csv")
    assert list(summary.columns) == SUMMARY_COLUMNS and len(summary) > 0
    assert set(summary["verdict"]) <= set(VERDICTS)
    assert "Theory vs practice" in (first_run / "results" / "theory" / "summary.html").read_text()


def test_every_configured_learner_ran(first_run):
    config = yaml.safe_load(TINY_CONFIG.read_text())
    for exp, block in config["experiments"].items():
        df = pd.read_parquet(first_run / "results" / f"{exp}.parquet")
        learners = set(block.get("learners", []))
        for sweep in block.get("sweeps", []):
            learners |= set(sweep.get("learners", block.get("learners", [])))
        if exp == "privacy_audit":  # rows name the audited learner or mechanism
            learners = {name for sweep in block["sweeps"] for name in sweep["audits"]}
        assert set(df["learner"]) == learners, exp


def test_rerun_does_nothing(first_run):
    proc = run_snakemake(first_run, "-n")
    assert proc.returncode == 0
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_report_renders(tiny_report):
    """The report builds (the fixture checks snakemake's exit status), every caption is valid
    reStructuredText (no Docutils system message), it opens on the links to the experiments, and
    every theory table and every gallery (figures with captions) is in it."""
    html = tiny_report.read_text()
    assert len(html) > 10_000
    at = max(html.find("system-message"), html.find("System Message"))  # (no `not in` on 8 MB: its diff never ends)
    assert at < 0, f"a Docutils system message in the report: {html[at:at + 600]!r}"
    assert "(each: its theory check, its gallery" in html
    for exp in EXPERIMENTS:
        assert f"app.showCategory('{exp}')" in html, exp
        assert f"results/theory/{exp}.html" in html, exp
        assert f"results/report/{exp}_gallery.html" in html, exp
        for name, stem in figure_stems(exp).items():
            assert f"results/figures/{stem}.png" in html, stem


def test_same_config_gives_identical_results(first_run, tmp_path):
    """A second run from scratch (Parquet targets only) gives the same rows bit for bit."""
    proc = run_snakemake(tmp_path, *(f"results/{exp}.parquet" for exp in EXPERIMENTS))
    assert proc.returncode == 0, proc.stderr[-4000:]
    for exp in EXPERIMENTS:
        a = pd.read_parquet(first_run / "results" / f"{exp}.parquet").drop(columns=list(TIMING_COLUMNS))
        b = pd.read_parquet(tmp_path / "results" / f"{exp}.parquet").drop(columns=list(TIMING_COLUMNS))
        pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize(
    "mutate,line",
    [
        (lambda b: b.update(epsilon=[-1.0]), "experiments.conjunctions.epsilon[0]"),
        (lambda b: b.update(learners=["erm", "nonexistent_learner"]), "experiments.conjunctions.learners[1]: unknown learner"),
        (lambda b: b.update(repetitons=b.pop("repetitions")), "experiments.conjunctions.repetitons: unknown key 'repetitons'; did you mean 'repetitions'"),
    ],
    ids=["epsilon<=0", "unknown-learner", "typo-key"],
)
def test_bad_config_stops_before_any_job(tmp_path, mutate, line):
    """Through snakemake itself (a schema error, a registry error, a typo'd key): one line
    naming the file and key, exit status 2, no traceback, no job. Every other bad input
    (δ ≥ 1, n < 1, empty grids, bad parameters, ...) goes through the same
    ``dpbench.orchestration.config.from_dict`` in tests/test_config_errors.py and tests/test_cli.py."""
    config = yaml.safe_load(TINY_CONFIG.read_text())
    block = config["experiments"]["conjunctions"]
    config["experiments"] = {"conjunctions": block}
    mutate(block)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(config))
    proc = run_snakemake(tmp_path, configfile=path)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()], proc.stderr
    assert proc.stderr.startswith(f"invalid config {path}: ") and line in proc.stderr, proc.stderr
    assert not (tmp_path / "results").exists(), "no job may run on a bad config"


def test_failed_shard_leaves_no_parquet(tmp_path):
    """A learner that raises fails its job loudly; no partial shard file survives."""
    config = yaml.safe_load(TINY_CONFIG.read_text())
    block = config["experiments"]["conjunctions"]
    block.update(learners=["exp_mech_erm"], learner_params={"exp_mech_erm": {"max_hypotheses": "not-a-number"}})
    config["experiments"] = {"conjunctions": block}
    path = tmp_path / "fail.yaml"
    path.write_text(yaml.safe_dump(config))
    proc = run_snakemake(tmp_path, configfile=path)
    assert proc.returncode != 0
    runs = tmp_path / "results" / "runs"
    assert not runs.exists() or not list(runs.rglob("*.parquet"))
    shutil.rmtree(tmp_path / ".snakemake", ignore_errors=True)
