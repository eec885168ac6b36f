"""numba's on-disk caches of dpbench's kernels, in a directory keyed by the compiled code.

numba stamps a cached function with its own source file only (its time and size, or its
contents in recent versions). A kernel that calls a compiled function or an LLVM intrinsic
from another module — the Hedge kernel and :mod:`dpbench.learners.hedge_pass`, dp_gd's pass
and :mod:`dpbench.kernels.lane_dot`, the online learners and
:mod:`dpbench.kernels.simd_dot` — embeds that code in its cache entry, so after an edit
(or a ``git pull``) of the other module alone numba would load the old machine code: rows
labelled with the new code's fingerprint (``code_hash``) computed by the old code.

Importing this module points numba's documented cache directory (``numba.config.CACHE_DIR``,
the ``NUMBA_CACHE_DIR`` environment variable) at ``BASE/dpbench-FINGERPRINT``, where
FINGERPRINT (:func:`package_stamp`) is the fingerprint of :func:`stamped_modules` — every
dpbench module whose source imports numba (compiled functions and intrinsics need it), and
every dpbench module one of them imports names from (numba freezes the global constants a
kernel reads into its machine code). Editing any of them gives a new directory, so every
kernel compiles again on next use; editing other code (plotting, the cost model) changes
nothing. ``BASE`` is the ``NUMBA_CACHE_DIR`` the process started with, else
``$XDG_CACHE_HOME/dpbench/numba`` (``~/.cache/dpbench/numba``); old directories are not
removed (delete ``BASE`` to reclaim the space). Every dpbench module that declares
``cache=True`` imports this module before its first kernel (a test checks), since numba
picks a function's cache directory when the function is decorated. The directory holds the
process's other cached numba functions too (a plugin's): they keep numba's own stamp of
their file, and are compiled again when dpbench's compiled code changes.

The mechanism is public numba API only: the ``NUMBA_CACHE_DIR`` setting
(https://numba.readthedocs.io/en/stable/reference/envvars.html#envvar-NUMBA_CACHE_DIR).
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import numba

from dpbench.foundation.sources import fingerprint, imported_modules

#: Environment variable holding the base directory the first dpbench process of a tree of
#: processes found (``NUMBA_CACHE_DIR`` is set to the keyed directory for its children).
BASE_VARIABLE = "DPBENCH_NUMBA_CACHE_BASE"

_IMPORTS_NUMBA = re.compile(r"^[ \t]*(?:import|from)[ \t]+numba\b", re.M)
_PACKAGE = Path(__file__).resolve().parents[1]


def _module_name(path: Path) -> str:
    parts = path.relative_to(_PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def compiled_modules() -> list[str]:
    """The dpbench modules whose source imports numba: the modules whose compiled code a
    kernel can have compiled into it (sorted)."""
    return sorted(_module_name(p) for p in _PACKAGE.rglob("*.py") if _IMPORTS_NUMBA.search(p.read_text(encoding="utf-8")))


def stamped_modules() -> list[str]:
    """:func:`compiled_modules` and every dpbench module one of them imports directly: numba
    also freezes the global constants a kernel reads into its machine code, and those come
    from the modules its own module imports names from."""
    compiled = compiled_modules()
    return sorted({*compiled, *(m for c in compiled for m in imported_modules(c, ["dpbench"]))})


@functools.cache
def package_stamp() -> str:
    """The fingerprint (:func:`dpbench.foundation.sources.fingerprint`, 16 hex digits) of
    :func:`stamped_modules`: computed once per process."""
    return fingerprint(stamped_modules())


def base_dir() -> Path:
    """Where the keyed cache directories live (module docstring)."""
    base = os.environ.get(BASE_VARIABLE) or os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dpbench" / "numba"
    return Path(base)


def cache_dir() -> Path:
    """``base_dir() / dpbench-{package_stamp()}``: numba's cache directory in this process."""
    return base_dir() / f"dpbench-{package_stamp()}"


def register() -> Path:
    """Set numba's cache directory to :func:`cache_dir` (idempotent; returns it). The
    environment variable too: numba re-reads ``NUMBA_*`` variables when one changes, and
    child processes (the workflow's jobs) start from it."""
    base, path = base_dir(), cache_dir()
    os.environ.setdefault(BASE_VARIABLE, str(base))
    os.environ["NUMBA_CACHE_DIR"] = numba.config.CACHE_DIR = str(path)
    return path


register()
