"""numba's caches of dpbench's kernels are stamped with the compiled code they use
(dpbench/kernels/numba_cache.py): editing a module a kernel calls into makes numba recompile it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dpbench
from dpbench.kernels import numba_cache

from dpbench.foundation import provenance
PACKAGE = Path(dpbench.__file__).parent


def _modules_with_cached_kernels() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "cache=True" in p.read_text(encoding="utf-8") and p.name != "numba_cache.py")


def test_every_module_with_cached_kernels_registers_the_locator_first():
    paths = _modules_with_cached_kernels()
    assert len(paths) >= 10
    for path in paths:
        text = path.read_text(encoding="utf-8")
        imported = re.search(r"^from dpbench.kernels import numba_cache\b", text, re.M)
        assert imported is not None, f"{path} declares cache=True without importing dpbench.kernels.numba_cache"
        assert imported.start() < text.index("cache=True"), path


@pytest.mark.parametrize(
    ("module", "dependency"),
    [
        ("dpbench.learners.experts_common", "dpbench.learners.hedge_pass"),
        ("dpbench.learners.logistic_common", "dpbench.kernels.lane_dot"),
        ("dpbench.learners.online", "dpbench.kernels.simd_dot"),
        ("dpbench.learners.online", "dpbench.kernels.pcg64"),
    ],
)
def test_a_dependency_s_content_is_in_the_kernel_stamp(module, dependency, monkeypatch):
    assert dependency in numba_cache.compiled_modules(module)
    before = numba_cache.kernel_stamp(module)
    digest = provenance.file_digest
    target = provenance.module_file(dependency)
    monkeypatch.setattr(provenance, "file_digest", lambda path: digest(path) + ("edited" if path == target else ""))
    numba_cache.kernel_stamp.cache_clear()
    try:
        assert numba_cache.kernel_stamp(module) != before
    finally:
        numba_cache.kernel_stamp.cache_clear()


def test_modules_a_kernel_module_imports_names_from_are_in_the_stamp():
    """A global constant a kernel reads is frozen into its machine code: the module it is
    imported from (here ``dpbench.problems.losses`` for the Hedge kernel's module) is stamped
    even though it defines no compiled code."""
    module = "dpbench.learners.experts_common"
    assert "dpbench.problems.losses" not in numba_cache.compiled_modules(module)
    assert "dpbench.problems.losses" in numba_cache.stamped_modules(module)


def test_modules_without_compiled_code_are_not_in_the_stamp():
    """Only modules that import numba can put code into a kernel: editing the plotting or
    the cost model must not recompile the Hedge kernel."""
    modules = numba_cache.stamped_modules("dpbench.learners.experts_common")
    assert "dpbench.orchestration.cost" not in modules and "dpbench.theory_check.analysis" not in modules


def test_dpbench_kernels_use_the_stamped_locator():
    from dpbench.learners import experts_common, logistic_common

    for kernel in (experts_common._hedge_kernel, logistic_common._full_batch_clipped_sums):
        assert isinstance(kernel._cache._impl._locator, numba_cache.DependencyStampedLocator)


_RUN = textwrap.dedent(
    """
    import numpy as np
    from dpbench.kernels import pcg64_float32 as pf
    out = np.empty((4, 3), dtype=np.uint8)
    pf.bernoulli_fill(out, np.full(3, 0.5, dtype=np.float32), np.random.default_rng(0))
    print("hit" if sum(pf._bernoulli_fill.stats.cache_hits.values()) else "miss")
    """
)


@pytest.mark.slow
def test_editing_only_a_called_module_recompiles_the_kernel(tmp_path):
    """A copy of the package: the kernel (the float32 Bernoulli stream of ``pcg64_float32``)
    compiles and is cached; run again, it is loaded; after an edit of ``pcg64.py`` alone, the
    compiled module it imports (not ``pcg64_float32.py``), it is compiled again. Without the
    locator the third run is a cache hit (checked when it was written)."""
    shutil.copytree(PACKAGE, tmp_path / "dpbench", ignore=shutil.ignore_patterns("__pycache__"))

    def run() -> str:
        out = subprocess.run([sys.executable, "-c", _RUN], cwd=tmp_path, env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()

    assert run() == "miss"
    assert run() == "hit"
    edited = tmp_path / "dpbench" / "kernels" / "pcg64.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert run() == "miss"
    assert run() == "hit"
