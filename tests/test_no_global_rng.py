"""No global or legacy randomness anywhere in the package (the same lint
that ``dpbench check`` runs on a learner's module: :func:`dpbench.check.global_rng_uses`)."""

from __future__ import annotations

from pathlib import Path

from dpbench.check import global_rng_uses

PACKAGE = Path(__file__).resolve().parents[1] / "dpbench"


def test_package_uses_only_passed_generators():
    found = [f"{p.relative_to(PACKAGE.parent)}:{line}: {what}" for p in sorted(PACKAGE.rglob("*.py")) for line, what in global_rng_uses(p)]
    assert not found, "\n".join(found)


def test_lint_finds_global_randomness(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import random\nimport numpy as np\nnp.random.seed(1)\nx = np.random.laplace(0, 1)\nrng = np.random.default_rng()\n")
    assert sorted(global_rng_uses(bad)) == [(1, "stdlib random"), (3, "np.random.seed"), (4, "np.random.laplace"), (5, "default_rng() without a seed")]
