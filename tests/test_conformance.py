"""Every registered learner × test_params (and every problem) obeys the common contract
(docs/plugins.md), through the same checks as ``dpbench check`` (:mod:`dpbench.check`):
construction validates, runs are deterministic for a fixed seed and leave the global
generators alone, rows fit the results schema, the privacy guarantee is within the cell's
target, learners pickle, private learners with a declared twin match it at ε = ∞.
Installed plugins (entry points of group ``dpbench.plugins``) are checked too."""

from __future__ import annotations

import pytest

from dpbench import check
from dpbench.foundation import registry

registry.load_all()


def _assert_pass(results):
    failed = [r for r in results if r.failed]
    assert not failed, check.format_table("", failed)


def _cases():
    for name, cls in sorted(registry.LEARNERS.items()):
        for i, (problem, experiment, params) in enumerate(check.cell_cases(cls)):
            yield pytest.param(name, problem, experiment, params, id=f"{name}-{problem}-{i}")


@pytest.mark.parametrize("learner,problem,experiment,params", list(_cases()))
def test_learner_contract(learner, problem, experiment, params):
    _assert_pass(check.cell_results(registry.learner(learner), problem, experiment, params, seed=3))


@pytest.mark.parametrize("name", sorted(registry.LEARNERS))
def test_learner_construction_and_guarantee(name):
    """Attributes, every test_params built and pickled, guarantee within the cell's (ε, δ),
    private learners reject ε ∈ {0, −1, nan} and δ = 1."""
    _assert_pass(check.construction_results(registry.learner(name)))


@pytest.mark.parametrize("name", sorted(n for n, c in registry.LEARNERS.items() if getattr(c, "twin", None)))
def test_private_learner_matches_its_twin_at_infinite_epsilon(name):
    results = check.twin_results(registry.learner(name))
    _assert_pass(results)
    assert any(r.status == "pass" for r in results), "no problem compared"


@pytest.mark.parametrize("name", sorted(registry.PROBLEMS))
def test_problem_contract(name):
    """Targets round-trip through JSON; samples are nested across sizes (prefix property)."""
    _assert_pass(check.problem_results(registry.problem(name)))
