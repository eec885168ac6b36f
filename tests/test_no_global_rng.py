"""style.md §F.1: no global or legacy randomness anywhere in the package."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "dpbench"
FORBIDDEN_ATTRS = {"seed", "RandomState", "rand", "randn", "randint", "random", "choice", "shuffle", "permutation",
                   "normal", "uniform", "laplace", "binomial", "exponential", "gumbel", "poisson", "beta", "gamma"}


def _violations(path: Path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            if "random" in names:
                yield node.lineno, "stdlib random"
        if isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_ATTRS:
            v = node.value
            if isinstance(v, ast.Attribute) and v.attr == "random" and isinstance(v.value, ast.Name) and v.value.id in ("np", "numpy"):
                yield node.lineno, f"np.random.{node.attr}"
        if isinstance(node, ast.Name) and node.id == "check_random_state":
            yield node.lineno, "check_random_state"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "default_rng" and not node.args and not node.keywords:
            yield node.lineno, "default_rng() without a seed"


def test_package_uses_only_passed_generators():
    found = [f"{p.relative_to(PACKAGE.parent)}:{line}: {what}" for p in sorted(PACKAGE.rglob("*.py")) for line, what in _violations(p)]
    assert not found, "\n".join(found)
