"""Experts family: kernel vs step-by-step reference, problems, calibrations (exact
accounting), ε → ∞ consistency, and the empirical privacy audit on neighbouring loss
sequences (one round's loss vector changed), including a broken variant that must be caught."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbench import theory
from dpbench.learners.experts_common import ExpertsLosses, reference_hedge, run_hedge
from dpbench.learners.ftl import FTL
from dpbench.learners.linear_learner import LinearLearner
from dpbench.learners.private_mw_001 import PrivateMW001
from dpbench.learners.private_rwm import PrivateRWM
from dpbench.learners.private_rwm import calibrate as calibrate_seeds
from dpbench.learners.private_rwm_tight import PrivateRWMTight, eta_gain
from dpbench.learners.private_rwm_tight import calibrate as calibrate_tight
from dpbench.learners.rwm import RWM
from dpbench.learners.sv_experts import SVExperts
from dpbench.learners.sv_experts import calibrate as calibrate_sv
from dpbench.mechanisms.accounting import compose_bounded_range
from dpbench.mechanisms.composition import advanced
from dpbench.problems.experts import ExpertsProblem
from dpbench.problems.linear_loss import LinearLossProblem

#: audit confidence: a correct mechanism is refuted with probability ≤ (1 − c)/2 = 1e-6.
CONFIDENCE = 1 - 2e-6


def _losses(kind: str, k: int, T: int, seed: int = 0) -> ExpertsLosses:
    target = ExpertsProblem(kind=kind, k=k, gap=0.2).draw_target(rng=np.random.default_rng(seed))
    return target.losses(T, rng=np.random.default_rng(seed + 1))


# --------------------------------------------------------------------------- kernel


@pytest.mark.parametrize("kind,k", [("stochastic", 5), ("ftl_trap", 2), ("realizable", 6), ("switching", 4), ("coin", 3)])
@pytest.mark.parametrize("eta", [0.0, 0.03, 0.7, math.inf])
def test_kernel_matches_step_by_step_reference(kind, k, eta):
    losses = _losses(kind, k, 400)
    trace = run_hedge(losses, eta, rng=np.random.default_rng(7))
    real, expd, best = reference_hedge(losses, eta, rng=np.random.default_rng(7))
    assert trace.alg_loss[-1] == pytest.approx(real, abs=1e-9)
    assert trace.expected_loss[-1] == pytest.approx(expd, rel=1e-10)
    assert trace.best_loss[-1] == best
    assert trace.counts.sum() == 400


def test_checkpoints_are_prefix_consistent():
    losses = _losses("stochastic", 5, 2000)
    full = run_hedge(losses, 0.05, rng=np.random.default_rng(3), n_checkpoints=6)
    assert full.t[-1] == 2000 and len(full.t) >= 5
    for t, a in zip(full.t, full.alg_loss):
        part = run_hedge(losses.prefix(int(t)), 0.05, rng=np.random.default_rng(3))
        assert part.alg_loss[-1] == a


# --------------------------------------------------------------------------- problems


def test_loss_sequences_are_nested_across_T_and_compact():
    target = ExpertsProblem(kind="stochastic", k=7, gap=0.1).draw_target(rng=np.random.default_rng(0))
    long = target.losses(70_000, rng=np.random.default_rng(5))
    short = target.losses(40_000, rng=np.random.default_rng(5))
    assert long.codes.dtype == np.uint8
    np.testing.assert_array_equal(long.codes[:40_000], short.codes)


def test_ftl_trap_sequence_and_linear_regret_of_ftl():
    losses = _losses("ftl_trap", 2, 1001)
    np.testing.assert_array_equal(losses.losses()[:4], [[0.5, 0], [0, 1], [1, 0], [0, 1]])
    ftl = FTL().run(losses, rng=np.random.default_rng(0))
    assert ftl.regret[-1] == pytest.approx(0.5, abs=0.01)  # deterministic: FTL always picks the loser
    rwm = RWM().run(losses, rng=np.random.default_rng(0))
    assert rwm.expected_regret[-1] <= theory.regret_rwm(1001, 2)


def test_realizable_and_switching_sequences():
    target = ExpertsProblem(kind="realizable", k=6).draw_target(rng=np.random.default_rng(2))
    L = target.losses(500, rng=np.random.default_rng(3))
    assert L.codes[:, target.best].sum() == 0 and L.codes.sum() > 0
    target = ExpertsProblem(kind="switching", k=4, gap=0.2).draw_target(rng=np.random.default_rng(2))
    L = target.losses(40_000, rng=np.random.default_rng(3)).losses()
    assert np.argmin(L[:20_000].sum(0)) == target.best
    assert np.argmin(L.sum(0)) == target.second


def test_problem_parameters_are_validated():
    with pytest.raises(ValueError, match="kind"):
        ExpertsProblem(kind="nope")
    with pytest.raises(ValueError, match="k"):
        ExpertsProblem(kind="ftl_trap", k=3)
    with pytest.raises(ValueError, match="gap"):
        ExpertsProblem(kind="switching", gap=0.3)
    with pytest.raises(ValueError, match="gap"):
        LinearLossProblem(d=3, gap=0.0)


def test_linear_loss_population_loss_is_exact():
    target = LinearLossProblem(d=5, gap=0.4).draw_target(rng=np.random.default_rng(1))
    L = target.losses(200_000, rng=np.random.default_rng(2))
    x_mean = 2 * L.codes.mean(axis=0) - 1
    np.testing.assert_allclose(x_mean, target.mu, atol=5.5 * math.sqrt(1 / 200_000))  # 5.5σ per coordinate
    theta = np.full(5, 0.2)
    assert target.population_loss(theta) == pytest.approx(target.mu.mean())
    assert target.excess_loss(np.eye(5)[np.argmin(target.mu)]) == 0.0


# --------------------------------------------------------------------------- calibrations


def test_private_rwm_calibration_is_the_seeds_formula_and_composes_within_target():
    eps, delta, T, k = 1.0, 1e-6, 10_000, 100
    cal = calibrate_seeds(eps, delta, T, k)
    assert cal.eta_privacy == pytest.approx(eps / math.sqrt(32 * T * math.log(1 / delta)), rel=1e-15)
    assert cal.eta == cal.eta_privacy  # below the non-private cap here
    assert cal.epsilon == pytest.approx(advanced(2 * cal.eta, T, delta)[0], rel=1e-12)
    assert cal.epsilon <= eps
    # large ε: capped at the non-private rate
    assert calibrate_seeds(1000.0, delta, T, k).eta == pytest.approx(math.sqrt(math.log(k) / T))


@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
def test_tight_calibration_meets_target_and_buys_a_larger_eta(eps):
    delta, T, k = 1e-6, 100_000, 10**6  # huge k: the cap never binds
    cal = calibrate_tight(eps, delta, T, k)
    assert compose_bounded_range(2 * cal.eta, T, delta) <= eps
    assert compose_bounded_range(2 * cal.eta * 1.001, T, delta) > eps  # and it is (nearly) the largest
    assert 3.0 < eta_gain(eps, delta, T, k) < 6.0


def test_private_mw_001_alpha_and_certification():
    """The notes' α; runs only where the accountant certifies (tests/test_privacy_mw001.py)."""
    learner = PrivateMW001(epsilon=2.0, delta=1e-6)
    T = 100_000
    assert learner.eta(T, 10) == pytest.approx(math.sqrt(2.0 / (12 * T)))
    assert learner.supports_horizon(T, 10) is None
    assert "certified delta" in PrivateMW001(epsilon=1.0, delta=1e-6).supports_horizon(T, 10)


