"""``dpbench publish``: a finished run's figures, theory/audit CSVs and report page, with the
commit and config they came from (issue 22)."""

from __future__ import annotations

import numpy as np
import pytest

from dpbench.cli import main
from dpbench.orchestration.config import load
from dpbench.reporting.publish import RAW_DIR, expected_files, read_source
from tests.conftest import TINY_CONFIG


def _fake_run(root, experiments, numpy_version=None, code_hash=None):
    """A run directory holding every file a run of the tiny config writes (placeholder
    contents: publish copies, it does not read figures; rows carry this checkout's code_hash
    of a tiny-config cell unless told otherwise)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from dpbench.foundation.provenance import cell_code_hash

    code_hash = code_hash or cell_code_hash(next(iter(load(TINY_CONFIG).experiments.values())).cells[0])

    for name, path in expected_files(root, experiments).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".parquet"):  # publish reads the NumPy version its rows were made with
            pq.write_table(pa.table({"numpy_version": [numpy_version or np.__version__], "code_hash": [code_hash]}), path)
        else:
            csv = "verdict,curve\nagrees,a\nagrees,b\nfails,c\n"
            path.write_text(csv if name.endswith(".csv") else f"png of {name}")
    return root


def test_publish_copies_everything_with_its_provenance(tmp_path, capsys):
    experiments = list(load(TINY_CONFIG).experiments)
    run = _fake_run(tmp_path / "results", experiments)
    out = tmp_path / "docs" / "paper"
    assert main(["publish", str(run), "--config", str(TINY_CONFIG), "--out", str(out)]) == 0
    for name, path in expected_files(run, experiments).items():
        assert (out / name).read_bytes() == path.read_bytes(), name
    assert (out / "config.yaml").read_bytes() == TINY_CONFIG.read_bytes()
    source = (out / "SOURCE.md").read_text()
    assert "commit: `" in source and "config_sha256" in source and "shard_cpu_hours" not in source  # no logs in this run
    facts = read_source(out)  # the machine and the library stack, read back
    assert facts["cores"].isdigit() and facts["cpu"] and "lib.matplotlib" in facts
    assert facts["stack.numpy"] == np.__version__
    assert sorted(out.glob("results/*.parquet")) and "(results/conjunctions.parquet)" in (out / "README.md").read_text()
    page = (out / "README.md").read_text()
    assert "theory/privacy_audit.csv" in page and "agrees 2, fails 1" in page
    assert all(f"({name})" in page for name in expected_files(run, experiments) if name.endswith(".png"))
    # publishing again replaces the directory whole: a stale file does not survive
    (out / "stale.png").write_text("old")
    assert main(["publish", str(run), "--config", str(TINY_CONFIG), "--out", str(out)]) == 0
    assert not (out / "stale.png").exists()


def test_an_incomplete_run_is_refused_and_nothing_is_written(tmp_path, capsys):
    experiments = list(load(TINY_CONFIG).experiments)
    run = _fake_run(tmp_path / "results", experiments)
    (run / "theory" / "privacy_audit.csv").unlink()
    out = tmp_path / "paper"
    assert main(["publish", str(run), "--config", str(TINY_CONFIG), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "missing" in err and "privacy_audit.csv" in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and list(tmp_path.iterdir()) == [run]


def test_rows_of_another_numpy_are_refused(tmp_path, capsys):
    """SOURCE.md records publish's own stack as the rows': rows made with another NumPy stop it."""
    experiments = list(load(TINY_CONFIG).experiments)
    run = _fake_run(tmp_path / "results", experiments, numpy_version="1.0.0")
    assert main(["publish", str(run), "--config", str(TINY_CONFIG), "--out", str(tmp_path / "paper")]) == 2
    err = capsys.readouterr().err
    assert "rows made with numpy 1.0.0" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "paper").exists()


def test_rows_of_other_code_are_refused_unless_their_commit_is_given(tmp_path, capsys):
    """A stale run (rows whose code_hash is not this checkout's) would go out under this
    commit: refused in one line; with --rows-from COMMIT it is published and SOURCE.md says
    which commit the rows came from."""
    experiments = list(load(TINY_CONFIG).experiments)
    run = _fake_run(tmp_path / "results", experiments, code_hash="0123456789abcdef")
    assert main(["publish", str(run), "--config", str(TINY_CONFIG), "--out", str(tmp_path / "paper")]) == 2
    err = capsys.readouterr().err
    assert "other code than this checkout's" in err and "--rows-from" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "paper").exists()
    assert main(["publish", str(run), "--config", str(TINY_CONFIG), "--out", str(tmp_path / "paper"), "--rows-from", "abc1234"]) == 0
    assert read_source(tmp_path / "paper")["rows_commit"] == "abc1234"


@pytest.mark.slow
def test_publish_a_real_run_of_the_tiny_config(tiny_run, tiny_report, tmp_path):
    """The tiny config through snakemake, its report, then publish: the real figures (the run
    and its report are tests/conftest.py's, shared with the other end-to-end tests)."""
    out = tmp_path / "published"
    assert main(["publish", str(tiny_run / "results"), "--config", str(TINY_CONFIG), "--out", str(out), "--report", str(tiny_report)]) == 0
    pngs = sorted(out.glob("figures/*.png"))
    assert pngs and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    assert (out / "report.html").stat().st_size > 10_000
    # the run's shard jobs logged their CPU: the page gives the sum beside the plan's prediction
    jobs = len(list((tiny_run / "results" / "logs" / "run_shard").glob("*/*.log")))
    source = (out / "SOURCE.md").read_text()
    assert f"shard_jobs: `{jobs}`" in source and "shard_cpu_hours" in source and "predicted_cpu_hours" in source
    assert "CPU-hours (each job's logged process CPU)" in (out / "README.md").read_text()


def test_the_published_paper_run_is_complete_and_self_consistent():
    """docs/paper (the reference results the README links to) holds every file a run of its
    own config.yaml must publish, its SOURCE.md names that config by its SHA-256, and every
    figure and CSV its page links to is there."""
    import hashlib
    import re

    from tests.conftest import REPO

    paper = REPO / "docs" / "paper"
    config = paper / "config.yaml"
    source = (paper / "SOURCE.md").read_text()
    assert f"config_sha256: `{hashlib.sha256(config.read_bytes()).hexdigest()}`" in source
    missing = [name for name in expected_files(paper, list(load(config).experiments)) if not (paper / name).is_file()]
    assert [name for name in missing if not name.startswith(f"{RAW_DIR}/")] == []
    page = (paper / "README.md").read_text()
    links = re.findall(r"\]\(([^)#]+)\)", page)
    assert links and all((paper / link).is_file() for link in links), [link for link in links if not (paper / link).is_file()]
    if missing:
        pytest.xfail(f"no raw Parquet ({missing[0]}, ...): republished by the paper run (issue 32)")
