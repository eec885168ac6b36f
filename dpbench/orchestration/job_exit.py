"""How a rule script ends (workflow/scripts/): its whole CPU on its log, then the process gone
without the interpreter's teardown.

A job's outputs are complete and renamed into place before its script ends
(:func:`dpbench.foundation.results.atomic_write`); what Python does after the last statement —
finalising every imported module, collecting the heap, running atexit hooks — writes nothing
a run reads, and costs 0.15–0.5 CPU-s a job (pandas, SciPy, scikit-learn, matplotlib,
dp-accounting, measured one library at a time), counted outside cells. So the script flushes
its log and standard streams and leaves with ``os._exit(0)``. A script that raises never gets
here: the traceback and non-zero status are Python's, as before.
"""

from __future__ import annotations

import logging
import os
import resource
import sys
from typing import NoReturn

__all__ = ["exit_job", "job_cpu"]


def job_cpu() -> float:
    """CPU seconds (user + system) of this process so far: interpreter start-up, imports,
    the work and the writes (the ``job cpu`` line benchmarks/bench_workflow.py and
    benchmarks/bench_cost.py read)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def exit_job() -> NoReturn:
    """Flush every logging handler and the standard streams, then end the process with
    status 0 without the interpreter's teardown (``os._exit``)."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