def test_sv_experts_calibration():
    cal = calibrate_sv(1.0, 0.0, 1000, 16)
    assert cal.switches == 5 and cal.epsilon_step == pytest.approx(1.0 / 10) and cal.epsilon == pytest.approx(1.0)
    assert calibrate_sv(1.0, 1e-6, 1000, 16).epsilon <= 1.0


def test_private_learners_need_delta():
    with pytest.raises(ValueError, match="delta"):
        PrivateRWM(epsilon=1.0, delta=0.0)
    with pytest.raises(ValueError, match="delta"):
        PrivateRWMTight(epsilon=1.0, delta=0.0)


# --------------------------------------------------------------------------- ε → ∞


@pytest.mark.parametrize("cls", [PrivateRWM, PrivateRWMTight])
def test_epsilon_infinity_is_rwm(cls):
    losses = _losses("stochastic", 8, 3000)
    a = cls(epsilon=math.inf, delta=1e-6).run(losses, rng=np.random.default_rng(4))
    b = RWM().run(losses, rng=np.random.default_rng(4))
    np.testing.assert_array_equal(a.counts, b.counts)
    assert a.expected_loss[-1] == b.expected_loss[-1]


def test_linear_learner_epsilon_infinity_is_rwm():
    target = LinearLossProblem(d=4, gap=0.5).draw_target(rng=np.random.default_rng(0))
    losses = target.losses(5000, rng=np.random.default_rng(1))
    theta = LinearLearner(epsilon=math.inf, delta=1e-6).fit(losses, rng=np.random.default_rng(2))
    rwm = RWM().run(losses, rng=np.random.default_rng(2))
    np.testing.assert_allclose(theta, rwm.counts / 5000)


