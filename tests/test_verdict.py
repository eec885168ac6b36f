"""dpbench.theory_check.verdict and the judged theory-check rows: every verdict is shown coming out on data
made for it and the other way on data made against it (a label that cannot fail is a defect)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from dpbench.theory_check import verdict as V
from dpbench.theory_check.analysis import THEORY_COLUMNS, check_curve, curves, fit_regime, late_window_rate
from dpbench.theory_check.nstar import check_n_star, crossing_sizes, n_star_of

N = np.array([64, 128, 256, 512, 1024, 2048, 4096])


def _rows(error, *, n=N, reps=10, seed=0):
    """One curve's results rows, ``error(n, rep, rng)``."""
    rng = np.random.default_rng(seed)
    key = json.dumps({"learner_params": {}})
    return pd.DataFrame([
        {"learner": "erm", "private": False, "epsilon": math.inf, "delta": 0.0, "problem": "conjunction", "problem_id": "p",
         "n": int(x), "rep": r, "error": float(error(x, r, rng)), "status": "ok", "cell_key": key}
        for r in range(reps) for x in n
    ])


def _check(rows, **kw):
    curve = curves(rows)[0]
    kw.setdefault("trivial", 0.5)
    return check_curve(curve, experiment="x", x="n", y="error", **kw)


def power(exponent, scale=20.0, noise=0.05):
    """y = scale · n^exponent · exp(noise·Z) per cell, with a per-repetition offset."""
    return lambda n, r, rng: scale * n**exponent * math.exp(noise * rng.normal() + 0.02 * ((r % 3) - 1))


def test_compare_covers_every_direction():
    assert V.compare(-1.0, -1.05, -0.95) == "agrees"
    assert V.compare(-1.0, -1.5, -0.85) == "inconclusive"  # overlaps, 0.65 wide
    assert V.compare(-1.0, -1.6, -1.2) == "steeper"
    assert V.compare(-1.0, -0.8, -0.6) == "shallower"
    assert V.compare(1.0, 1.2, 1.4) == "steeper" and V.compare(1.0, 0.2, 0.6) == "shallower"
    assert V.compare(0.0, 0.2, 0.3) == "steeper" and V.compare(0.0, -0.05, 0.05) == "agrees"
    assert V.compare(-1.0, -0.9, -0.85) == "agrees"  # touches exponent + 0.1
    assert V.compare(-1.0, -1.0, -0.53, slope=-0.55) == "inconclusive"  # estimate 0.45 off: the regime flips
    assert V.compare(-1.0, -1.0, -0.53, slope=-0.8) == "agrees"


def test_agrees_and_its_opposites_on_the_same_data():
    rows = _rows(power(-1.0))
    row = _check(rows, exponent=-1.0)
    assert row["verdict"] == "agrees" and row["status"] == "ok"
    assert row["slope_ci_low"] <= -1.0 <= row["slope_ci_high"] and row["slope_ci_high"] - row["slope_ci_low"] <= 0.5
    assert _check(rows, exponent=-0.5)["verdict"] == "shallower" or _check(rows, exponent=-0.5)["verdict"] == "steeper"
    assert _check(rows, exponent=-0.5)["verdict"] == "steeper"  # measured −1 falls faster than −0.5
    assert _check(rows, exponent=-2.0)["verdict"] == "shallower"
    assert set(row) == set(THEORY_COLUMNS)


def test_wide_interval_is_inconclusive_not_agrees():
    rows = _rows(power(-1.0, noise=1.5), reps=6, seed=3)
    row = _check(rows, exponent=-1.0)
    assert row["slope_ci_high"] - row["slope_ci_low"] > 0.5
    assert row["verdict"] in ("inconclusive", "steeper", "shallower") and row["verdict"] != "agrees"


