"""Import first in a benchmark: one BLAS/OpenMP thread, as the workflow runs every job
(``threads: 1`` — Snakemake sets these variables to the job's threads), and a timer that
takes the best of several runs (timings on a shared machine are noisy; ratios to a baseline
timed in the same run are what the benchmarks report)."""

from __future__ import annotations

import os
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"


def best_of(fn, repeat: int = 5) -> float:
    """Seconds of the fastest of ``repeat`` calls of ``fn()``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def interleaved(fns: dict, repeat: int = 5, clock=time.perf_counter) -> dict:
    """Best seconds of each ``fns[name]()``, the calls interleaved (a burst of load on the
    machine hits every candidate alike). ``clock=time.process_time``: CPU seconds of this
    process instead of wall time (single-threaded work on a machine shared with other jobs)."""
    times: dict = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = clock()
            fn()
            times[name].append(clock() - start)
    return {name: min(t) for name, t in times.items()}
