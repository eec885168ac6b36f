"""``rivest``, ``privdl``, ``privdl_composition`` and the decision-list baselines
([Riv87]; [BF26, §3]): consistency, incremental counts, exact privacy accounting, ε → ∞."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbench import theory
from dpbench.experiments.base import draw_target, run_batch_cell
from dpbench.foundation.cell import Cell, freeze
from dpbench.learners.base import ADD_REMOVE, REPLACE_ONE
from dpbench.learners.exp_mech_erm import ExpMechERM
from dpbench.learners.privdl import (
    PrivDL,
    covering_list,
    exp_mech_select,
    privdl_calibration,
    set_cover_privacy,
)
from dpbench.learners.privdl_composition import (
    PrivDLComposition,
    composition_calibration,
)
from dpbench.learners.rivest import CoverState, Rivest, feature_matrix
from dpbench.mechanisms.composition import advanced
from dpbench.problems.decision_list import DecisionListProblem
from dpbench.theory_check.fit import clopper_pearson


@pytest.fixture(scope="module")
def target():
    return DecisionListProblem(d=8, k=2, l=4, r=2).draw_target(rng=np.random.default_rng(11))


@pytest.mark.parametrize("learner", [Rivest(), Rivest(choice="uniform"), PrivDL(epsilon=math.inf, delta=0.0), PrivDLComposition(epsilon=math.inf)])
def test_non_private_limits_are_consistent(target, learner):
    """Realizable data: Rivest and the ε = ∞ limits of the private learners fit the sample exactly."""
    for seed in range(3):
        sample = target.sample(1500, rng=np.random.default_rng(seed))
        h = learner.fit(sample, rng=np.random.default_rng(seed))
        assert np.array_equal(h.predict(sample.X), sample.y)


def test_epsilon_infinity_matches_rivest_within_occam_bound(target):
    """ε → ∞: privdl and privdl_composition are consistent learners over F-decision lists, like
    rivest, so all three obey the Occam bound (ln|C| + ln(1/β))/n. With β = 1e-6 each of the
    3 × 4 checks fails with probability ≤ 1e-6 for a correct implementation."""
    f = target.features.size
    bound = float(theory.rate_rivest(2000, f, beta=1e-6))
    for seed in range(4):
        sample = target.sample(2000, rng=np.random.default_rng(50 + seed))
        errors = [
            target.population_error(learner.fit(sample, rng=np.random.default_rng(seed)))
            for learner in (Rivest(), PrivDL(epsilon=math.inf, delta=0.0), PrivDLComposition(epsilon=math.inf))
        ]
        assert max(errors) <= bound


def test_rivest_on_noisy_data_stops_with_a_default(rng):
    target = DecisionListProblem(d=6, k=1, l=3, r=2, noise=0.2).draw_target(rng=rng)
    sample = target.sample(500, rng=rng)
    h = Rivest().fit(sample, rng=rng)
    assert h.default in (0, 1) and len(h) <= target.features.size
    assert 0.2 <= target.population_error(h) < 0.6


def test_incremental_counts_equal_recounts(target):
    sample = target.sample(700, rng=np.random.default_rng(3))
    packed = feature_matrix(sample)
    F = target.features
    phi = F.evaluate(sample.X)
    state = CoverState(packed, sample.y, F.size)
    y = sample.y.astype(bool)
    for f in np.random.default_rng(4).permutation(F.size)[:40]:
        state.cover(int(f))
        alive = np.zeros(len(y), dtype=bool)
        alive[state.alive] = True
        np.testing.assert_array_equal(state.pos, phi[alive & y].sum(axis=0))
        np.testing.assert_array_equal(state.neg, phi[alive & ~y].sum(axis=0))
    for lam in (0.05, 1.0, math.inf):  # same rng stream → the same list, whichever way counts are kept
        a = covering_list(sample, lam, rng=np.random.default_rng(9))
        b = covering_list(sample, lam, rng=np.random.default_rng(9), incremental=False)
        np.testing.assert_array_equal(a.features, b.features)
        np.testing.assert_array_equal(a.bits, b.bits)


def test_exponential_mechanism_selection_frequencies():
    """``exp_mech_select`` draws (f, b) with P ∝ exp(λ q): for each candidate the observed count
    of 60,000 draws lies in its two-sided Clopper–Pearson interval at 1 − 1e-7 (8 candidates:
    false alarm < 1e-6)."""
    pos = np.array([0, 3, 1, 0])
    neg = np.array([2, 0, 1, 0])
    available = np.array([True, True, True, False])
    lam = 0.7
    rng = np.random.default_rng(123)
    draws = np.array([exp_mech_select(pos, neg, available, rng, lam) for _ in range(60_000)])
    scores = np.concatenate([-pos, -neg]).astype(float)  # index b·|F| + f
    weights = np.where(np.concatenate([available, available]), np.exp(lam * scores), 0.0)
    p = weights / weights.sum()
    counts = np.bincount(draws[:, 1] * 4 + draws[:, 0], minlength=8)
    lo, hi = clopper_pearson(counts, len(draws), confidence=1 - 1e-7)
    assert np.all((lo <= p) & (p <= hi))
    assert counts[3] == counts[7] == 0  # the used feature is never drawn again


def test_privdl_accounting_is_exact():
    eps, delta = 1.0, 1e-6
    lam, e_total, d_total = privdl_calibration(eps, delta, REPLACE_ONE)
    assert lam == eps / (4 * math.log(math.e * (1 + math.exp(eps / 2)) / delta))
    assert e_total == pytest.approx(eps, rel=1e-12) and d_total == pytest.approx(delta, rel=1e-12)
    assert PrivDL(epsilon=eps, delta=delta).guarantee().epsilon <= eps * (1 + 1e-12)
    assert PrivDL(epsilon=eps, delta=delta).guarantee().neighbours == REPLACE_ONE
    lam_ar, e_ar, d_ar = privdl_calibration(eps, delta, ADD_REMOVE)
    assert lam_ar == eps / (2 * math.log(math.e / delta))  # [BF26, Lemma A.1], add/remove
    assert (e_ar, d_ar) == pytest.approx((eps, delta), rel=1e-12)
    assert set_cover_privacy(lam_ar, delta, ADD_REMOVE) == pytest.approx((eps, delta), rel=1e-12)
    # replace-one costs less than half of the add/remove λ (group privacy), within 10% of ε/(4 ln(e/δ))
    assert eps / (4 * math.log(math.e / delta)) * 0.9 < lam < lam_ar / 2


def test_privdl_rejects_bad_privacy_parameters():
    with pytest.raises(ValueError, match="delta"):
        PrivDL(epsilon=1.0, delta=0.0)
    with pytest.raises(ValueError, match="neighbours"):
        PrivDL(epsilon=1.0, delta=1e-6, neighbours="swap")
    with pytest.raises(ValueError, match="epsilon"):
        PrivDL(epsilon=-1.0, delta=1e-6)


def test_composition_accounting_is_exact():
    eps, delta = 1.0, 1e-6
    eps0, total, d_total = composition_calibration(eps, delta, 21)
    assert eps0 == eps / 21 and total == pytest.approx(eps) and d_total == 0.0  # basic wins at small |F|
    eps0, total, d_total = composition_calibration(eps, delta, 5001)
    assert eps0 > eps / 5001  # advanced wins at large |F|
    assert advanced(eps0, 5001, delta) == pytest.approx((total, d_total), rel=1e-9)
    assert total <= eps * (1 + 1e-9) and d_total == delta
    assert composition_calibration(eps, 0.0, 10) == (0.1, pytest.approx(1.0), 0.0)


def test_set_cover_beats_composition_above_the_crossover():
    """The ablation's point: the composition λ shrinks with |F|, the set-cover λ does not."""
    privdl = PrivDL(epsilon=1.0, delta=1e-6).lam()
    comp = PrivDLComposition(epsilon=1.0, delta=1e-6)
    assert comp.lam(21) > privdl > comp.lam(201) > comp.lam(5001)
    assert comp.lam(5001) < privdl / 10


