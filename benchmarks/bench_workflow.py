"""Benchmark: the default workflow (config/config.yaml) from scratch — wall time and jobs.

Runs `snakemake --cores all` in a fresh temporary directory (its own results/), after a
dry run that counts the jobs. Run: python benchmarks/bench_workflow.py [CONFIG]
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def snakemake(workdir: Path, config: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--configfile", str(config), "--cores", "all", *args]
    return subprocess.run(cmd, capture_output=True, text=True)


def main(config: Path = REPO / "config" / "config.yaml") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        start = time.perf_counter()
        dry = snakemake(workdir, config, "-n")
        dag_seconds = time.perf_counter() - start
        counts = dict(re.findall(r"^(\w+)\s+(\d+)$", dry.stdout, flags=re.M))
        start = time.perf_counter()
        run = snakemake(workdir, config)
        wall = time.perf_counter() - start
        if run.returncode != 0:
            print(run.stderr[-3000:])
            raise SystemExit("workflow failed")
        print(f"config: {config.relative_to(REPO)}")
        print(f"jobs: {counts.get('total')} ({', '.join(f'{k} {v}' for k, v in counts.items() if k != 'total')})")
        print(f"dry run (DAG build): {dag_seconds:.1f} s")
        print(f"wall time, from scratch: {wall:.1f} s")
        start = time.perf_counter()
        again = snakemake(workdir, config)
        print(f"re-run (nothing to do): {time.perf_counter() - start:.1f} s, "
              f"{'nothing to be done' if 'Nothing to be done' in again.stdout + again.stderr else 'JOBS RAN AGAIN'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else REPO / "config" / "config.yaml")
