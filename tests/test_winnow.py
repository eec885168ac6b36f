"""Online learners: compiled ``run`` equals the step-by-step reference; proven mistake and
update bounds hold (deterministic learners, so these are exact checks)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbench import theory
from dpbench.learners.confident_winnow import ConfidentWinnow
from dpbench.learners.dp_winnow import DPWinnow
from dpbench.learners.dp_winnow_batched import DPWinnowBatched
from dpbench.learners.dp_winnow_batched_tight import DPWinnowBatchedTight
from dpbench.learners.perceptron import Perceptron
from dpbench.learners.winnow import Winnow
from dpbench.problems.dl_as_halfspace import DlAsHalfspace
from dpbench.problems.halfspace import Halfspace

LEARNERS = [Perceptron(), Winnow(), Winnow(eta_scale=0.5), ConfidentWinnow(), DPWinnow(epsilon=math.inf, delta=0.0),
            DPWinnow(epsilon=10.0, delta=1e-6), DPWinnowBatched(epsilon=10.0, delta=1e-6), DPWinnowBatchedTight(epsilon=10.0, delta=1e-6)]
PROBLEMS = [Halfspace(d=20, s=3, rho=0.3, order="adversarial"), Halfspace(d=6, s=2, rho=0.5, domain="cube", monotone=False),
            DlAsHalfspace(d=6, l=2), Halfspace(d=2, s=1, rho=1.0)]


@pytest.mark.parametrize("learner", LEARNERS, ids=lambda l: l.name)
@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.name)
def test_compiled_run_equals_reference(learner, problem):
    target = problem.draw_target(rng=np.random.default_rng(0))
    stream = target.stream(1500, rng=np.random.default_rng(1))
    a = learner.run(stream, rng=np.random.default_rng(2))
    b = learner._reference_run(stream, rng=np.random.default_rng(2))
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_array_equal(a.mistakes, b.mistakes)
    np.testing.assert_array_equal(a.updates, b.updates)
    assert a.first_update == b.first_update


@pytest.mark.parametrize("problem", PROBLEMS[:3], ids=lambda p: p.name)
def test_proven_bounds_hold(problem):
    target = problem.draw_target(rng=np.random.default_rng(3))
    stream = target.stream(20000, rng=np.random.default_rng(4))
    N, rho = stream.n_features, stream.rho
    assert Winnow().run(stream, rng=np.random.default_rng(0)).mistakes[-1] <= theory.winnow_mistake_bound(N, rho)
    cw = ConfidentWinnow().run(stream, rng=np.random.default_rng(0))
    assert cw.mistakes[-1] <= cw.updates[-1] <= theory.confident_winnow_update_bound(N, rho)
    assert Perceptron().run(stream, rng=np.random.default_rng(0)).mistakes[-1] <= theory.perceptron_mistake_bound(N, rho)


def test_winnow_beats_perceptron_on_sparse_targets():
    """Attribute efficiency: ln N vs N (deterministic given the seeds)."""
    target = Halfspace(d=1000, s=3, rho=0.33).draw_target(rng=np.random.default_rng(0))
    stream = target.stream(5000, rng=np.random.default_rng(1))
    assert Winnow().run(stream, rng=None).mistakes[-1] * 3 < Perceptron().run(stream, rng=None).mistakes[-1]