def test_too_few_reps_gives_no_interval():
    four = _rows(power(-1.0), reps=4)
    row = _check(four, exponent=-1.0)
    assert row["verdict"] == "too_few_reps" and math.isnan(row["slope_ci_low"]) and np.isfinite(row["fitted_slope"])
    assert _check(_rows(power(-1.0), reps=5), exponent=-1.0)["verdict"] == "agrees"


def test_shape_only_never_agrees():
    rows = _rows(power(-1.0))
    assert _check(rows, exponent=-1.0, reconstructed=True)["verdict"] == "shape_only"
    assert _check(rows, exponent=-1.0, reconstructed=False)["verdict"] == "agrees"


def test_at_chance_and_vacuous_bound():
    chance = _rows(lambda n, r, rng: 0.5 + 0.01 * rng.normal())
    assert _check(chance, exponent=-1.0)["verdict"] == "at_chance"
    learning = _rows(power(-1.0))
    assert _check(learning, exponent=-1.0)["verdict"] != "at_chance"
    above = _check(learning, rate=lambda n: np.full(np.shape(n), 0.9), kind="bound")
    assert above["verdict"] == "vacuous_bound"
    below = _check(learning, rate=lambda n: 100.0 / np.asarray(n, float), kind="bound")
    assert below["verdict"] == "agrees" and below["cells_above_bound"] == 0


def test_bound_ratio_is_the_largest_ratio_in_the_regime():
    rows = _rows(lambda n, r, rng: 10.0 / n)  # deterministic: max over reps = 10/n
    row = _check(rows, rate=lambda n: 40.0 / np.asarray(n, float), kind="bound")
    assert row["bound_ratio"] == pytest.approx(0.25)
    tight = _check(rows, rate=lambda n: 8.0 / np.asarray(n, float), kind="bound")
    assert tight["bound_ratio"] == pytest.approx(1.25) and tight["cells_above_bound"] == len(N)


def test_deterministic_floor_is_not_fitted_and_can_decide():
    """Decay as n⁻¹ to n = 256, then every repetition at exactly 1e-3 (an SQ-tolerance-like
    floor): the floor is detected, its points are not fitted; with only 2 points above it
    the verdict is ``floor`` — the same curve continuing to decay agrees."""
    floored = _rows(lambda n, r, rng: max(0.256 / n, 1e-3) if n > 256 else 0.256 / n * math.exp(0.05 * rng.normal()))
    row = _check(floored, exponent=-1.0)
    assert row["verdict"] == "floor" and row["floor_level"] == pytest.approx(1e-3, rel=0.05)
    assert "floor" in row["note"]
    decaying = _rows(lambda n, r, rng: 0.256 / n * math.exp(0.05 * rng.normal()))
    ok = _check(decaying, exponent=-1.0)
    assert ok["verdict"] == "agrees" and math.isnan(ok["floor_level"])


def test_partial_floor_fits_the_part_above_it():
    n = 2 ** np.arange(4, 13)
    partly = _rows(lambda x, r, rng: max(8.0 / x * math.exp(0.03 * rng.normal()), 0.004) if x < 2048 else 0.004, n=n)
    row = _check(partly, exponent=-1.0)
    assert row["x_max"] < 2048 and row["verdict"] == "agrees"


def test_plateau_is_a_floor_only_where_the_theory_decays():
    n = 2 ** np.arange(4, 14)
    flat_tail = _rows(lambda x, r, rng: (4.0 / x if x <= 512 else 4.0 / 512) * math.exp(0.05 * rng.normal()), n=n)
    decaying = _check(flat_tail, rate=lambda x: 4.0 / np.asarray(x, float), kind="shape")
    assert decaying["x_max"] <= 512 and np.isfinite(decaying["floor_level"])
    flat_theory = _check(flat_tail, rate=lambda x: np.maximum(4.0 / np.asarray(x, float), 4.0 / 512), kind="shape")
    assert math.isnan(flat_theory["floor_level"])  # the theory predicts the flat tail: not a floor


