"""Issue 29's rules, each shown coming out both ways: roles, bound semantics (bound_holds,
violated, contradictions only for violated bounds and excluded tight rates), n* against a
proven sufficient sample size, and a floor detector that sees a floor coming. The listed cases
(dp_sgd at ε = 3 and against ε, exp_mech_grid against ε, exp_mech_erm's n* rows,
sq_conjunction's √(ln m/n) shape, the decision-list 3-point decays under a bound) are rebuilt
as synthetic curves with the default run's local slopes and ratios."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from dpbench.theory_check import verdict as V
from dpbench.theory_check.analysis import check_curve, curves, fit_regime
from dpbench.theory_check.nstar import check_n_star, check_n_star_at
from dpbench.theory_check.roles import role_of

KEY = json.dumps({"learner_params": {}})


def _curve_rows(x, means, *, reps=10, noise=0.03, seed=0, col="n", learner="dp_sgd"):
    """Repetitions of a curve with the given mean at each x (log-normal noise, paired offsets)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame([
        {"learner": learner, "private": True, "epsilon": 3.0, "delta": 1e-5, "problem": "logistic", "problem_id": "p",
         col: float(xv), "n": float(xv) if col == "n" else 30000.0, "rep": r, "y": float(m * math.exp(noise * rng.normal() - noise**2 / 2)),
         "status": "ok", "cell_key": KEY}
        for r in range(reps) for xv, m in zip(x, means)
    ])


def _with_local_slopes(x, slopes, y0=1.0):
    lx = np.log(np.asarray(x, dtype=float))
    return y0 * np.exp(np.concatenate([[0.0], np.cumsum(np.asarray(slopes) * np.diff(lx))]))


def _check(rows, x, exponent, **kw):
    curve = curves(rows, exclude=("epsilon", "n") if x == "epsilon" else ())[0]
    kw.setdefault("trivial", 10.0)
    return check_curve(curve, experiment="private_erm", x=x, y="y", exponent=exponent, **kw)


# --------------------------------------------------------------------------- the floor detector

N = np.array([100, 300, 1000, 3000, 10000, 30000])


def test_dp_sgd_at_eps_3_approaches_a_floor_and_is_not_shallower():
    """Local slopes −2.53, −2.42, −1.87, −1.27, −0.37 (dp_sgd, d = 10, ε = 3; fitted −1.51 over all six,
    'shallower' than −2 before): the last point is on the approach to a floor and is not fitted."""
    rows = _curve_rows(N, _with_local_slopes(N, [-2.53, -2.42, -1.87, -1.27, -0.37], 0.76))
    row = _check(rows, "n", -2.0)
    assert row["verdict"] != "shallower" and row["x_max"] < 30000
    assert "being approached" in row["note"] and np.isfinite(row["floor_level"])
    fit = fit_regime(rows["n"], rows["y"], rows["rep"], trivial=10.0, predicted=-2.0)
    assert fit.approached and fit.floor_from == 5


def test_dp_sgd_and_exp_mech_grid_against_eps_are_floors():
    """dp_sgd at n = 30000 (local slopes −1.06, −0.16 over ε = 0.3, 1, 3; theory −2) and exp_mech_grid
    (−0.44, −0.23; theory −1, its discretisation gap a floor): floor, not shallower."""
    eps = np.array([0.3, 1.0, 3.0])
    for slopes, exponent, learner in (([-1.06, -0.16], -2.0, "dp_sgd"), ([-0.44, -0.23], -1.0, "exp_mech_grid")):
        rows = _curve_rows(eps, _with_local_slopes(eps, slopes, 1e-3), col="epsilon", learner=learner)
        row = _check(rows, "epsilon", exponent)
        assert row["verdict"] == "floor", (learner, row["verdict"], row["note"])
        # the other way: the same points falling at the predicted rate are fitted, not a floor
        straight = _curve_rows(eps, _with_local_slopes(eps, [exponent, exponent], 1e-3), col="epsilon", learner=learner)
        assert _check(straight, "epsilon", exponent)["verdict"] == "agrees"


@pytest.mark.parametrize("exponent", [-1.0, -2.0, -0.5])
def test_a_clean_power_law_is_never_seen_approaching_a_floor(exponent):
    """Power laws with 10 % noise over 10 repetitions, 20 seeds each: no approach, agrees."""
    for seed in range(20):
        rows = _curve_rows(N, 3.0 * N.astype(float) ** exponent, noise=0.1, seed=seed)
        fit = fit_regime(rows["n"], rows["y"], rows["rep"], trivial=10.0, predicted=exponent)
        assert not fit.approached and fit.floor_from == len(N), seed
        assert _check(rows, "n", exponent)["verdict"] == "agrees", seed


