"""Every registered learner × test_params (and every problem) obeys the common contract
(style.md §J): construction validates, runs are deterministic for a fixed seed, rows fit
the results schema, the privacy guarantee is within the cell's target, learners pickle."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from dpbench import registry
from dpbench.experiment import draw_target
from dpbench.grid import Cell, freeze
from dpbench.learners.base import Guarantee
from dpbench.results import TIMING_COLUMNS, to_table

registry.load_all()


def _cases():
    for name, cls in sorted(registry.LEARNERS.items()):
        for problem in cls.problems:
            experiments = [
                e for e in registry.EXPERIMENTS.values()
                if problem in e.problems and (e.size == "n") == (cls.family == "batch")
            ]
            if not experiments:
                continue
            for i, params in enumerate(cls.test_params()):
                yield pytest.param(name, problem, experiments[0].id, dict(params), id=f"{name}-{problem}-{i}")


def _cell(learner: str, problem: str, experiment: str, params: dict) -> Cell:
    params = dict(params)
    epsilon = params.pop("epsilon", math.inf)
    delta = params.pop("delta", 0.0)
    problem_params = dict(next(iter(registry.problem(problem).test_params())))
    size = registry.experiment(experiment).test_size
    return Cell(experiment, problem, freeze(problem_params), learner, freeze(params), epsilon, delta, size, 2)


@pytest.mark.parametrize("learner,problem,experiment,params", list(_cases()))
def test_learner_contract(learner, problem, experiment, params):
    cell = _cell(learner, problem, experiment, params)
    target = draw_target(cell, root_seed=3)
    run = registry.experiment(experiment).run_cell
    first, second = run(cell, target, 3), run(cell, target, 3)
    assert len(first) > 0
    to_table(first)  # schema: exact columns, right types
    strip = lambda rows: [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rows]  # noqa: E731
    assert strip(first) == strip(second), "same cell and seed must give identical rows"
    assert {r["learner"] for r in first} == {learner}
    assert all(r["status"] in ("ok", "skipped") for r in first)

    cls = registry.learner(learner)
    instance = cls.from_cell(epsilon=cell.epsilon, delta=cell.delta, params=dict(cell.learner_params))
    g = instance.guarantee()
    assert isinstance(g, Guarantee)
    if cls.private:
        assert g.epsilon <= cell.epsilon + 1e-12 and g.delta <= cell.delta + 1e-15
    assert pickle.loads(pickle.dumps(instance)) == instance
    reason = instance.supports(target)
    assert reason is None or isinstance(reason, str)


@pytest.mark.parametrize("name", sorted(n for n, c in registry.LEARNERS.items() if c.private))
def test_private_learners_reject_bad_privacy_parameters(name):
    cls = registry.learner(name)
    params = dict(next(iter(cls.test_params())))
    params.pop("epsilon", None)
    params.pop("delta", None)
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="epsilon"):
            cls.from_cell(epsilon=bad, delta=1e-6, params=params)
    if "delta" in cls.field_names():
        with pytest.raises(ValueError, match="delta"):
            cls.from_cell(epsilon=1.0, delta=1.0, params=params)


@pytest.mark.parametrize("name", sorted(registry.PROBLEMS))
def test_problem_contract(name):
    """Targets round-trip through JSON; samples are nested across sizes (prefix property)."""
    cls = registry.problem(name)
    for params in cls.test_params():
        problem = cls(**params)
        target = problem.draw_target(rng=np.random.default_rng(1))
        again = cls.target_from_json(target.to_json())
        assert again.to_json() == target.to_json()
        if cls.family == "batch":
            big = target.sample(300, rng=np.random.default_rng(5))
            small = target.sample(100, rng=np.random.default_rng(5))
            np.testing.assert_array_equal(big.X[:100], small.X)
            np.testing.assert_array_equal(big.y[:100], small.y)
