"""Issue 19 item 2: ``sv_experts``' end-to-end broken copy at the smallest power-of-2 error
its sampled audit catches (32ε, was 64ε)."""

from __future__ import annotations

import pytest

from dpbench.audit import run_cases
from dpbench.audits import cases_for
from dpbench.audits import experts


@pytest.mark.slow
def test_sv_experts_broken_copy_at_32_eps_is_caught_end_to_end():
    cases = [c for c in cases_for("sv_experts", epsilon=1.0, delta=1e-6) if not c.component]
    good, bad = run_cases(cases, runs=experts.SV_RUNS, confidence=0.999, seed=0)
    assert experts.SV_BROKEN == 32.0 and "32*eps" in bad["instance"] + bad.get("note", "")
    assert good["epsilon_lower_bound"] <= 1.0 < bad["epsilon_lower_bound"] and good["verdict"] == "pass"