def test_approach_start_on_its_own():
    lx = np.log(N.astype(float))
    bent = np.log(_with_local_slopes(N, [-2.5, -2.4, -1.9, -1.3, -0.37]))
    straight = np.log(_with_local_slopes(N, [-2.0] * 5))
    means = np.exp(np.vstack([bent, straight]))
    start = V.approach_start(lx, means, np.ones_like(means, dtype=bool), predicted=-2.0)
    assert list(start) == [5, 6]
    # a flattening the theory predicts is not a floor (decays False over the tail)
    assert V.approach_start(lx, means[:1], np.ones((1, 6), dtype=bool), -2.0, decays=np.zeros(6, dtype=bool))[0] == 6


# --------------------------------------------------------------------------- bound semantics


def test_bound_holds_and_violated_both_ways():
    """A curve learnt before the grid's third point (too few points for a slope) under a proven
    bound: bound_holds, with its ratio; the same curve above the bound: violated."""
    n = np.array([100, 200, 400, 800])
    means = np.array([0.05, 0.0, 0.0, 0.0])
    rows = _curve_rows(n, means)
    good = _check(rows, "n", None, rate=lambda v: 20 / np.asarray(v, float), kind="bound", trivial=0.5, holds_with=0.9)
    assert good["verdict"] == "bound_holds" and good["cells_above_bound"] == 0 and good["bound_ratio"] < 1
    assert "holds at all 4 cell(s)" in good["note"]
    bad = _check(rows, "n", None, rate=lambda v: 1 / np.asarray(v, float), kind="bound", trivial=0.5, holds_with=0.9)
    assert bad["verdict"] == "violated" and bad["cells_above_bound"] >= 1
    assert V.contradicts(bad["verdict"], bad["claim"]) and not V.contradicts(good["verdict"], good["claim"])


def test_three_point_exponential_decay_under_a_bound_is_described_not_contradicted():
    """The decision-list Occam / exp-mech rows: 3 points decaying much faster than the bound's n⁻¹,
    far below it — steeper, the bound holds, no contradiction; the same data above a tighter
    'bound' are violated."""
    n = np.array([24, 32, 48, 64, 96])
    means = np.array([0.3, 0.2, 0.06, 0.01, 0.0])
    rows = _curve_rows(n, means, noise=0.05)
    row = _check(rows, "n", None, rate=lambda v: 10 / np.asarray(v, float), kind="bound", trivial=0.5, holds_with=0.9)
    assert row["verdict"] in ("steeper", "bound_holds") and row["cells_above_bound"] == 0
    assert not V.contradicts(row["verdict"], row["claim"])
    tight = _check(rows, "n", None, rate=lambda v: 1 / np.asarray(v, float), kind="bound", trivial=0.5, holds_with=0.9)
    assert tight["verdict"] == "violated"


def test_a_shape_steeper_than_an_upper_bound_is_not_a_contradiction_but_a_tight_rate_is():
    """sq_conjunction: −1.29 [−1.77, −0.73] against the √(ln m/n) upper-bound shape is steeper, no
    contradiction; the same interval against a rate stated as tight contradicts it."""
    assert not V.contradicts("steeper", "upper") and V.contradicts("steeper", "tight")
    assert not V.contradicts("shallower", "lower") and V.contradicts("violated", "upper")
    rows = _curve_rows(N, 2.0 * N.astype(float) ** -1.3)
    upper = _check(rows, "n", None, rate=lambda v: np.sqrt(np.log(20) / np.asarray(v, float)), kind="shape")
    assert upper["verdict"] == "steeper" and not V.contradicts(upper["verdict"], upper["claim"])
    assert "not a contradiction" in upper["note"]
    tight = _check(rows, "n", -0.5, claim="tight")
    assert tight["verdict"] == "steeper" and V.contradicts(tight["verdict"], tight["claim"])


def _nstar_rows(crossing, eps=(0.03, 0.1, 0.3, 1.0, 3.0, 10.0), reps=10, n=2 ** np.arange(4, 19)):
    rng = np.random.default_rng(3)
    return pd.DataFrame([
        {"learner": "exp_mech_erm", "private": True, "epsilon": e, "n": int(x), "rep": r,
         "error": float(min(0.5, 0.01 * crossing(e) * math.exp(0.1 * rng.normal()) / x)), "status": "ok", "cell_key": KEY}
        for e in eps for r in range(reps) for x in n
    ])


