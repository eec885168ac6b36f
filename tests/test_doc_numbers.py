"""Run numbers the docs state about the default config are checked against the plan, so
they cannot go stale: every "N jobs" / "N shard jobs" / "N cells" in docs/*.md (the
published paper run, docs/paper/, states its own run's numbers and is generated)."""

from __future__ import annotations

import re
from pathlib import Path

from dpbench.foundation.paths import DEFAULT_CONFIG
from dpbench.orchestration.config import load
from dpbench.orchestration.plan import make_plan

ROOT = Path(__file__).resolve().parents[1]
#: "19 jobs", "9 shard jobs", "9 run_shard jobs", "1052 cells" (a digit group may use a comma)
COUNT = re.compile(r"\b(\d[\d,]*) (shard |run_shard )?(jobs|cells)\b")


def stated_counts(text: str) -> list[tuple[str, int]]:
    """``(what, number)`` for every count in ``text``: what is ``jobs``, ``shard jobs`` or ``cells``."""
    return [(("shard " if m.group(2) else "") + m.group(3), int(m.group(1).replace(",", ""))) for m in COUNT.finditer(text)]


def _plan_counts() -> dict[str, int]:
    plan = make_plan(load(DEFAULT_CONFIG))
    return {"jobs": plan.jobs, "shard jobs": plan.shard_jobs, "cells": sum(e.cells for e in plan.experiments)}


def test_job_and_cell_counts_in_the_docs_are_the_default_plans():
    truth = _plan_counts()
    wrong = {}
    for page in sorted((ROOT / "docs").glob("*.md")):
        bad = [f"{n} {what} (plan: {truth[what]})" for what, n in stated_counts(page.read_text(encoding="utf-8")) if n != truth[what]]
        if bad:
            wrong[page.name] = bad
    assert not wrong, f"the docs state counts the default config's plan does not give: {wrong}"


def test_the_check_fails_on_the_old_count():
    """It can fail: the configuration page said 18 jobs and 10 shard jobs before issue 31."""
    truth = _plan_counts()
    old = stated_counts("top level (10 shard jobs, the longest predicted first; 18 jobs in all)")
    assert old == [("shard jobs", 10), ("jobs", 18)]
    assert any(n != truth[what] for what, n in old)