def test_sv_experts_epsilon_to_infinity():
    """At ε = 10^9 the noise is < 1e-7 and Λ − 1 < 1e-6: the same switch rounds as the
    ε = ∞ twin (which switches at the first loss); both have regret ≤ (K + 1)/T here."""
    losses = _losses("realizable", 16, 5000)
    big = SVExperts(epsilon=1e9).run(losses, rng=np.random.default_rng(3))
    inf = SVExperts(epsilon=math.inf).run(losses, rng=np.random.default_rng(3))
    K = calibrate_sv(math.inf, 0.0, 5000, 16).switches
    for trace in (big, inf):
        assert trace.alg_loss[-1] <= K + 1
    assert big.diagnostics["updates"] <= K and inf.diagnostics["updates"] <= K


# audits of the experts learners (first-round loss swap, correct and broken copies): tests/test_audit.py



# --------------------------------------------------------------------------- theory from recorded columns


def test_eta_at_interpolates_power_laws_exactly_and_not_beyond_the_grid():
    T = np.array([1000.0, 10_000.0, 100_000.0])
    eta = 0.3 / np.sqrt(T)
    xs = np.array([3162.0, 31_623.0])
    np.testing.assert_allclose(theory.eta_at(xs, T, eta), 0.3 / np.sqrt(xs), rtol=1e-12)
    assert np.isnan(theory.eta_at(np.array([500.0, 2e5]), T, eta)).all()


def test_experts_rate_is_thm_11_1_at_the_recorded_eta():
    """The figure/check rate equals regret_hedge at each grid point's recorded η, so no
    calibration is re-run; the realized-regret version adds Azuma and holds w.p. 1 − β."""
    import pandas as pd

    T = np.array([1000, 10_000, 100_000])
    etas = np.array([PrivateRWM(epsilon=1.0, delta=1e-6).eta(int(t), 10) for t in T])
    rows = pd.DataFrame({"kind": "stochastic", "k": 10, "T": T, "epsilon": 1.0, "eta": etas})
    rate = theory.experts_rate_of("private_rwm", rows)
    np.testing.assert_allclose(rate.curve(T.astype(float)), theory.regret_hedge(T, etas, 10), rtol=1e-12)
    assert (rate.kind, rate.holds_with) == ("bound", 1.0)
    realized = theory.experts_rate_of("private_rwm", rows, metric="regret", beta=0.1)
    np.testing.assert_allclose(realized.curve(T.astype(float)) - rate.curve(T.astype(float)), np.sqrt(2 * math.log(10) / T))
    assert realized.holds_with == pytest.approx(0.9)
    sv = theory.experts_rate_of("sv_experts", rows.assign(kind="realizable", delta=1e-6))
    assert sv.kind == "bound" and 0.9 < sv.holds_with < 0.95  # its derived bound (tests/test_sv_bound.py)
    np.testing.assert_allclose(sv.curve(T.astype(float)), theory.sv_regret_bound(T, 1.0, 1e-6, 10), rtol=1e-12)
    assert theory.experts_rate_of("ftl", rows) is None
    assert theory.trivial_regret("stochastic", 10, 0.2) == pytest.approx(0.18)