def test_exp_mech_erm_n_star_rows_hold_their_bounds_and_are_steeper_not_contradicted():
    """n* ∝ ε^−0.84 at 0.035 of a sufficient sample size ∝ ε^−0.48: steeper, the bound holds at
    every ε; n* above the bound: violated."""
    rows = _nstar_rows(lambda e: 300 * e**-0.84)
    bound = lambda e: 3e5 * np.asarray(e, float) ** -0.48  # noqa: E731
    row = check_n_star(rows, experiment="conjunctions", learner="exp_mech_erm", regime="r", alpha=0.01, beta=0.1, theory_n=bound, kind="bound")
    assert row["bound_kind"] == "bound" and row["cells_above_bound"] == 0 and row["bound_ratio"] < 0.2
    assert row["verdict"] == "steeper" and not V.contradicts(row["verdict"], row["claim"])
    low = lambda e: 30 * np.asarray(e, float) ** -0.48  # noqa: E731
    bad = check_n_star(rows, experiment="conjunctions", learner="exp_mech_erm", regime="r", alpha=0.01, beta=0.1, theory_n=low, kind="bound")
    assert bad["verdict"] == "violated" and bad["cells_above_bound"] > 0


def test_n_star_against_the_finite_class_bound_both_ways():
    n = np.array([16, 32, 64, 128, 256, 512])
    rows = pd.DataFrame([{"learner": "rivest", "n": int(x), "rep": r, "error": 0.3 if x < 64 else 0.0, "status": "ok"}
                         for r in range(10) for x in n])
    holds = check_n_star_at(rows, experiment="decision_lists", learner="rivest", regime="r", alpha=0.05, beta=0.1, n_bound=200.0)
    assert holds["verdict"] == "bound_holds" and holds["bound_ratio"] < 1 and holds["role"] is None
    bad = check_n_star_at(rows, experiment="decision_lists", learner="rivest", regime="r", alpha=0.05, beta=0.1, n_bound=40.0)
    assert bad["verdict"] == "violated" and bad["bound_ratio"] > 1
    never = rows.assign(error=0.3)
    assert check_n_star_at(never, experiment="d", learner="rivest", regime="r", alpha=0.05, beta=0.1, n_bound=200.0)["verdict"] == "violated"
    assert check_n_star_at(never, experiment="d", learner="rivest", regime="r", alpha=0.05, beta=0.1, n_bound=1e4)["verdict"] == "too_few_points"
    # a bound above the grid's largest n is not tested, however early the data learn: no n* on
    # the grid could exceed it (not `bound_holds`)
    above = check_n_star_at(rows, experiment="d", learner="rivest", regime="r", alpha=0.05, beta=0.1, n_bound=1e4)
    assert above["verdict"] == "too_few_points" and above["cells"] == 0


def test_the_finite_class_bound_is_what_its_derivation_says():
    from dpbench import theory

    n = float(theory.n_finite_class(0.05, 500.0, 0.1))
    assert math.exp(500.0) * (1 - 0.05) ** n == pytest.approx(0.1, rel=1e-9)  # |C|(1 − α)ⁿ = β exactly at n
    assert n < float(theory.n_consistent(0.05, 500.0, 0.1))


# --------------------------------------------------------------------------- roles


@pytest.mark.parametrize(("row", "role"), [
    ({"experiment": "halfspaces_online", "x": "t", "y": "mistake_rate"}, "sanity"),
    ({"experiment": "halfspaces_online", "x": "epsilon", "y": "mistakes"}, "prediction"),
    ({"experiment": "halfspaces_online", "x": "ln_N", "y": "mistakes"}, "prediction"),
    ({"experiment": "experts", "x": "T", "y": "expected_regret"}, "sanity"),
    ({"experiment": "experts", "x": "epsilon", "y": "expected_regret"}, "prediction"),
    ({"experiment": "experts", "x": "k", "y": "expected_regret"}, "prediction"),
    ({"experiment": "linear_loss", "x": "T", "y": "excess_loss"}, "sanity"),
    ({"experiment": "private_erm", "x": "n", "y": "excess_loss"}, "sanity"),
    ({"experiment": "private_erm", "x": "epsilon", "y": "excess_loss"}, "sanity"),
    ({"experiment": "private_erm", "x": "epsilon", "y": "pop_excess_loss"}, "sanity"),
    ({"experiment": "private_erm", "x": "n", "y": "pop_excess_loss"}, "sanity"),
    ({"experiment": "decision_lists", "x": "epsilon", "y": "n_star"}, "prediction"),
    ({"experiment": "conjunctions", "x": "n", "y": "error"}, "prediction"),
    ({"experiment": "decision_lists", "x": "n_features", "y": "fit_seconds"}, "sanity"),
])
def test_roles(row, role):
    assert role_of(row) == role
