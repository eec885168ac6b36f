"""numba's caches of dpbench's kernels live in a directory keyed by the fingerprint of the
package's compiled code (dpbench/kernels/numba_cache.py): editing a module a kernel calls into
makes numba recompile it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

import dpbench
from dpbench.foundation import sources
from dpbench.kernels import numba_cache

PACKAGE = Path(dpbench.__file__).parent


def _modules_with_cached_kernels() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "cache=True" in p.read_text(encoding="utf-8") and p.name != "numba_cache.py")


def test_every_module_with_cached_kernels_sets_the_cache_directory_first():
    """numba picks a function's cache directory when the function is decorated."""
    paths = _modules_with_cached_kernels()
    assert len(paths) >= 10
    for path in paths:
        text = path.read_text(encoding="utf-8")
        imported = re.search(r"^from dpbench\.kernels import \(?[\s\w,]*?\bnumba_cache\b", text, re.M)  # (ruff may bracket it)
        assert imported is not None, f"{path} declares cache=True without importing dpbench.kernels.numba_cache"
        assert imported.start() < text.index("cache=True"), path


def test_numba_caches_in_the_keyed_directory():
    path = numba_cache.cache_dir()
    assert path.name == f"dpbench-{numba_cache.package_stamp()}" and re.fullmatch(r"dpbench-[0-9a-f]{16}", path.name)
    assert numba.config.CACHE_DIR == os.environ["NUMBA_CACHE_DIR"] == str(path)


@pytest.mark.parametrize(
    "dependency",
    ["dpbench.learners.hedge_pass", "dpbench.kernels.lane_dot", "dpbench.kernels.simd_dot", "dpbench.kernels.pcg64"],
)
def test_a_dependency_s_content_is_in_the_stamp(dependency, monkeypatch):
    assert dependency in numba_cache.compiled_modules()
    before = numba_cache.package_stamp()
    digest = sources.file_digest
    target = sources.module_file(dependency)
    monkeypatch.setattr(sources, "file_digest", lambda path: digest(path) + ("edited" if path == target else ""))
    numba_cache.package_stamp.cache_clear()
    try:
        assert numba_cache.package_stamp() != before
    finally:
        numba_cache.package_stamp.cache_clear()


def test_modules_a_kernel_module_imports_names_from_are_in_the_stamp():
    """A global constant a kernel reads is frozen into its machine code: the module it is
    imported from (here ``dpbench.problems.losses`` for the Hedge kernel's module) is stamped
    even though it defines no compiled code."""
    assert "dpbench.problems.losses" not in numba_cache.compiled_modules()
    assert "dpbench.problems.losses" in numba_cache.stamped_modules()


def test_modules_without_compiled_code_are_not_in_the_stamp():
    """Only modules that import numba can put code into a kernel: editing the plotting or
    the cost model must not recompile the kernels."""
    modules = numba_cache.stamped_modules()
    assert "dpbench.orchestration.cost" not in modules and "dpbench.theory_check.analysis" not in modules
    assert not any(m.startswith(("dpbench.plotting", "dpbench.reporting")) for m in modules)


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
    compiles and is cached, under the keyed directory of the default base; run again, it is
    loaded; after an edit of a module without compiled code, still loaded; after an edit of
    ``pcg64.py`` alone, the compiled module it imports (not ``pcg64_float32.py``), it is
    compiled again. Without the keyed directory the fourth run is a cache hit (checked when
    it was written: numba's own stamp is ``pcg64_float32.py``'s)."""
    shutil.copytree(PACKAGE, tmp_path / "dpbench", ignore=shutil.ignore_patterns("__pycache__"))
    home = tmp_path / "home"

    def run() -> str:
        env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(home)}
        out = subprocess.run([sys.executable, "-c", _RUN], cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
        return out.stdout.strip()

    assert run() == "miss"
    assert run() == "hit"
    assert list((home / ".cache" / "dpbench" / "numba").glob("dpbench-*/**/pcg64_float32*.nbi"))
    other = tmp_path / "dpbench" / "orchestration" / "cost.py"
    other.write_text(other.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert run() == "hit"
    edited = tmp_path / "dpbench" / "kernels" / "pcg64.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert run() == "miss"
    assert run() == "hit"
    assert len(list((home / ".cache" / "dpbench" / "numba").glob("dpbench-*"))) == 2
