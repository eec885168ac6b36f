"""``dpbench check NAME``: the conformance suite on one learner (issue 12)."""

from __future__ import annotations


def cli_check(target: str, *, config: str | None = None) -> int:
    """Run every check on learner ``target`` (a registry name or ``module:Class``), print a
    table of checks (pass/fail, figures) and return the exit status (non-zero on a failure)."""
    raise NotImplementedError("dpbench check: implemented by issue 12")
