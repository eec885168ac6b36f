"""dpbench.theory_check.analysis: curves that never pool settings, slopes on repetitions, statuses, bound
checks — with real numbers."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from dpbench.theory_check.analysis import STATUSES, bound_check, check_curve, curves, with_learner_params
from dpbench.theory_check.fit import fit_slope
from dpbench.theory_check.nstar import sample_complexity_slope


def _rows(n_values, reps, error, *, learner="erm", private=False, epsilon=math.inf, noise=0.0, problem_id="p0", params=None):
    """Results rows of one curve: ``error(n, rep)``."""
    key = json.dumps({"learner_params": params or {}})
    return pd.DataFrame(
        [
            {"learner": learner, "private": private, "epsilon": epsilon, "delta": 0.0, "noise": noise, "d": 6,
             "problem": "conjunction", "problem_id": problem_id, "n": n, "rep": r, "error": error(n, r),
             "status": "ok", "cell_key": key}
            for n in n_values for r in range(reps)
        ]
    )


def test_slope_interval_covers_the_true_exponent():
    """200 data sets y = 3 n^-1 · exp(0.3 Z_r + 0.2 Z_{n,r}) (a per-repetition offset, as with
    shared samples, and per-cell noise), 10 repetitions, 5 sizes: the 95 % bootstrap
    interval covers −1 in ≥ 160 of 200. Its coverage is ≥ 0.9 (percentile bootstrap with 10
    repetitions), so failing has probability P[Bin(200, 0.9) < 160] ≈ 1e-6."""
    rng = np.random.default_rng(0)
    n = np.repeat([100, 200, 400, 800, 1600], 10)
    rep = np.tile(np.arange(10), 5)
    covered = 0
    for _ in range(200):
        offset = rng.normal(0, 0.3, 10)[rep]
        y = 3 / n * np.exp(offset + rng.normal(0, 0.2, len(n)))
        fit = fit_slope(n, y, rep, n_boot=400)
        covered += fit.low <= -1 <= fit.high
    assert covered >= 160


def test_slope_interval_reflects_repetition_variance():
    n = np.repeat([10, 100, 1000], 8)
    rep = np.tile(np.arange(8), 3)
    exact = fit_slope(n, 1 / np.sqrt(n), rep)
    assert exact.slope == pytest.approx(-0.5) and exact.high - exact.low == pytest.approx(0, abs=1e-12)
    noisy = fit_slope(n, np.exp(np.random.default_rng(1).normal(0, 1, len(n))) / np.sqrt(n), rep)
    assert noisy.high - noisy.low > 0.2  # 3 means of 8 log-normal(σ = 1) values: a wide interval
    assert (noisy.x_min, noisy.x_max, noisy.n_points) == (10, 1000, 3)


def test_fewer_than_three_points_or_zeros_give_no_slope():
    fit = fit_slope([10, 100, 1000], [0.1, 0.0, 0.0], [0, 0, 0])
    assert math.isnan(fit.slope) and fit.n_points == 1


def test_curves_never_pool_settings_and_label_them():
    df = pd.concat([
        _rows([10, 100], 2, lambda n, r: 0.1, noise=0.0, problem_id="a"),
        _rows([10, 100], 2, lambda n, r: 0.2, noise=0.05, problem_id="b"),
        _rows([10, 100], 2, lambda n, r: 0.1, learner="sq", params={"alpha": 0.05}, problem_id="a"),
        _rows([10, 100], 2, lambda n, r: 0.1, learner="sq", params={"alpha": 0.1}, problem_id="a"),
    ])
    found = {c.label: len(c.rows) for c in curves(df)}
    assert found == {
        "erm (noise = 0)": 4, "erm (noise = 0.05)": 4,
        "sq (noise = 0, alpha = 0.05)": 4, "sq (noise = 0, alpha = 0.1)": 4,
    }
    assert list(with_learner_params(df)["lp_alpha"].dropna().unique()) == [0.05, 0.1]


def test_bound_check_uses_the_maximum_or_the_stated_quantile():
    rows = _rows([10], 10, lambda n, r: r / 10)  # 0.0 … 0.9
    assert bound_check(rows, lambda n: np.full(len(n), 0.85), x="n") == (1, 1)  # max 0.9 > 0.85
    assert bound_check(rows, lambda n: np.full(len(n), 0.85), x="n", holds_with=0.7) == (1, 0)  # 0.7-quantile 0.63
    assert bound_check(rows, lambda n: np.full(len(n), np.nan), x="n") == (0, 0)


@pytest.mark.parametrize(
    "error,rate,kind,expected",
    [
        (lambda n, r: 0.5 / n * (1 + 0.1 * r), lambda n: 1 / n, "bound", "ok"),
        (lambda n, r: 0.12 + 0.01 * (r % 2), lambda n: 1 / n, "bound", "at_chance"),
        (lambda n, r: 0.5 / n, lambda n: np.full(len(n), 0.5), "bound", "vacuous_bound"),
        (lambda n, r: 0.5 / n if n < 1000 else 0.0, None, "none", "too_few_points"),
    ],
    ids=["ok", "at_chance", "vacuous_bound", "too_few_points"],
)
def test_status(error, rate, kind, expected):
    curve = curves(_rows([10, 100, 1000, 10000], 6, error))[0]
    row = check_curve(curve, experiment="x", x="n", rate=rate, kind=kind, trivial=0.125)
    assert row["status"] == expected and row["note"]
    assert row["status"] in STATUSES
    if expected == "ok":
        assert row["fitted_slope"] == pytest.approx(-1, abs=0.01) and row["theory_exponent"] == pytest.approx(-1)
        assert (row["x_min"], row["x_max"], row["cells"], row["cells_above_bound"]) == (10, 10000, 4, 0)
    else:
        assert row["status"] != "ok"


def test_no_points_status():
    curve = curves(_rows([10, 100, 1000], 2, lambda n, r: np.nan))[0]
    assert check_curve(curve, experiment="x", x="n", trivial=0.125)["status"] == "no_points"
    two = curves(_rows([10, 100], 2, lambda n, r: 1 / n))[0]
    assert check_curve(two, experiment="x", x="n", trivial=0.125) is None  # < 3 grid values: no slope row


def test_sample_complexity_slope_recovers_one_over_epsilon():
    """error = (100/(εn))² (capped at 1): n*(α) = 100/(ε√α) exactly between the grid's powers
    of two (log–log interpolation per repetition), slope −1; the step curve 1 → 0 at
    n = 100/ε gives the first grid n ≥ 100/ε (n* at the grid's smallest n is censored)."""
    n_grid = 2 ** np.arange(4, 16)
    df = pd.concat([_rows(n_grid, 6, lambda n, r, e=e: min(1.0, (100 / (e * n)) ** 2), private=True, epsilon=e) for e in (0.1, 0.3, 1, 3, 10)])
    fit = sample_complexity_slope(df, alpha=0.01, beta=0.1)
    assert fit.slope == pytest.approx(-1, abs=1e-9) and fit.n_points == 5
    step = pd.concat([_rows(n_grid, 6, lambda n, r, e=e: float(n < 100 / e), private=True, epsilon=e) for e in (0.1, 0.3, 1, 3, 10)])
    fit = sample_complexity_slope(step, alpha=0.01, beta=0.1)
    assert fit.n_points == 4  # ε = 10: learned at the grid's first n (16 ≥ 10), only an upper bound
    assert fit.slope == pytest.approx(np.polyfit(np.log([0.1, 0.3, 1, 3]), np.log([1024, 512, 128, 64]) - 0.01 * np.log(2), 1)[0], abs=0.01)


def testper_x_matrix_matches_pandas_pivot_table():
    """The numpy (x, repetition) matrix behind fit_slope is pandas' pivot_table(mean): duplicate
    (x, rep) cells averaged, missing cells NaN, x values and repetitions without any finite
    value dropped."""
    from dpbench.theory_check.fit import per_x_matrix

    rng = np.random.default_rng(7)
    x = rng.choice([10.0, 100.0, 1000.0, 5.0], size=60)
    reps = rng.integers(0, 6, size=60)
    y = rng.random(60)
    y[rng.random(60) < 0.2] = np.nan
    y[x == 5.0] = np.nan  # an x with no finite value at all
    xs, Y = per_x_matrix(x, y, reps)
    table = pd.DataFrame({"x": x, "y": y, "rep": reps}).pivot_table(index="x", columns="rep", values="y", aggfunc="mean").sort_index()
    np.testing.assert_array_equal(xs, table.index.to_numpy(dtype=float))
    np.testing.assert_allclose(Y, table.to_numpy(dtype=float), rtol=1e-15, equal_nan=True)


def test_a_missing_interval_says_why():
    """A slope without an interval names the reason: one repetition, or resamples that hit
    exact zeros (not '< 2 repetitions' when there are 12)."""
    one = _rows([10, 100, 1000, 10000], 1, lambda n, r: 1.0 / n)
    fit = fit_slope(one["n"], one["error"], one["rep"])
    assert np.isfinite(fit.slope) and not np.isfinite(fit.low) and "1 repetition" in fit.no_interval
    # 12 repetitions, a different single nonzero one at each of 3 x: a resample keeps all 3
    # points only if it draws all 3 repetitions (≈ 0.65³ ≈ 27 % of resamples)
    nonzero_rep = {10: 0, 100: 1, 1000: 2}
    zeros = _rows([10, 100, 1000], 12, lambda n, r: 1.0 / n if r == nonzero_rep[n] else 0.0)
    fit = fit_slope(zeros["n"], zeros["error"], zeros["rep"])
    assert np.isfinite(fit.slope) and not np.isfinite(fit.low)
    assert "bootstrap resamples" in fit.no_interval


def test_text_codes_partition_values_exactly_as_their_text():
    """varying_identity compares identity values as text; its codes must split every column
    into the same groups as ``astype(str)`` does — −0.0 vs 0.0, NaN payloads, ±inf, ints,
    bools, mixed objects (None / NaN / 1 / 1.0 / True), strings with a missing value."""
    import numpy as np
    import pandas as pd

    from dpbench.theory_check.analysis import _text_codes

    odd_nan = np.array([0x7FF8000000000001], dtype=np.int64).view(np.float64)[0]
    columns = [
        pd.Series([0.0, -0.0, np.nan, odd_nan, np.inf, -np.inf, 1e-5, 1e-5, 0.1 + 0.2, 0.3]),
        pd.Series([1, 2, 2, -3]),
        pd.Series([True, False, True]),
        pd.Series([None, np.nan, 1, 1.0, True, "1", "a"], dtype=object),
        pd.Series(["a", "b", None, "a"], dtype="str"),
    ]
    for col in columns:
        codes = pd.Series(list(_text_codes(col)))
        text = col.astype(str).reset_index(drop=True)
        for i in range(len(col)):
            for j in range(len(col)):
                same_text = (text[i] == text[j]) or (pd.isna(text[i]) and pd.isna(text[j]))
                same_code = (codes[i] == codes[j]) or (pd.isna(codes[i]) and pd.isna(codes[j]))
                assert same_text == same_code, (col.tolist(), i, j)


@pytest.mark.parametrize("case", ["size all missing", "one missing", "rep all missing", "rep absent", "duplicates", "all missing"])
def test_per_x_table_is_pivot_tables_table(case):
    """The n* table (group-by and unstack) is exactly ``pivot_table(aggfunc="mean")``'s, then
    repetitions missing anywhere dropped — also where every repetition at one size is NaN."""
    import numpy as np
    import pandas as pd

    from dpbench.theory_check.nstar import _per_x_table

    rows = pd.DataFrame({"n": np.repeat([10, 100, 1000, 10000], 3), "rep": [0, 1, 2] * 4,
                         "error": np.linspace(0.5, 0.01, 12)})
    if case == "size all missing":
        rows.loc[rows["n"] == 100, "error"] = np.nan
    elif case == "one missing":
        rows.loc[3, "error"] = np.nan
    elif case == "rep all missing":
        rows.loc[rows["rep"] == 1, "error"] = np.nan
    elif case == "rep absent":
        rows = rows[~((rows["rep"] == 2) & (rows["n"] == 1000))]
    elif case == "duplicates":
        rows = pd.concat([rows, rows.assign(error=rows["error"] / 2)])
    else:
        rows = rows.assign(error=np.nan)
    expected = (rows.assign(_x=0.0).pivot_table(index=["_x", "n"], columns="rep", values="error", aggfunc="mean")
                .dropna(axis=1, how="any"))
    pd.testing.assert_frame_equal(_per_x_table(rows, x=None, size="n", y="error")[1], expected, check_exact=True)


def test_suffix_exponents_are_local_exponent_of_every_tail():
    """The vectorised tails' exponents (the floor rule's "does the theory still decay from x_i
    on") equal local_exponent on each tail, also with non-positive, infinite and NaN points."""
    import numpy as np

    from dpbench.theory_check.fit import local_exponent, suffix_exponents

    rng = np.random.default_rng(3)
    for _ in range(300):
        m = int(rng.integers(2, 12))
        x = np.sort(rng.choice(np.geomspace(1, 1e6, 40), m, replace=False))
        y = x ** rng.uniform(-2, 1) * rng.uniform(0.5, 2, m)
        y[rng.random(m) < 0.2] = rng.choice([0.0, -1.0, np.inf, np.nan])
        got = suffix_exponents(x, y)
        want = np.array([local_exponent(x[i:], y[i:]) for i in range(m - 1)])
        assert np.array_equal(got, want, equal_nan=True), (x, y, got, want)
