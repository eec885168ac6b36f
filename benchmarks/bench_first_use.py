"""Benchmark (run by hand): first-use CPU seconds, the per-job costs of :mod:`dpbench.orchestration.cost`.

    python benchmarks/bench_first_use.py [CONFIG ...] [--learners a,b]

A shard job pays, once, for what its first cell of a kind imports and compiles: numba and
scipy, dp-accounting, scikit-learn, a learner's module and the numba kernels it loads from
the on-disk cache. Each is measured here in a fresh interpreter with one BLAS thread that
first runs a warm-up shard of one small ``elimination`` cell (the runner's own start-up,
:data:`dpbench.orchestration.cost.JOB_OVERHEAD_SECONDS`):

- libraries: CPU seconds of importing each of :data:`dpbench.orchestration.cost.LIBRARY_IMPORTS`, in
  that order (each after the ones before it, so the costs add up);
- learners (and audit experiments): the learner's smallest cell (one repetition) run twice;
  first use = first run − second run − the libraries the first run imported (their
  measured cost above) − the one-off work the model charges per job through the
  learner's ``job_cost`` hook (``dp_sgd``'s accounting).

Run it twice after a change to a kernel: the first run after an edit compiles and writes
numba's cache (a one-off per checkout), the second measures loading it, as every later
shard job does. Prints the two tables of :mod:`dpbench.orchestration.cost` to paste.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

WARM = r"""
import json, sys, time
from dpbench.experiments.base import run_shard
from dpbench.foundation.cell import cells_from_json
run_shard(cells_from_json(sys.argv[1]), root_seed=0, out=sys.argv[2] + "/w.parquet")
"""

LIBRARIES = WARM + r"""
import importlib
from dpbench.orchestration.cost import LIBRARY_IMPORTS
out = {}
for name, modules in LIBRARY_IMPORTS.items():
    c0 = time.process_time()
    for m in modules:
        module, _, function = m.partition(":")
        if function:
            getattr(importlib.import_module(module), function)()
        elif not _:
            importlib.import_module(module)
    out[name] = time.process_time() - c0
print(json.dumps(out))
"""

LEARNER = WARM + r"""
cell = cells_from_json(sys.argv[3])
before = set(sys.modules)
c0 = time.process_time(); run_shard(cell, root_seed=0, out=sys.argv[2] + "/a.parquet"); c1 = time.process_time()
new = sorted(set(sys.modules) - before)
c2 = time.process_time(); run_shard(cell, root_seed=0, out=sys.argv[2] + "/b.parquet"); c3 = time.process_time()
print(json.dumps({"cold": c1 - c0, "warm": c3 - c2, "modules": new}))
"""


def smallest_cells(configs: list[str]) -> dict[str, object]:
    """learner (or experiment, for audit units) → its smallest cell, one repetition."""
    from dpbench.foundation import registry
    from dpbench.orchestration.config import load

    found: dict[str, object] = {}
    for path in configs:
        for exp, plan in load(path).experiments.items():
            for cell in plan.cells:
                name = exp if registry.experiment(exp).units is not None else cell.learner
                one = dataclasses.replace(cell, repetitions=1, first_rep=0)
                if name not in found or (one.size, str(one.key())) < (found[name].size, str(found[name].key())):
                    found[name] = one
    return found


def child(code: str, *args: str) -> dict:
    env = {**os.environ, **{v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}}
    out = subprocess.run([sys.executable, "-c", code, *args], check=True, env=env, cwd=REPO, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    from dpbench.foundation.cell import cells_to_json
    from dpbench.orchestration.cost import LIBRARY_IMPORTS, cell_cost, libraries_of

    parser = argparse.ArgumentParser()
    parser.add_argument("configs", nargs="*", default=[str(REPO / "config" / "config.yaml"), str(REPO / "config" / "paper.yaml")])
    parser.add_argument("--learners", help="comma-separated names (default: all of the configs')")
    args = parser.parse_args()
    cells = smallest_cells(args.configs)
    warm = cells_to_json([smallest_cells([str(REPO / "config" / "config.yaml")])["elimination"]])
    if args.learners:
        cells = {k: v for k, v in cells.items() if k in args.learners.split(",")}
    with tempfile.TemporaryDirectory(prefix="bench_first_use_") as tmp:
        libraries = child(LIBRARIES, warm, tmp)
        print("library imports (CPU s, each after the ones above):")
        for name, seconds in libraries.items():
            print(f"  {name:<16} {seconds:6.2f}  {' '.join(LIBRARY_IMPORTS[name])}")
        print(f"{'learner':<26} {'size':>7} {'cold s':>7} {'warm s':>7} {'per cell s':>10} {'first use s':>11}  libraries")
        own, used = {}, {}
        for name, cell in sorted(cells.items()):
            r = child(LEARNER, warm, tmp, cells_to_json([cell]))
            libs = used[name] = libraries_of(r["modules"])
            once = sum(v for k, v in cell_cost(cell).shared.items() if k[0] == "job" and k[1] not in ("import", "first_use"))
            own[name] = max(0.0, r["cold"] - r["warm"] - once - sum(libraries[lib] for lib in libs))
            print(f"{name:<26} {cell.size:>7} {r['cold']:>7.2f} {r['warm']:>7.2f} {once:>10.2f} {own[name]:>11.2f}  {','.join(libs)}", flush=True)
    print("LIBRARY_SECONDS =", json.dumps({k: round(v, 2) for k, v in libraries.items()}))
    print("FIRST_USE = {")
    for name in sorted(own):
        print(f"    {name!r}: ({own[name]:.2f}, {used[name]!r}),")
    print("}")


if __name__ == "__main__":
    main()
