"""Ctrl-C in a workflow run: one line and the command that resumes, not ~60 lines of
tracebacks.

A terminal's Ctrl-C sends SIGINT to the whole process group: Snakemake and every job it
started. Without this, each job's Python printed its ``KeyboardInterrupt`` traceback and
Snakemake printed an error block per job and a final ``WorkflowError``.

- :func:`quiet_job` (the rule scripts, through ``workflow/scripts/checkout.py``, before
  their heavy imports): the job exits at once with status 130 (128 + SIGINT) and prints
  nothing; Snakemake sees a failed job and deletes its incomplete outputs as usual.
- :func:`resume_on_interrupt` (the Snakefile, in Snakemake's own process): the first SIGINT
  prints :func:`interrupt_line` to stderr, switches logging off (:func:`logging.disable`:
  Snakemake writes through :mod:`logging`) and then raises ``KeyboardInterrupt`` exactly as
  Python's default handler does, so Snakemake cancels its jobs and cleans up as before.

Finished jobs' outputs are kept, so the same command resumes where the run stopped (a
rerun is bit-identical: same config and seed).
"""

from __future__ import annotations

import logging
import os
import shlex
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

#: exit status of a process stopped by SIGINT (128 + 2)
INTERRUPTED = 130


def _job_handler(signum, frame) -> None:  # pragma: no cover - runs in a killed job
    os._exit(INTERRUPTED)


def quiet_job() -> None:
    """In a rule script: SIGINT ends the job silently with status 130 (no traceback)."""
    signal.signal(signal.SIGINT, _job_handler)


def resume_command(argv: Sequence[str]) -> str:
    """The command line that resumes the run ``argv`` (``sys.argv`` of Snakemake's process):
    the same arguments, with the program named as typed (``snakemake`` for the installed
    script, ``python -m snakemake`` for the module)."""
    args = list(argv)
    program = Path(args[0]).name if args else "snakemake"
    if program in ("__main__.py", "snakemake") or program.startswith("snakemake"):
        head = ["snakemake"] if program != "__main__.py" else ["python", "-m", "snakemake"]
    else:
        head = [args[0]]
    return shlex.join(head + args[1:])


def interrupt_line(argv: Sequence[str]) -> str:
    """The one line Ctrl-C prints."""
    return f"dpbench: interrupted; finished jobs are kept, resume with: {resume_command(argv)}"


def resume_on_interrupt(argv: Sequence[str] | None = None) -> None:
    """In Snakemake's process (the Snakefile): on the first SIGINT print :func:`interrupt_line`,
    silence logging and let Snakemake stop as it does on ``KeyboardInterrupt``. A second
    SIGINT is another ``KeyboardInterrupt`` (nothing printed)."""
    line = interrupt_line(sys.argv if argv is None else argv)
    state = {"seen": False}

    def handler(signum, frame):
        if not state["seen"]:
            state["seen"] = True
            print(line, file=sys.stderr, flush=True)
            logging.disable(logging.CRITICAL)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)
