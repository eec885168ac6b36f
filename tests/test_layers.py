"""The architecture, enforced (docs/layout.md): ``lint-imports`` (import-linter, contracts in
pyproject.toml's ``[tool.importlinter]``) keeps every contract — layers import only downward,
no import cycles between sibling modules or packages, and no learner, problem, mechanism,
theory or kernel module reaches the workflow (cost model, experiments, audits, provenance)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _lint_imports(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("lint-imports")
    command = str(exe) if exe.exists() else shutil.which("lint-imports")
    if command is None:
        pytest.fail("lint-imports not found: install the test extra (pip install -e '.[test]'), which includes import-linter")
    return subprocess.run([command, "--no-cache", *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})  # fmt: skip


def test_every_import_contract_is_kept():
    out = _lint_imports()
    assert out.returncode == 0, f"lint-imports failed:\n{out.stdout}\n{out.stderr}"
    assert "0 broken" in out.stdout, out.stdout


def test_a_broken_contract_fails(tmp_path):
    """The check can fail: a contract the code breaks (the orchestration layer may not import
    the foundation) is reported, with the offending import."""
    (tmp_path / "contracts.toml").write_text(
        '[tool.importlinter]\nroot_package = "dpbench"\n\n[[tool.importlinter.contracts]]\n'
        'name = "orchestration without foundation"\ntype = "forbidden"\n'
        'source_modules = ["dpbench.orchestration"]\nforbidden_modules = ["dpbench.foundation"]\n',
        encoding="utf-8",
    )
    out = _lint_imports("--config", str(tmp_path / "contracts.toml"), cwd=tmp_path)
    assert out.returncode != 0
    assert "BROKEN" in out.stdout and "dpbench.orchestration.grid -> dpbench.foundation." in out.stdout, out.stdout
