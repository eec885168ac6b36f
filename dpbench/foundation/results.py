"""The one tidy results schema, and Parquet I/O (docs/results.md).

One row per (cell, repetition, checkpoint). Columns an experiment does not use are null.
Every experiment writes through :func:`make_row` and :func:`write_rows`, so a new column is
added here (and in ``tests/test_results.py``), never ad hoc. Files are written atomically
(temporary file, then rename): a failed job never leaves a Parquet file that looks complete.

Problem parameters: the built-in problems' parameters have typed columns of their own (the
figures and the theory check read them); every parameter of a cell's problem, built-in or
not, is also in ``problem_params``, a JSON object (:func:`problem_param_columns`), so a
plugin problem with parameters of its own writes rows without a schema change.

Every file carries :data:`SCHEMA_VERSION` and the installed package's version in its
key-value metadata (:data:`METADATA_SCHEMA_VERSION`, :data:`METADATA_PACKAGE_VERSION`;
:func:`file_metadata`).
"""

from __future__ import annotations

import builtins
import json
import operator
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import dpbench

if TYPE_CHECKING:  # a shard job writes rows and needs no pandas (read_results' to_pandas imports it)
    import pandas as pd

#: version of :data:`SCHEMA`: raised whenever a column is added, removed, renamed or retyped
#: (1: the schema up to 110e06c; 2: ``problem_params`` added, the file metadata below)
SCHEMA_VERSION = 2
#: key-value metadata keys of every results file
METADATA_SCHEMA_VERSION = "dpbench.schema_version"
METADATA_PACKAGE_VERSION = "dpbench.version"

_STR, _F64, _I64, _BOOL = pa.string(), pa.float64(), pa.int64(), pa.bool_()

SCHEMA = pa.schema(
    [
        # identity
        ("experiment", _STR),
        ("problem", _STR),
        ("problem_id", _STR),
        ("learner", _STR),
        ("private", _BOOL),
        ("epsilon", _F64),  # inf = non-private limit / non-private learner
        ("delta", _F64),
        ("n", _I64),  # batch sample size
        ("T", _I64),  # online horizon
        ("t", _I64),  # checkpoint within an online run (null for batch)
        ("rep", _I64),
        # problem parameters (names shared by all problems)
        ("d", _I64),
        ("k", _I64),
        ("l", _I64),
        ("r", _I64),
        ("s", _I64),
        ("rho", _F64),
        ("noise", _F64),
        ("p", _F64),
        ("skew", _F64),
        ("gap", _F64),
        ("monotone", _BOOL),
        ("kind", _STR),
        ("order", _STR),
        ("domain", _STR),
        ("n_features", _I64),  # |F| for decision lists, N for halfspaces
        ("log_class_size", _F64),  # ln |C| of the hypothesis class
        ("problem_params", _STR),  # every problem parameter, as a JSON object (plugin problems' too)
        # learner diagnostics
        ("eta", _F64),
        ("sigma", _F64),
        ("updates", _I64),
        ("mistake_bound", _F64),  # online: the run's proven (or calibrated, w.p. 1 − β) mistake bound
        # metrics
        ("error", _F64),
        ("train_error", _F64),
        ("regret", _F64),
        ("expected_regret", _F64),
        ("mistakes", _I64),
        ("loss", _F64),
        ("excess_loss", _F64),
        ("pop_excess_loss", _F64),  # private_erm: excess population risk (dpbench.experiments.private_erm.population_metrics)
        # cost
        ("fit_seconds", _F64),
        # outcome
        ("status", _STR),  # ok / skipped / failed / timeout
        ("reason", _STR),
        # privacy as claimed by the learner's guarantee()
        ("eps_reported", _F64),
        ("delta_reported", _F64),
        ("neighbours", _STR),
        # privacy audit (experiment privacy_audit): one row per (audited name, variant)
        ("variant", _STR),  # correct / broken
        ("epsilon_lower_bound", _F64),
        ("epsilon_exact", _F64),
        ("tightness", _F64),  # epsilon_lower_bound / epsilon_exact
        ("verdict", _STR),  # pass / violation / no_power (dpbench.audits.engine.judge)
        ("audit", _STR),  # end_to_end / component / mechanism
        ("method", _STR),  # threshold (Clopper–Pearson) / gdp / tradeoff (trade-off curve)
        ("audit_runs", _I64),  # runs per side of the row (≤ n where a case caps its runs)
        ("confidence", _F64),
        ("instance", _STR),
        ("audit_note", _STR),  # how a broken copy is broken; why a bound falls short (dpbench.audits.engine.shortfall_note)
        # provenance
        ("cell_key", _STR),
        ("root_seed", _I64),
        ("config_hash", _STR),
        ("code_hash", _STR),  # fingerprint of the source the cell ran (dpbench.foundation.provenance)
        ("dpbench_version", _STR),
        ("numpy_version", _STR),
    ]
)

