"""``dp_gd``'s lockstep fit of several ε on one sample (issue 32, item 2): the same bits as
fitting each ε alone, and the shard loop's use of it gives the same rows."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from dpbench.learners.dp_gd import DPGD
from dpbench.problems.base import Sample
from dpbench.problems.logistic import LogisticProblem


def _sample(n: int, d: int, scale: float = 1.0) -> Sample:
    target = LogisticProblem(d=d, rho=0.05).draw_target(rng=np.random.default_rng(0))
    s = target.sample(n, rng=np.random.default_rng(1))
    return Sample(s.X * scale, s.y)


@pytest.mark.parametrize("n, d, scale", [(300, 4, 1.0), (97, 23, 3.0), (2, 1, 1.0)])
def test_lockstep_fits_are_the_fits_alone_bit_for_bit(n, d, scale):
    sample = _sample(n, d, scale)
    base = DPGD(epsilon=1.0, delta=1e-5, steps=15, clip=0.5)
    epsilons = [0.1, 1.0, 10.0, math.inf, 0.3]
    seeds = [11, 12, 13, 14, 15]
    together = base.fit_epsilons(sample, epsilons, rngs=[np.random.default_rng(k) for k in seeds])
    for e, k, got in zip(epsilons, seeds, together):
        alone = dataclasses.replace(base, epsilon=e).fit(sample, rng=np.random.default_rng(k))
        assert got.theta.tobytes() == alone.theta.tobytes(), e
        assert got.diagnostics == alone.diagnostics


def test_lockstep_check_can_fail_runs_do_not_share_noise():
    """The check above can fail: the same ε with its generators swapped gives other bits."""
    sample = _sample(200, 5)
    base = DPGD(epsilon=1.0, delta=1e-5, steps=10)
    a, b = base.fit_epsilons(sample, [1.0, 1.0], rngs=[np.random.default_rng(1), np.random.default_rng(2)])
    alone = base.fit(sample, rng=np.random.default_rng(2))
    assert a.theta.tobytes() != alone.theta.tobytes() and b.theta.tobytes() == alone.theta.tobytes()


def test_lockstep_wants_one_generator_per_epsilon():
    with pytest.raises(ValueError, match="one generator per epsilon"):
        DPGD(epsilon=1.0, delta=1e-5).fit_epsilons(_sample(50, 2), [1.0, 2.0], rngs=[np.random.default_rng(0)])
