"""Issue 29: ``sv_experts``' regret bound with constants on the realizable instance
(:func:`dpbench.theory.sv_regret_bound`): its calibration is the learner's, it holds on the
learner's own runs (the ε row of the theory check decides), and broken copies of the learner
(the sparse vector's noise ×k; the threshold ×3) are caught by the same row (``violated``)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import dpbench.learners.sv_experts as sv
from dpbench import theory
from dpbench.experiments.checks.experts import theory_check
from dpbench.learners.sv_experts import SvCalibration, SVExperts
from dpbench.problems.experts import ExpertsProblem
from dpbench.theory_check.roles import role_of

K_EXPERTS, T, REPS, EPSILONS = 8, 20_000, 30, (2.0, 4.0, 8.0)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
@pytest.mark.parametrize("k", [2, 8, 32, 100])
def test_the_bound_is_stated_for_the_learners_own_calibration(k, delta):
    """What the learner uses is what the theorem prescribes (ε_s, K, Λ: the threshold bit for bit;
    at δ = 0, ε_s = ε/(2K) written out here, since the learner and the bound share sv_epsilon_step)."""
    for eps in (0.5, 1.0, 4.0, 30.0):
        for horizon in (1_000, 10**6):
            cal = sv.calibrate(eps, delta, horizon, k)
            eps_s, composed = theory.sv_epsilon_step(eps, delta, k)
            if delta == 0:  # the theorem's basic composition, written out (not the shared function)
                assert eps_s == eps / (2 * (math.ceil(math.log2(k)) + 1))
            assert (cal.epsilon_step, cal.epsilon, cal.switches) == (eps_s, composed, theory.sv_switches(k))
            assert cal.threshold == 1.0 + 6.0 / eps_s * math.log(2 * horizon / 0.1)
            bound = theory.sv_regret_bound(horizon, eps, delta, k)
            assert bound == pytest.approx(2 * cal.threshold / horizon, rel=1e-12)


def test_the_failure_probability_stated_for_the_paper_grid():
    """The docstrings and the figure caption say p ≤ 0.08 on the paper grid (k ∈ {32, 100},
    T ∈ {10⁴, 10⁵, 10⁶}, ε ∈ {0.5, 1, 4}, δ = 1e-6); p ≥ β/2 always (the query-noise union bound)."""
    grid = [(t, k) for k in (32, 100) for t in (1e4, 1e5, 1e6)]
    p = np.array([theory.sv_failure_probability(t, [0.5, 1.0, 4.0], 1e-6, k) for t, k in grid])
    assert p.max() <= 0.08 and p.min() >= 0.05
    assert np.isnan(theory.sv_regret_bound(1e4, math.inf, 0.0, 8))


def _rows() -> pd.DataFrame:
    """Final rows of ``sv_experts`` on the realizable instance (k = 8, T = 2·10⁴, 30
    repetitions per ε), shaped like the experiment's results."""
    problem = ExpertsProblem(kind="realizable", k=K_EXPERTS)
    out = []
    for rep in range(REPS):
        target = problem.draw_target(rng=np.random.default_rng(rep))
        losses = target.losses(T, rng=np.random.default_rng(10_000 + rep))
        for eps in EPSILONS:
            trace = SVExperts(epsilon=eps, delta=0.0).run(losses, rng=np.random.default_rng([rep, int(eps * 10)]))
            out.append(dict(learner="sv_experts", private=True, epsilon=eps, delta=0.0, kind="realizable", k=K_EXPERTS,
                            gap=0.1, T=T, t=T, rep=rep, status="ok", problem_id="realizable-8", eta=math.nan,
                            regret=float(trace.regret[-1]), expected_regret=float(trace.expected_regret[-1])))
    return pd.DataFrame(out)


def _epsilon_row(df: pd.DataFrame) -> pd.Series:
    table = theory_check(df)
    rows = table[(table["learner"] == "sv_experts") & (table["x"] == "epsilon")]
    assert len(rows) == 1
    return rows.iloc[0]


def test_the_bound_holds_on_the_learners_own_runs():
    df = _rows()
    bound = theory.sv_regret_bound(T, df["epsilon"].to_numpy(), 0.0, K_EXPERTS)
    p = float(theory.sv_failure_probability(T, list(EPSILONS), 0.0, K_EXPERTS).max())
    assert np.mean(df["regret"].to_numpy() >= bound) <= p  # per run: a failure probability of ≤ p
    row = _epsilon_row(df)
    assert role_of(row) == "prediction"
    assert row["bound_kind"] == "bound" and row["cells_above_bound"] == 0
    assert row["verdict"] in ("agrees", "bound_holds", "steeper", "shallower") and row["bound_ratio"] < 1
    assert row["theory_exponent"] == pytest.approx(-1.0, abs=0.01)


def _broken(monkeypatch, *, noise: float = 1.0, threshold: float = 1.0) -> None:
    """A broken copy: the learner's own ``run`` under a miscalibrated sparse vector — its noise
    scales (2/ε_s, 4/ε_s) × ``noise`` (ε_s ÷ noise, the threshold kept), or Λ × ``threshold``."""
    right = sv.calibrate

    def wrong(epsilon, delta, T, k):
        cal = right(epsilon, delta, T, k)
        return SvCalibration(cal.epsilon_step / noise, cal.switches, cal.threshold * threshold, cal.epsilon, cal.delta)

    monkeypatch.setattr(sv, "calibrate", wrong)


@pytest.mark.parametrize("broken", [{"noise": K_EXPERTS}, {"threshold": 3.0}], ids=["noise_x_k", "threshold_x3"])
def test_a_broken_copy_is_caught_by_the_epsilon_row(monkeypatch, broken):
    _broken(monkeypatch, **broken)
    row = _epsilon_row(_rows())
    assert row["verdict"] == "violated" and row["cells_above_bound"] >= 1, row["note"]
