"""numba's on-disk caches of dpbench's kernels, invalidated when any compiled code they use changes.

numba stamps a cached function with its own source file only (its time and size, or its
contents in recent versions). A kernel that calls a compiled function or an LLVM intrinsic
from another module — the Hedge kernel and :mod:`dpbench.learners.hedge_pass`, dp_gd's pass
and :mod:`dpbench.kernels.lane_dot`, the online learners and
:mod:`dpbench.kernels.simd_dot` — embeds that code in its cache entry, so after an edit
(or a ``git pull``) of the other module alone numba would load the old machine code: rows
labelled with the new code's fingerprint (``code_hash``) computed by the old code.

Importing this module registers a cache locator, first in numba's list, for functions
defined in dpbench: it finds the cache where numba would (``__pycache__`` beside the file,
or ``NUMBA_CACHE_DIR``) and stamps it with numba's own stamp plus the fingerprint
(:func:`dpbench.foundation.provenance.fingerprint`) of :func:`stamped_modules` — the modules the
function's module imports, transitively, that define compiled code, and the modules those
import names from (a constant numba freezes into the code). Editing any of them makes numba
recompile on next use. Every dpbench module that declares ``cache=True`` imports this module
before its first kernel (a test checks). A plugin's own cached kernels keep numba's stamp
(their own file): the locator only stamps functions defined in dpbench.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from numba.core import caching

from dpbench.foundation import provenance

#: numba ≥ 0.62 calls it ``CacheImpl``; 0.61 ``_CacheImpl`` (the list of locator classes is
#: the documented way to add a cache locator).
_CACHE_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl


_IMPORTS_NUMBA = re.compile(r"^[ \t]*(?:import|from)[ \t]+numba\b", re.M)


@functools.cache
def _defines_compiled_code(module: str) -> bool:
    """``module``'s source imports numba (compiled functions and intrinsics need it)."""
    path = provenance.module_file(module)
    return path is not None and _IMPORTS_NUMBA.search(Path(path).read_text(encoding="utf-8")) is not None


def compiled_modules(module: str) -> list[str]:
    """The dpbench modules reachable from ``module`` through imports
    (:func:`dpbench.foundation.provenance.closure`) whose source imports numba, ``module`` included:
    the modules whose compiled code a kernel of ``module`` can have compiled into it."""
    return [m for m in provenance.closure([module], ["dpbench"]) if m == module or _defines_compiled_code(m)]


def stamped_modules(module: str) -> list[str]:
    """:func:`compiled_modules` and every dpbench module one of them imports directly: numba
    also freezes the global constants a kernel reads into its machine code, and those come
    from the modules its own module imports names from."""
    compiled = compiled_modules(module)
    return sorted({*compiled, *(m for c in compiled for m in provenance.imported_modules(c, ["dpbench"]))})


@functools.cache
def kernel_stamp(module: str) -> str:
    """The fingerprint of :func:`stamped_modules` (16 hex digits of their contents; computed
    once per module and process: numba asks for it per kernel)."""
    return provenance.fingerprint(stamped_modules(module))


class DependencyStampedLocator:
    """The locator numba would use for a dpbench function, its source stamp extended by
    :func:`kernel_stamp` of the function's module; every other call goes to that locator."""

    def __init__(self, inner, module: str):
        self._inner = inner
        self._module = module

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def get_source_stamp(self):
        return (self._inner.get_source_stamp(), kernel_stamp(self._module))

    @classmethod
    def from_function(cls, py_func, py_file):
        module = getattr(py_func, "__module__", None) or ""
        if module != "dpbench" and not module.startswith("dpbench."):
            return None
        for other in _CACHE_IMPL._locator_classes:
            if other is not cls:
                inner = other.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner, module)
        return None


def register() -> None:
    """Put :class:`DependencyStampedLocator` first in numba's locators (once)."""
    if DependencyStampedLocator not in _CACHE_IMPL._locator_classes:
        _CACHE_IMPL._locator_classes.insert(0, DependencyStampedLocator)


register()
