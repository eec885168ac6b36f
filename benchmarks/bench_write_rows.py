"""Benchmark: a shard job writing its rows — dpbench.foundation.results.write_rows (columns
laid out in Arrow buffers, no pandas) against pyarrow's ``Table.from_pylist`` (the plain
version, which imports pandas on its first call), each in a fresh interpreter that has
imported what workflow/scripts/run_shard.py imports.

Rows are those of the published paper run (docs/paper/results/*.parquet) at the sizes its
shards and the default run's write (25 to 35,540 rows). Two cases per size: pandas not yet
imported (a shard whose learners do not use it: the saving is its import) and pandas already
imported (a learner pulled it in through scikit-learn: only the conversion counts). Prints
CPU seconds (best of N, the two versions interleaved) and plain / write_rows per case.
Run: python benchmarks/bench_write_rows.py [--repeat N]
"""

from __future__ import annotations

import argparse
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CASES = [("privacy_audit", 25), ("private_erm", 1215), ("conjunctions", 2400), ("decision_lists", 7830),
         ("halfspaces_online", 35540)]  # fmt: skip

WRITER = """
import pickle, sys, time
import dpbench.experiments.base  # what run_shard.py imports
from dpbench.foundation import results
mode, rows_path, out, preload = sys.argv[1:5]
rows = pickle.load(open(rows_path, "rb"))
if preload == "1":
    import pandas  # noqa: F401
start = time.process_time()
if mode == "write_rows":
    results.write_rows(rows, out)
else:
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pa.Table.from_pylist(rows, schema=results.SCHEMA).replace_schema_metadata(results.file_metadata())
    results.atomic_write(out, lambda tmp: pq.write_table(table, tmp))
print(time.process_time() - start)
"""


def rows_of(experiment: str, n: int) -> list[dict]:
    import pyarrow.parquet as pq

    return pq.read_table(REPO / "docs" / "paper" / "results" / f"{experiment}.parquet").slice(0, n).to_pylist()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        header = ("experiment", "rows", "pandas", "plain s", "write_rows s", "plain / write_rows")
        print("{:18s} {:>6s} {:>8s} {:>8s} {:>12s} {:>19s}".format(*header))
        for experiment, n in CASES:
            path = Path(tmp) / f"{experiment}.pkl"
            path.write_bytes(pickle.dumps(rows_of(experiment, n)))
            out = str(Path(tmp) / "out.parquet")
            for preload in ("0", "1"):
                best = {"plain": float("inf"), "write_rows": float("inf")}
                for i in range(args.repeat):
                    for mode in ("plain", "write_rows") if i % 2 == 0 else ("write_rows", "plain"):
                        command = [sys.executable, "-c", WRITER, mode, str(path), out, preload]
                        done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=tmp)
                        best[mode] = min(best[mode], float(done.stdout))
                state = "loaded" if preload == "1" else "not yet"
                print(f"{experiment:18s} {n:6d} {state:>8s} {best['plain']:8.3f} {best['write_rows']:12.3f} "
                      f"{best['plain'] / best['write_rows']:19.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