def test_exp_mech_erm_over_decision_lists_runs_below_and_skips_above_the_cap():
    small = DecisionListProblem(d=2, k=1, l=2, r=1).draw_target(rng=np.random.default_rng(0))
    big = DecisionListProblem(d=4, k=1, l=2, r=1).draw_target(rng=np.random.default_rng(0))
    learner = ExpMechERM(epsilon=2.0)
    assert learner.supports(small) is None
    reason = learner.supports(big)
    assert reason is not None and "max_hypotheses" in reason
    h = learner.fit(small.sample(256, rng=np.random.default_rng(1)), rng=np.random.default_rng(2))
    assert 0 <= small.population_error(h) <= 1


def test_batch_cell_rows_carry_features_and_guarantee():
    cell = Cell("decision_lists", "decision_list", freeze({"d": 4, "k": 1, "l": 2, "r": 1}), "exp_mech_erm", freeze({}), 1.0, 0.0, 128, 2)
    rows = run_batch_cell(cell, draw_target(cell, root_seed=1), 1)
    assert [r["status"] for r in rows] == ["skipped", "skipped"] and "max_hypotheses" in rows[0]["reason"]
    assert rows[0]["n_features"] == 9
    cell = Cell("decision_lists", "decision_list", freeze({"d": 6, "k": 2, "l": 3, "r": 2}), "privdl", freeze({}), 2.0, 1e-6, 256, 2)
    rows = run_batch_cell(cell, draw_target(cell, root_seed=1), 1)
    assert all(r["status"] == "ok" and r["n_features"] == 73 and r["eps_reported"] <= 2.0 for r in rows)
    assert all(r["fit_seconds"] > 0 and 0 <= r["error"] <= 1 for r in rows)
