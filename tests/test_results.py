"""The results schema: exact columns, atomic writes, no partial files."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from dpbench.foundation import results
from dpbench.foundation.results import SCHEMA, make_row, to_table, write_rows


def test_make_row_fills_every_column_and_rejects_unknown():
    row = make_row(experiment="x", error=0.5)
    assert list(row) == SCHEMA.names and row["error"] == 0.5 and row["n"] is None
    with pytest.raises(KeyError, match="no_such_column"):
        make_row(no_such_column=1)


def test_to_table_rejects_missing_or_extra_keys():
    row = make_row(experiment="x")
    del row["error"]
    with pytest.raises(KeyError, match="error"):
        to_table([row])


def test_write_is_atomic_and_typed(tmp_path):
    out = tmp_path / "a" / "b.parquet"
    write_rows([make_row(experiment="x", epsilon=float("inf"), n=10, private=True)], out)
    table = pq.read_table(out)
    assert table.schema.equals(SCHEMA)
    assert table.column("epsilon")[0].as_py() == float("inf")
    assert [p.name for p in out.parent.iterdir()] == ["b.parquet"]


def test_failed_write_leaves_no_file(tmp_path, monkeypatch):
    out = tmp_path / "c.parquet"

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(results.pq, "write_table", boom)
    with pytest.raises(RuntimeError):
        write_rows([make_row(experiment="x")], out)
    assert list(tmp_path.iterdir()) == []


def test_wrong_type_raises():
    with pytest.raises(Exception):
        to_table([make_row(n="many")])
