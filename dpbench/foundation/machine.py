"""The machine and library stack a run's rows came from: what ``dpbench publish`` records in
``SOURCE.md`` and what the published-results drift test (tests/test_published_results.py)
compares before it asks for bit-identical rows.

Rows are bit-identical for the same config and seed only on the same *row stack*
(:func:`row_stack`): the Python version and the versions of the libraries that compute
rows (NumPy, SciPy, Numba with its LLVM, scikit-learn, pandas/pyarrow that write them,
dp-accounting, diffprivlib), and the widest SIMD instruction set Numba compiles for (a
reduction vectorised over 8 lanes adds in another order than one over 4). The CPU model,
the core count and the libraries that only draw (:func:`other_libraries`) are recorded
beside it but do not change a row.
"""

from __future__ import annotations

import os
import platform
import sys
from importlib.metadata import PackageNotFoundError, version

#: distributions whose version can change a row's bits (``-`` where not installed)
ROW_LIBRARIES = (
    "numpy",
    "scipy",
    "numba",
    "llvmlite",
    "scikit-learn",
    "pandas",
    "pyarrow",
    "dp-accounting",
    "diffprivlib",
)
#: distributions that draw, orchestrate or report, recorded but not compared
OTHER_LIBRARIES = ("matplotlib", "snakemake", "dpbench-learning")

#: x86 instruction-set flags of /proc/cpuinfo, widest first (the first one present is the SIMD level)
_SIMD_FLAGS = ("avx512f", "avx2", "avx", "sse4_2")


def _version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "-"


def _cpuinfo() -> dict[str, str]:
    """The first processor's fields of /proc/cpuinfo (empty where there is none)."""
    try:
        with open("/proc/cpuinfo") as fh:
            text = fh.read().split("\n\n", 1)[0]
    except OSError:
        return {}
    return {key.strip(): value.strip() for key, _, value in (line.partition(":") for line in text.splitlines())}


def simd_level() -> str:
    """The widest SIMD instruction set of this CPU (``avx512f``, ``avx2``, …), else the
    architecture (``platform.machine()``: ``aarch64``, or ``x86_64`` without the flags)."""
    flags = set(_cpuinfo().get("flags", "").split())
    return next((flag for flag in _SIMD_FLAGS if flag in flags), platform.machine() or "unknown")


def row_stack() -> dict[str, str]:
    """What must match for bit-identical rows: Python, :data:`ROW_LIBRARIES` and :func:`simd_level`."""
    return {
        "python": platform.python_version(),
        **{dist: _version(dist) for dist in ROW_LIBRARIES},
        "simd": simd_level(),
    }


def other_libraries() -> dict[str, str]:
    """Versions of :data:`OTHER_LIBRARIES` (recorded, not compared)."""
    return {dist: _version(dist) for dist in OTHER_LIBRARIES}


def machine() -> dict[str, str]:
    """CPU model, logical cores this process may use and the operating system."""
    info = _cpuinfo()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": info.get("model name") or platform.processor() or "unknown",
        "cores": str(cores),
        "os": f"{platform.system()} {platform.release()} ({sys.platform}, {platform.machine()})",
    }