def test_regime_is_the_last_contiguous_run():
    """Two early sizes fall below half the trivial level by chance, then the curve is at
    chance, then learns: only the contiguous tail is fitted."""
    n = 2 ** np.arange(1, 12)

    def error(x, r, rng):
        if x <= 4:
            return 0.1
        if x <= 64:
            return 0.5
        return 0.2 * (128 / x) * math.exp(0.03 * rng.normal())

    row = _check(_rows(error, n=n), exponent=-1.0)
    assert row["x_min"] == 128 and row["verdict"] == "agrees"
    np.testing.assert_array_equal(V.last_run(np.array([[1, 1, 0, 1, 1, 1], [0, 0, 0, 0, 0, 0], [1, 0, 1, 0, 1, 0]], bool)),
                                  np.array([[0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0]], bool))


def test_regime_is_chosen_inside_every_resample():
    """A point at the margin is in the regime in some resamples and not in others: the
    interval of the regime-aware fit is wider than the one with the range fixed once."""
    from dpbench.theory_check.fit import fit_slope

    def error(x, r, rng):
        base = 0.1 * (64 / x)
        return 0.26 * (1 + 0.3 * (r % 2 - 0.5)) if x == 32 else base * (0.6 if x == 64 and r % 2 else 1.0) * math.exp(0.05 * rng.normal())

    rows = _rows(error, n=np.array([32, 64, 128, 256, 512]))
    rf = fit_regime(rows["n"], rows["error"], rows["rep"], trivial=0.5)
    inside = rows[rows["n"].isin(rf.xs[rf.regime])]
    fixed = fit_slope(inside["n"], inside["error"], inside["rep"])
    assert (rf.fit.high - rf.fit.low) > (fixed.high - fixed.low)


def test_late_window_rate_decides_at_chance_for_online_curves():
    """Cumulative mistakes/t stays above half the trivial rate (many early mistakes), but
    the late rate is far below it: learning, not at chance; a stream that keeps erring at
    the trivial rate is at chance."""
    t = np.array([10, 100, 1000, 10000, 100000])
    key = json.dumps({"learner_params": {}})

    def frame(mistakes):
        return pd.DataFrame([{"learner": "dp", "private": False, "epsilon": math.inf, "delta": 0.0, "problem": "halfspace",
                              "problem_id": "p", "t": int(x), "T": 100000, "rep": r, "mistakes": m, "mistake_rate": m / x,
                              "status": "ok", "cell_key": key} for r in range(6) for x, m in zip(t, mistakes)])

    learning = frame([5, 50, 400, 3000, 12000])  # late: 9000 mistakes in the last 90000 rounds = 0.1 against 0.5
    curve = curves(learning)[0]
    assert late_window_rate(curve.rows) == pytest.approx(np.full(6, 0.1))
    row = check_curve(curve, experiment="x", x="t", y="mistake_rate", trivial=0.5, exponent=-1.0, late=late_window_rate(curve.rows))
    assert row["verdict"] != "at_chance"
    erring = frame([5, 50, 500, 5000, 50000])
    curve = curves(erring)[0]
    row = check_curve(curve, experiment="x", x="t", y="mistake_rate", trivial=0.5, exponent=-1.0, late=late_window_rate(curve.rows))
    assert row["verdict"] == "at_chance"


def test_late_window_rate_per_repetition_on_unsorted_ragged_streams():
    """Each repetition's own last two checkpoints, whatever the row order: repetitions in
    sorted order, a repetition with one checkpoint measured from (0, 0), a missing last
    checkpoint, a NaN round last (NaN rate), shorter streams (T below the largest) left out."""
    rows = pd.DataFrame({
        "rep":      [2, 0, 1, 0, 2, 1, 3, 0, 4, 4, 5],
        "t":        [100, 10, 10, 1000, 10, 100, 50, 100, 10, np.nan, 1000],
        "mistakes": [30, 5, 4, 70, 9, 10, 6, 20, 3, 7, 999],
        "T":        [1000] * 10 + [100],
    }).sample(frac=1.0, random_state=3)
    got = late_window_rate(rows)
    want = [(70 - 20) / 900, (10 - 4) / 90, (30 - 9) / 90, 6 / 50, math.nan]  # reps 0-4; rep 5's stream is shorter
    np.testing.assert_array_equal(got, np.array(want))


