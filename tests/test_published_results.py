"""The published reference results (docs/paper) still come out of the code (issue 32 item 6):
two cheap shards of the published config are re-run and their rows compared, bit for bit
outside timings and code/config hashes (:data:`dpbench.reporting.publish.NOT_COMPARED`),
with the published raw Parquet — on the library stack SOURCE.md records; on another stack
the test is skipped, naming what differs.

The check itself is shown to fail on a tiny published directory whose one value is
perturbed (fast), and to pass on the unperturbed one.
"""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from dpbench.reporting.publish import (
    RAW_DIR,
    cheapest_shards,
    read_source,
    rerun,
    row_differences,
    source_page,
    stack_mismatch,
)
from tests.conftest import REPO, TINY_CONFIG

PAPER = REPO / "docs" / "paper"


def drift(published, workdir, shards: int = 2) -> list[str]:
    """Re-run the ``shards`` cheapest shards of ``published/config.yaml`` in ``workdir`` and
    list every difference from ``published/results/*.parquet`` (empty: none). Skips (with the
    reason) where the directory has no raw results yet, or was published on another stack."""
    if not (published / RAW_DIR).is_dir():
        pytest.skip(f"{published} has no raw Parquet yet: republished by the paper run (issue 32)")
    why = stack_mismatch(published)
    if why:
        pytest.skip(f"rows published on {why}: bit-identical rows are not expected")
    problems = []
    for experiment, cells in cheapest_shards(published / "config.yaml", shards):
        rows = rerun(published / "config.yaml", experiment, cells, workdir / f"{experiment}.parquet")
        problems += [
            f"{experiment}: {p}"
            for p in row_differences(pd.read_parquet(published / RAW_DIR / f"{experiment}.parquet"), rows)
        ]
    return problems


@pytest.mark.slow
def test_the_published_paper_rows_come_out_of_the_code(tmp_path):
    """docs/paper: two shards of its config re-run give its published rows (≈ 3 CPU-minutes)."""
    assert drift(PAPER, tmp_path) == []


@pytest.fixture(scope="module")
def tiny_published(tmp_path_factory):
    """A published directory made the cheap way: the tiny config, the rows of its two
    cheapest shards as its raw results, SOURCE.md with this machine's stack."""
    from dpbench.foundation.machine import row_stack

    out = tmp_path_factory.mktemp("published")
    (out / RAW_DIR).mkdir()
    shutil.copyfile(TINY_CONFIG, out / "config.yaml")
    for experiment, cells in cheapest_shards(TINY_CONFIG, 2):
        rerun(TINY_CONFIG, experiment, cells, out / RAW_DIR / f"{experiment}.parquet")
    (out / "SOURCE.md").write_text(source_page({"commit": "test", **{f"stack.{k}": v for k, v in row_stack().items()}}))
    return out


def test_drift_passes_on_unchanged_rows(tiny_published, tmp_path):
    assert (
        sorted(p.stem for p in (tiny_published / RAW_DIR).glob("*.parquet")) and drift(tiny_published, tmp_path) == []
    )


def test_drift_fails_on_a_perturbed_published_value(tiny_published, tmp_path):
    """One published number changed in the last bit of a copy: the check names it."""
    copy = tmp_path / "copy"
    shutil.copytree(tiny_published, copy)
    path = sorted((copy / RAW_DIR).glob("*.parquet"))[0]
    df = pd.read_parquet(path)
    column = next(
        c
        for c in df.select_dtypes("float").columns
        if c not in ("fit_seconds", "epsilon", "delta") and df[c].notna().any()
    )
    row = df.index[df[column].notna()][0]
    value = df.loc[row, column]
    df.loc[row, column] = np.nextafter(value, np.inf)  # the next float: one bit
    df.to_parquet(path)
    problems = drift(copy, tmp_path / "work")
    assert (
        len(problems) == 1
        and problems[0].startswith(f"{path.stem}: {column}: 1 of ")
        and df.loc[row, "cell_key"] in problems[0]
    ), problems


def test_drift_fails_on_missing_published_rows(tiny_published, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(tiny_published, copy)
    path = sorted((copy / RAW_DIR).glob("*.parquet"))[0]
    df = pd.read_parquet(path)
    df.iloc[1:].to_parquet(path)
    assert "rows re-run" in " ".join(drift(copy, tmp_path / "work"))


def test_another_stack_is_skipped_with_the_reason(tiny_published, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(tiny_published, copy)
    source = read_source(copy) | {"stack.numpy": "1.0.0"}
    (copy / "SOURCE.md").write_text(source_page(source))
    assert stack_mismatch(copy).startswith("another library stack: numpy 1.0.0 published, ")
    with pytest.raises(pytest.skip.Exception, match="numpy 1.0.0 published"):
        drift(copy, tmp_path / "work")


def test_no_raw_results_yet_is_skipped_saying_so(tmp_path):
    with pytest.raises(pytest.skip.Exception, match="republished by the paper run"):
        drift(tmp_path, tmp_path)


def test_row_comparison_is_bit_for_bit_and_over_every_column():
    """-0.0 against 0.0, a value that changes when a widened column is compared in the
    published dtype, and a column only one side has are differences (== would pass the first
    and never see the last); a dtype the collection widened (int -> float) is not."""
    import numpy as np
    import pandas as pd

    from dpbench.reporting.publish import row_differences

    rows = pd.DataFrame({"cell_key": ["a", "a", "b"], "rep": [0, 1, 0], "x": [0.0, 1.0, np.nan], "k": [1, 2, 3]})
    assert row_differences(rows, rows.copy()) == []
    assert row_differences(rows, rows.assign(x=[-0.0, 1.0, np.nan])) != []
    assert row_differences(rows.assign(k=rows["k"].astype(float)), rows) == []  # published widened, same values
    assert row_differences(rows.assign(k=[1.0, 2.0, 3.5]), rows) != []
    assert row_differences(rows, rows.assign(extra=1)) != []
    assert row_differences(rows.assign(extra=1), rows) != []
