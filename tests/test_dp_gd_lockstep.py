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


def _cells(learner="dp_gd", reps=2):
    from dpbench.foundation.cell import Cell, freeze

    params = freeze({"steps": 12})
    problem = freeze({"d": 3, "rho": 0.05, "noise": 0.0})
    return [Cell(experiment="private_erm", problem="logistic", problem_params=problem, learner=learner,
                 learner_params=params, epsilon=eps, delta=1e-5, size=150, repetitions=reps)
            for eps in (0.5, 2.0, math.inf)]  # fmt: skip


def test_siblings_are_the_cells_that_differ_only_in_epsilon():
    from dpbench.experiments.base import lockstep_siblings

    cells = _cells()
    other = dataclasses.replace(cells[0], delta=1e-6)  # another δ: fitted alone
    sgd = _cells("dp_sgd")  # no fit_epsilons: alone
    siblings = lockstep_siblings([*cells, other, *sgd])
    assert siblings == dict.fromkeys(cells, tuple(cells))


def test_a_shard_fitting_in_lockstep_writes_the_rows_of_cells_fitted_alone(tmp_path, monkeypatch):
    import pandas as pd

    from dpbench.experiments import base
    from dpbench.foundation.results import read_results

    cells = _cells()
    calls = []
    real = DPGD.fit_epsilons
    monkeypatch.setattr(DPGD, "fit_epsilons", lambda self, *a, **k: calls.append(len(a[1])) or real(self, *a, **k))
    base.run_shard(cells, root_seed=3, out=tmp_path / "lockstep.parquet")
    assert calls == [3, 3]  # one lockstep fit per repetition, for the three cells
    monkeypatch.setattr(base, "lockstep_siblings", lambda cells: {})
    base.run_shard(cells, root_seed=3, out=tmp_path / "alone.parquet")
    assert calls == [3, 3]
    timing = ["fit_seconds", "cell_seconds", "cell_cpu_seconds"]
    files = ("lockstep.parquet", "alone.parquet")
    got, want = (read_results(tmp_path / f).drop(columns=timing, errors="ignore") for f in files)
    pd.testing.assert_frame_equal(got, want)
    assert base._lockstep_fits == {} and base._siblings == {}