_COLUMNS = frozenset(SCHEMA.names)


def file_metadata() -> dict[bytes, bytes]:
    """The key-value metadata of every results file: the schema version and the version of
    the installed ``dpbench-learning`` distribution that wrote it."""
    return {METADATA_SCHEMA_VERSION.encode(): str(SCHEMA_VERSION).encode(),
            METADATA_PACKAGE_VERSION.encode(): dpbench.__version__.encode()}


def read_metadata(path: str | os.PathLike) -> dict[str, str]:
    """A results file's dpbench metadata: ``{"dpbench.schema_version": ..., "dpbench.version": ...}``
    (empty for a file written before schema version 2)."""
    metadata = pq.read_schema(path).metadata or {}
    keys = (METADATA_SCHEMA_VERSION, METADATA_PACKAGE_VERSION)
    return {key: metadata[key.encode()].decode() for key in keys if key.encode() in metadata}


#: Columns that legitimately differ between two runs of the same config.
TIMING_COLUMNS = ("fit_seconds",)


def make_row(**values: object) -> dict[str, object]:
    """A full row: every schema column, null unless given; unknown names raise.

    Raises
    ------
    KeyError
        naming the keys that are not schema columns.
    """
    extra = set(values) - _COLUMNS
    if extra:
        raise KeyError(f"not results-schema columns: {sorted(extra)}")
    row = dict.fromkeys(SCHEMA.names)
    row["dpbench_version"] = dpbench.__version__  # the installed distribution's (importlib.metadata)
    row["numpy_version"] = np.__version__
    for name, value in values.items():
        row[name] = value.item() if isinstance(value, np.generic) else value
    return row


def problem_param_columns(params: dict[str, object]) -> dict[str, object]:
    """The row columns of a cell's problem parameters: ``problem_params``, the JSON object of
    every parameter (sorted keys; JSON keeps int, float, bool and str apart), and each
    parameter that has a column of its own (the built-in problems' names) in that column.

    A plugin problem's parameter that is not a schema column is only in ``problem_params``
    (read it back with ``json.loads``); one that shares a built-in column's name must have
    that column's type.
    """
    plain = {name: value.item() if isinstance(value, np.generic) else value for name, value in params.items()}
    columns = {name: value for name, value in plain.items() if name in _COLUMNS}
    columns["problem_params"] = json.dumps(plain, sort_keys=True)
    return columns


def to_table(rows: Sequence[dict[str, object]]) -> pa.Table:
    """Rows → a table of exactly :data:`SCHEMA`; rows with missing/extra keys raise.

    The keys are checked first (a missing key would otherwise be a silent null), then each
    column is built by :func:`_column`, which imports no pandas.
    """
    names = set(SCHEMA.names)
    for i, row in enumerate(rows):
        if set(row) != names:
            missing, extra = sorted(names - set(row)), sorted(set(row) - names)
            raise KeyError(f"row {i}: missing columns {missing}, unknown columns {extra}")
    by_column = list(zip(*map(operator.itemgetter(*SCHEMA.names), rows))) or [()] * len(SCHEMA)
    columns = [_column(values, field.type) for values, field in zip(by_column, SCHEMA)]
    return pa.Table.from_arrays(columns, schema=SCHEMA).replace_schema_metadata(file_metadata())