def test_too_few_points():
    """Three grid values whose regime keeps two: too_few_points; two grid values: no slope row at all."""
    rows = _rows(power(-1.0), n=np.array([1000, 2000]))
    assert _check(rows, exponent=-1.0) is None  # fewer than 3 grid values: no row is emitted
    three = _rows(lambda n, r, rng: 0.4 if n == 250 else 20 / n, n=np.array([250, 1000, 2000]))
    assert _check(three, exponent=-1.0)["verdict"] == "too_few_points"


# --------------------------------------------------------------------------- n*


def _nstar_rows(error, eps=(0.1, 0.3, 1, 3, 10), reps=10, n=2 ** np.arange(4, 18)):
    key = json.dumps({"learner_params": {}})
    rng = np.random.default_rng(1)
    return pd.DataFrame([
        {"learner": "m", "private": True, "epsilon": e, "n": int(x), "rep": r, "error": float(error(x, e, r, rng)),
         "status": "ok", "cell_key": key} for e in eps for r in range(reps) for x in n
    ])


def test_crossing_is_interpolated_between_grid_points():
    rows = _nstar_rows(lambda n, e, r, rng: min(1.0, 300 / (e * n)), eps=(1.0,), reps=3)
    xs, first, C = crossing_sizes(rows, 0.01, x="epsilon")
    assert first[0] == 16
    np.testing.assert_allclose(C, 3e4)  # 300/(n) = 0.01 at n = 30000, between 16384 and 32768
    assert n_star_of(np.array([1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 0.1) == 9.0


def test_n_star_verdicts_both_ways_and_ratio():
    """n*(α) ∝ 1/ε with per-repetition scatter: the interval is continuous (no grid
    endpoints), agrees with −1, is steeper than a flat formula and shallower than ε⁻²;
    bound_ratio = empirical n* / theorem n*."""
    rows = _nstar_rows(lambda n, e, r, rng: min(1.0, 300 * math.exp(0.1 * rng.normal()) / (e * n)))
    kw = dict(experiment="x", learner="m", regime="r", alpha=0.01, beta=0.1)
    row = check_n_star(rows, theory_n=lambda e: 1e5 / np.asarray(e, float), **kw)
    assert row["verdict"] == "agrees" and row["slope_ci_low"] < row["fitted_slope"] < row["slope_ci_high"]
    assert 0.3 < row["bound_ratio"] < 0.5  # ≈ 3.4e4/1e5 at the 0.9 order statistic
    assert check_n_star(rows, theory_n=lambda e: np.full(np.shape(e), 1e5), **kw)["verdict"] == "steeper"
    assert check_n_star(rows, theory_n=lambda e: 1e5 / np.asarray(e, float) ** 2, **kw)["verdict"] == "shallower"
    few = rows[rows["rep"] < 4]
    assert check_n_star(few, theory_n=lambda e: 1e5 / np.asarray(e, float), **kw)["verdict"] == "too_few_reps"


def test_endpoint_note():
    assert V.endpoint_note(0.28, 0.28, 0.6)
    assert V.endpoint_note(0.3, 0.28, 0.6) == ""


def test_at_chance_is_not_hidden_by_a_vacuous_bound():
    """A curve that never learns, under a bound above the trivial level: the summary must
    show that it does not learn (``at_chance``), not only that the bound says nothing."""
    chance = _rows(lambda n, r, rng: 0.5 + 0.01 * rng.normal())
    row = _check(chance, rate=lambda n: np.full(np.shape(n), 0.9), kind="bound")
    assert row["verdict"] == "at_chance" and row["status"] == "at_chance"
    assert "bound" in row["note"] and "says nothing" in row["note"]  # the vacuous bound is still said
    learning = _check(_rows(power(-1.0)), rate=lambda n: np.full(np.shape(n), 0.9), kind="bound")
    assert learning["verdict"] == "vacuous_bound"


def _online(mistakes_of, reps=10, T=100_000):
    """An online curve's rows at 5 checkpoints per decade: cumulative ``mistakes_of(t, rep)``."""
    t = np.unique(np.round(np.logspace(0, 5, 26)).astype(int))
    key = json.dumps({"learner_params": {}})
    return pd.DataFrame([{"learner": "dp", "private": False, "epsilon": math.inf, "delta": 0.0, "problem": "halfspace",
                          "problem_id": "p", "t": int(x), "T": T, "rep": r, "mistakes": float(mistakes_of(x, r)),
                          "mistake_rate": mistakes_of(x, r) / x, "status": "ok", "cell_key": key} for r in range(reps) for x in t])


def test_online_regime_starts_after_the_last_window_above_the_margin():
    """6 of 10 repetitions never err, 4 err at ½ per round until t ≈ 631 then never again:
    the cumulative mean mistakes/t is 0.2 ≤ ½·½ from t = 1, but the per-window rates of the
    erring repetitions are at chance until 631, so the regime starts after it (and there the
    rate falls as 1/t: agrees). Without the window rule the fit starts at t = 1 (shallower)."""
    stop = {r: 600 + 10 * r for r in range(4)}
    rows = _online(lambda t, r: 0.5 * min(t, stop[r]) if r in stop else 0.0)
    curve = curves(rows)[0]
    kw = dict(experiment="x", x="t", y="mistake_rate", trivial=0.5, exponent=-1.0, late=late_window_rate(curve.rows))
    row = check_curve(curve, counts="mistakes", **kw)
    assert row["x_min"] > 631 and row["verdict"] == "agrees"
    assert "window" in row["note"]
    early = check_curve(curve, **kw)  # the cumulative rate alone starts at t = 1
    assert early["x_min"] == 1 and early["verdict"] != "agrees"


def test_points_near_the_floor_count_as_floor():
    """n⁻¹ decay to n = 256, then a point at 1.1× the floor (n = 512), then every repetition
    exactly at the floor 1e-3: the near-floor point is not fitted (x_max = 256, agrees).
    Likewise a point where most repetitions sit exactly on the floor value (6 of 10) though
    the others pull its mean to 7× the floor."""
    n = 2 ** np.arange(4, 13)

    def near(x, r, rng):
        if x <= 256:
            return 8.0 / x * math.exp(0.03 * rng.normal())
        return 1.1e-3 * math.exp(0.01 * rng.normal()) if x == 512 else 1e-3

    row = _check(_rows(near, n=n), exponent=-1.0)
    assert row["x_max"] == 256 and row["verdict"] == "agrees"
    assert row["floor_level"] == pytest.approx(1e-3)

    def most(x, r, rng):
        if x <= 256:
            return 8.0 / x * math.exp(0.03 * rng.normal())
        return (1e-3 if r < 6 else 0.016) if x == 512 else 1e-3

    row = _check(_rows(most, n=n), exponent=-1.0)
    assert row["x_max"] == 256 and row["verdict"] == "agrees"


def test_a_rising_tail_is_not_a_floor_and_the_level_is_the_plateau_mean():
    """A cumulative rate rising slowly 0.1 → 0.4 (|slope| 0.1 < 0.15, but increasing) is not a
    floor: it is fitted (shallower than −1). A noisy flat plateau is a floor whose level is
    the plateau's mean, not its lowest point."""
    n = np.round(np.logspace(0, 6, 13))
    rising = _check(_rows(lambda x, r, rng: 0.1 * x**0.1 * math.exp(0.01 * rng.normal()), n=n), exponent=-1.0)
    assert math.isnan(rising["floor_level"]) and rising["verdict"] == "shallower"
    n = 2 ** np.arange(4, 13)
    wiggle = {1024: 1.2, 2048: 0.9, 4096: 1.1}
    flat = _rows(lambda x, r, rng: 8.0 / x if x <= 512 else 1e-3 * wiggle.get(x, 1.0), n=n)
    row = _check(flat, exponent=-1.0)
    assert row["floor_level"] == pytest.approx(np.mean([1.2e-3, 0.9e-3, 1.1e-3]))  # was the lowest point, 0.9e-3


def test_fit_only_where_the_theory_is_defined_and_a_silent_theory_is_kept():
    """A rate undefined (NaN) below n₀ = 512: the slope is fitted only where it is defined
    (x_min ≥ 512), and the predicted exponent is over that same range. A rate undefined over
    the whole grid is ``theory_silent`` (kept: the measured slope stays in the summary), not
    ``no_theory``, which is for curves without a theory at all."""
    n = 2 ** np.arange(4, 14)
    rows = _rows(power(-1.0, scale=4.0), n=n)
    partly = lambda x: np.where(np.asarray(x, float) >= 512, 4.0 / np.asarray(x, float), np.nan)  # noqa: E731
    row = _check(rows, rate=partly, kind="shape")
    assert row["x_min"] >= 512 and row["verdict"] == "agrees" and "defined" in row["note"]
    silent = _check(rows, rate=lambda x: np.full(np.shape(x), np.nan), kind="shape")
    assert silent["verdict"] == "theory_silent" and np.isfinite(silent["fitted_slope"])
    assert _check(rows)["verdict"] == "no_theory"
    from dpbench.reporting.summary import summary_table

    kept = summary_table(pd.DataFrame([{**silent, "experiment": "conjunctions", "learner": "private_sq_conjunction"}], columns=THEORY_COLUMNS))
    assert list(kept["verdict"]) == ["theory_silent"]


def test_n_star_set_by_a_floor_near_alpha_is_floor():
    """error = max(0.0099, 5/(εn)) with α = 0.01: each curve flattens on a floor just below α,
    so where it crosses α is decided by the floor, not by the rate: the n* check says
    ``floor`` (it used to fit −0.79 and call it agreeing with −1). With the floor ten times
    below α the same rate agrees."""
    kw = dict(experiment="x", learner="m", regime="r", alpha=0.01, beta=0.1, theory_n=lambda e: 1e5 / np.asarray(e, float))
    near = _nstar_rows(lambda n, e, r, rng: max(0.0099, 5 * math.exp(0.1 * rng.normal()) / (e * n)))
    row = check_n_star(near, **kw)
    assert row["verdict"] == "floor" and "floor" in row["note"]
    far = _nstar_rows(lambda n, e, r, rng: max(0.001, 5 * math.exp(0.1 * rng.normal()) / (e * n)))
    assert check_n_star(far, **kw)["verdict"] == "agrees"


def test_only_regime_fits_say_the_regime_was_chosen_in_every_resample():
    """n* and fixed-range slopes have no regime: their notes must not claim one."""
    rows = _nstar_rows(lambda n, e, r, rng: min(1.0, 300 * math.exp(0.1 * rng.normal()) / (e * n)))
    row = check_n_star(rows, experiment="x", learner="m", regime="r", alpha=0.01, beta=0.1, theory_n=lambda e: 1e5 / np.asarray(e, float))
    assert "regime" not in row["note"] and "95% bootstrap CI" in row["note"]
    assert "regime chosen in every resample" in _check(_rows(power(-1.0)), exponent=-1.0)["note"]


def test_identical_repetitions_report_one_repetition_and_an_exact_slope():
    """A deterministic curve (every repetition gives the same values, e.g. an expected regret
    computed exactly) has one repetition's worth of information: reps = 1 and a note saying
    the slope is exact — not reps = 10 beside a zero-width 'bootstrap' interval. It is still
    judged (agrees with −1, steeper than −0.5)."""
    rows = _rows(lambda n, r, rng: 10.0 / n)
    row = _check(rows, exponent=-1.0)
    assert row["reps"] == 1 and row["verdict"] == "agrees" and "identical" in row["note"]
    assert _check(rows, exponent=-0.5)["verdict"] == "steeper"
    from dpbench.theory_check.analysis import slope_row
    from dpbench.theory_check.fit import fit_slope
    fit = fit_slope(rows["n"], rows["error"], rows["rep"])
    srow = slope_row(fit, reps=10, exponent=-1.0, experiment="x", learner="m", regime="r", x="n", y="error")
    assert srow["reps"] == 1 and srow["verdict"] == "agrees"


def test_n_star_fitted_only_where_the_theory_is_defined():
    """The theorem's n* undefined (NaN) for ε < 1: the n* slope is fitted on ε ≥ 1 only, so the
    predicted exponent and the fit cover the same range; undefined everywhere: theory_silent."""
    rows = _nstar_rows(lambda n, e, r, rng: min(1.0, 300 * math.exp(0.1 * rng.normal()) / (e * n)), eps=(0.1, 0.3, 1, 3, 10, 30))
    kw = dict(experiment="x", learner="m", regime="r", alpha=0.01, beta=0.1)
    partly = check_n_star(rows, theory_n=lambda e: np.where(np.asarray(e, float) >= 1, 1e5 / np.asarray(e, float), np.nan), **kw)
    assert partly["x_min"] == 1 and partly["n_points"] == 4 and "defined" in partly["note"]
    silent = check_n_star(rows, theory_n=lambda e: np.full(np.shape(e), np.nan), **kw)
    assert silent["verdict"] == "theory_silent" and np.isfinite(silent["fitted_slope"])


def test_plateau_start_matches_its_rule_row_by_row():
    """plateau_start (rows leave the search at their first non-flat tail) against its rule
    written out per row and per tail, on random curves with floors, noise and zero/negative/NaN
    means; the check fails when a row's result is moved (shown at the end)."""
    from dpbench.theory_check.fit import masked_ols

    def plateau_ref(lx, means, decays):
        out = []
        for row in means:
            start = len(row)
            for i in range(len(row) - V.FLOOR_POINTS, -1, -1):
                tail = np.arange(len(row)) >= i
                ok = (decays is None or decays[i]) and bool(np.all(np.isfinite(row[tail]) & (row[tail] > 0)))
                with np.errstate(all="ignore"):
                    s = float(masked_ols(lx, np.log(np.where(tail & (row > 0), row, 1.0)), tail.astype(float))) if ok else math.nan
                if not (ok and -V.FLOOR_SLOPE < s <= V.FLOOR_RISE):
                    break
                start = i
            out.append(start)
        return np.array(out)

    rng = np.random.default_rng(3)
    moved = 0
    for _ in range(300):
        xs = np.geomspace(10, 1e4, int(rng.integers(3, 13)))
        lx, m = np.log(xs), len(xs)
        means = (xs ** -rng.uniform(0.2, 2) + rng.uniform(0, 0.05)) * np.exp(0.1 * rng.standard_normal((40, m)))
        means[rng.random(means.shape) < 0.03] = rng.choice([0.0, -1.0, np.nan])
        decays = None if rng.random() < 0.3 else rng.random(m) < 0.8
        got = V.plateau_start(lx, means, decays)
        assert np.array_equal(got, plateau_ref(lx, means, decays))
        moved += int((got < m).sum())
    assert moved > 100  # floors were found, so the comparison could fail
    bad = plateau_ref(lx, means, decays)
    bad[0] = (bad[0] + 1) % (m + 1)
    assert not np.array_equal(V.plateau_start(lx, means, decays), bad)
