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


def test_problem_params_keep_builtin_columns_and_carry_any_parameter(tmp_path):
    """Built-in parameters fill their typed columns; every parameter (a plugin problem's own
    too) is in the ``problem_params`` JSON object, types kept."""
    import json

    import numpy as np

    columns = results.problem_param_columns({"d": np.int64(10), "skew": 3.0, "monotone": False, "spread": 0.25})
    assert columns["d"] == 10 and type(columns["d"]) is int and "spread" not in columns
    row = make_row(experiment="x", **columns)
    out = tmp_path / "p.parquet"
    write_rows([row], out)
    df = results.read_results(out)
    assert df["d"][0] == 10 and df["skew"][0] == 3.0
    assert json.loads(df["problem_params"][0]) == {"d": 10, "monotone": False, "skew": 3.0, "spread": 0.25}
    with pytest.raises(Exception):  # a parameter under a built-in name keeps the column's type
        to_table([make_row(**results.problem_param_columns({"d": "ten"}))])


def test_files_carry_schema_and_package_version(tmp_path):
    from importlib.metadata import version

    shard = tmp_path / "runs" / "000.parquet"
    write_rows([make_row(experiment="x")], shard)
    expected = {results.METADATA_SCHEMA_VERSION: str(results.SCHEMA_VERSION),
                results.METADATA_PACKAGE_VERSION: version("dpbench-learning")}
    assert results.read_metadata(shard) == expected
    assert pq.read_table(shard).column("dpbench_version")[0].as_py() == version("dpbench-learning")
    out = tmp_path / "x.parquet"
    results.concat([shard, shard], out)
    assert results.read_metadata(out) == expected and pq.read_table(out).num_rows == 2
    # a shard of another schema version (or none: written before version 2) is refused
    old = tmp_path / "old.parquet"
    pq.write_table(pq.read_table(shard).replace_schema_metadata(None), old)
    with pytest.raises(ValueError, match="version 2; the file's: none"):
        results.concat([shard, old], out)


def _parquet_bytes(table) -> bytes:
    import io

    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()


def test_to_table_builds_what_pyarrows_converter_builds():
    """to_table lays the plain values out in Arrow buffers itself (pyarrow's Python-sequence
    converter imports pandas): the Parquet file must be byte-identical to ``Table.from_pylist``'s
    on every kind of value a row holds — None, NaN, ±inf, ints in double columns (up to 2⁵³,
    and 2⁵³ + 1, which pyarrow refuses), numpy scalars, bools, empty and non-ASCII strings —
    and a value pyarrow refuses must still raise."""
    import numpy as np
    import pyarrow as pa

    values = {
        "epsilon": [1.0, float("inf"), None, float("nan"), 2, np.float64(0.5), -(2**53), 2**53],
        "rep": [0, None, 3, np.int64(7), 2**62, -5, 1, 2],
        "private": [True, False, None, np.bool_(True), True, False, True, False],
        "learner": ["erm", "", None, "privdl", "ε-greedy", "x" * 300, "a", "b"],
        "problem": ["p"] * 8,
    }
    rows = [make_row(experiment="conjunctions", **{k: v[i] for k, v in values.items()}) for i in range(8)]
    for row, (eps, rep) in zip(rows, zip(values["epsilon"], values["rep"])):
        row["epsilon"], row["rep"] = eps, rep  # numpy scalars as a learner's diagnostics would give them
    reference = pa.Table.from_pylist(rows, schema=SCHEMA).replace_schema_metadata(results.file_metadata())
    assert _parquet_bytes(to_table(rows)) == _parquet_bytes(reference)
    for subset in (rows[:1], rows[2:3], []):
        reference = pa.Table.from_pylist(subset, schema=SCHEMA).replace_schema_metadata(results.file_metadata())
        assert _parquet_bytes(to_table(subset)) == _parquet_bytes(reference)
    def outcome(build, row, column):
        try:
            return build([row]).column(column).to_pylist()
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            return type(exc).__name__

    for column, bad in (("epsilon", 2**53 + 1), ("epsilon", "1.0"), ("rep", 1.5), ("rep", True), ("private", 1), ("learner", 3)):
        row = make_row(experiment="conjunctions")
        row[column] = bad
        theirs = outcome(lambda rows: pa.Table.from_pylist(rows, schema=SCHEMA), row, column)
        assert outcome(to_table, row, column) == theirs  # pyarrow's own conversion, or its own error
    assert theirs == "ArrowTypeError"  # (the last: an int in a string column)