def _column(values: Sequence[object], type: pa.DataType) -> pa.Array:
    """One column of :func:`to_table`: the array ``pa.array(values, type=type)`` gives.

    pyarrow's conversion of Python sequences (``pa.array``, ``Table.from_pylist``) imports
    pandas on its first call (it asks whether the input is a pandas object), ~0.2 CPU-s that
    every shard job paid to write its rows. The plain values rows hold — None; float (numpy's
    float64 included) or int for a double, ints only where a double holds them exactly (|v| ≤
    2⁵³); int for an int64; bool; str — are laid out here in Arrow's buffers instead
    (``pa.Array.from_buffers``: a validity bitmap, least significant bit first, then the
    values, or int32 offsets and the UTF-8 bytes of a string column), which gives the same
    array; a column holding anything else (a float in an int64 column, a float32, an int out
    of range, a value of the wrong kind) goes to ``pa.array``, which converts it or raises as
    it always did. A column of nulls only (most of a row's columns: another experiment's) is
    ``pa.nulls``."""
    n = len(values)
    if not any(value is not None for value in values):
        return pa.nulls(n, type)
    objects = np.empty(n, dtype=object)
    objects[:] = values
    valid = np.not_equal(objects, None)
    present = objects[valid]
    kinds = set(map(builtins.type, present))
    validity = None if len(present) == n else pa.py_buffer(np.packbits(valid, bitorder="little"))
    buffers = None
    if type == _F64 and kinds <= {float, np.float64, int} and (int not in kinds or _ints_within(present, 2**53)):
        buffers = [validity, _filled(present, valid, np.float64)]
    elif type == _I64 and kinds <= {int, np.int64} and _ints_within(present, 2**63 - 1):
        buffers = [validity, _filled(present, valid, np.int64)]
    elif type == _BOOL and kinds <= {bool, np.bool_}:
        buffers = [validity, pa.py_buffer(np.packbits(_filled(present, valid, bool, wrap=False), bitorder="little"))]
    elif type == _STR and kinds <= {str}:
        text = "".join(present)
        if text.isascii():  # one byte a character
            lengths = np.zeros(n, dtype=np.int64)
            lengths[valid] = np.fromiter(map(len, present), dtype=np.int64, count=len(present))
            offsets = np.concatenate([[0], np.cumsum(lengths)])
            if offsets[-1] < 2**31:
                buffers = [validity, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(text.encode("ascii"))]
    if buffers is None:
        return pa.array(values, type=type)
    return pa.Array.from_buffers(type, n, buffers, null_count=n - len(present))


def _ints_within(present: np.ndarray, bound: int) -> bool:
    """Every Python int among ``present`` has |v| ≤ ``bound``."""
    ints = [v for v in present if v.__class__ is int]
    return not ints or (max(ints) <= bound and min(ints) >= -bound)


def _filled(present: np.ndarray, valid: np.ndarray, dtype: Any, *, wrap: bool = True) -> Any:
    """The values at the valid slots, zero elsewhere, as ``dtype`` (an Arrow buffer if ``wrap``)."""
    data = np.zeros(len(valid), dtype=dtype)
    data[valid] = present.astype(dtype)
    return pa.py_buffer(data) if wrap else data


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike, write: Callable[[str], object]) -> None:
    """``write(tmp)`` into a temporary file beside ``path``, then rename it to ``path``: a
    failed write never leaves a file that looks complete. The file gets the mode a plain
    ``open(path, "w")`` would (0666 less the umask: 0644 under the usual 022, readable by
    the group on a shared cluster file system), not the temporary file's 0600."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_write`)."""
    atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def write_rows(rows: Sequence[dict[str, object]], path: str | os.PathLike) -> None:
    """Write rows (checked against :data:`SCHEMA`) to Parquet, atomically."""
    table = to_table(rows)
    atomic_write(path, lambda tmp: pq.write_table(table, tmp))


def concat(paths: Iterable[str | os.PathLike], out: str | os.PathLike) -> None:
    """Concatenate shard files into one experiment file, atomically, checking the schema."""
    tables = []
    for p in paths:
        table = pq.read_table(p)
        version = read_metadata(p).get(METADATA_SCHEMA_VERSION)
        if not table.schema.equals(SCHEMA) or version != str(SCHEMA_VERSION):
            raise ValueError(f"{p}: schema differs from dpbench.foundation.results.SCHEMA (version {SCHEMA_VERSION}; "
                             f"the file's: {version or 'none'}): re-run its shard")
        tables.append(table.replace_schema_metadata(None))
    table = (pa.concat_tables(tables) if tables else SCHEMA.empty_table()).replace_schema_metadata(file_metadata())
    atomic_write(out, lambda tmp: pq.write_table(table, tmp))


def read_results(path: str | os.PathLike) -> pd.DataFrame:
    """A results file as a DataFrame with nullable dtypes."""
    return pq.read_table(path).to_pandas()
