"""The cost of privacy (dpbench.theory_check.cost_of_privacy, dpbench.reporting.cost_of_privacy):
ratios, paired intervals and positions on data whose answer is known, the twins the code
pairs, the README section and `dpbench readme` with it."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from dpbench import theory
from dpbench.cli import main
from dpbench.reporting.cost_of_privacy import BEGIN, END, cost_section, write_cost_of_privacy
from dpbench.theory_check.cost_of_privacy import (
    COLUMNS,
    _position,
    cost_of_privacy_table,
    mean_ratio,
    n_star_ratio,
    twin_of,
)

SIZES = np.array([64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384])


def _curve(learner: str, eps: float, scale: float, reps: int = 10, seed: int = 0) -> pd.DataFrame:
    """error = scale/n (× a repetition's factor in [0.8, 1.25]): n*(α) = scale·factor/α."""
    factors = np.exp(np.random.default_rng(seed).uniform(np.log(0.8), np.log(1.25), reps))
    rows = [{"learner": learner, "epsilon": eps, "n": int(n), "rep": r, "error": min(scale * f / n, 0.5), "status": "ok"}
            for r, f in enumerate(factors) for n in SIZES]
    return pd.DataFrame(rows)


def test_n_star_ratio_recovers_a_known_ratio_and_its_position():
    twin, priv = _curve("erm", math.inf, 20.0), _curve("exp_mech_erm", 1.0, 80.0)  # same factors: ratio exactly 4
    got = n_star_ratio(priv, twin, alpha=0.01, beta=0.1)
    assert got["ratio"] == pytest.approx(4.0, rel=0.02) and got["reps"] == 10
    assert got["ratio_low"] <= got["ratio"] <= got["ratio_high"]
    assert _position(got["ratio_low"], got["ratio_high"], 4.0, math.nan) == "contains"
    assert _position(got["ratio_low"], got["ratio_high"], 40.0, math.nan) == "below"
    assert _position(got["ratio_low"], got["ratio_high"], 0.4, math.nan) == "above"
    # the check can fail: a private learner as good as its twin is not at 4×
    same = n_star_ratio(_curve("exp_mech_erm", 1.0, 20.0), twin, alpha=0.01, beta=0.1)
    assert _position(same["ratio_low"], same["ratio_high"], 4.0, math.nan) == "below"


def test_a_twin_learned_before_the_grid_gives_only_a_lower_bound():
    twin = _curve("erm", math.inf, 0.2)  # below α = 0.01 from the smallest n: censored
    got = n_star_ratio(_curve("exp_mech_erm", 1.0, 80.0), twin, alpha=0.01, beta=0.1)
    assert "lower bound" in got["note"] and got["one_sided"] == "lower"
    assert _position(got["ratio_low"], got["ratio_high"], 1e6, math.nan, "lower").startswith("undecided")
    assert _position(got["ratio_low"], got["ratio_high"], 1.0, math.nan, "lower") == "above"


def test_mean_ratio_is_paired_and_needs_a_positive_twin():
    rng = np.random.default_rng(1)
    common = rng.lognormal(0, 1, 20)  # large shared variation: a paired interval stays narrow
    r, lo, hi = mean_ratio(3 * common * rng.uniform(0.95, 1.05, 20), common)
    assert r == pytest.approx(3, rel=0.05) and hi - lo < 0.2
    assert math.isnan(mean_ratio(np.ones(10), np.zeros(10))[0])
    r, lo, hi = mean_ratio(np.ones(3), np.ones(3))  # fewer than 5 repetitions: no interval
    assert r == 1 and math.isnan(lo) and math.isnan(hi)


def test_twins_as_the_code_pairs_them():
    assert twin_of("exp_mech_erm", [1.0])[0] == "erm" and "declared" in twin_of("exp_mech_erm", [1.0])[1]
    assert twin_of("private_rwm", [1.0])[0] == "rwm"
    assert twin_of("linear_learner", [1.0, math.inf]) == ("linear_learner", "the same learner at ε = ∞")
    assert twin_of("privdl", [1.0])[0] == "rivest" and "privatises" in twin_of("privdl", [1.0])[1]
    assert twin_of("no_such_learner", [1.0]) == (None, "")


def _conjunction_rows() -> pd.DataFrame:
    frames = [_curve("erm", math.inf, 0.6), *[_curve("exp_mech_erm", e, 0.6 * (1 + 3 / e)) for e in (0.3, 1.0, 3.0)]]
    df = pd.concat(frames, ignore_index=True)
    key = json.dumps({"learner_params": {}})
    return df.assign(experiment="conjunctions", problem="conjunction", problem_id="conjunction-1", private=df["learner"] != "erm",
                     d=10, k=3, monotone=False, noise=0.0, p=0.5, log_class_size=10 * math.log(3), delta=0.0, cell_key=key, t=np.nan)


def test_table_rows_predictions_and_readme_section():
    table = cost_of_privacy_table({"conjunctions": _conjunction_rows()})
    assert list(table.columns) == COLUMNS and len(table) == 3
    assert (table["twin"] == "erm").all() and table["ratio"].is_monotonic_decreasing  # more ε, less cost
    row = table[table["epsilon"] == 1.0].iloc[0]
    assert row["ratio"] == pytest.approx(4.0, rel=0.02)
    logc = 10 * math.log(3)
    expected = float(theory.n_exp_mech_realizable(0.01, 1.0, logc, 0.1) / theory.n_consistent(0.01, logc, 0.1))
    assert row["predicted_ratio"] == pytest.approx(expected) and row["position"] in ("contains", "below", "above")
    text = cost_section(table)
    assert "exp_mech_erm ÷ erm" in text and "ε = 0.3: **" in text and "predicted" in text
    assert text.count("\n| ") == 2  # header and one learner row


def test_dpbench_readme_writes_and_checks_the_cost_section(tmp_path):
    from dpbench.foundation.results import make_row, write_rows
    from dpbench.reporting.summary import BEGIN as R_BEGIN
    from dpbench.reporting.summary import END as R_END
    from dpbench.reporting.summary import summary_table
    from tests.test_summary import _theory

    results = tmp_path / "results"
    (results / "theory").mkdir(parents=True)
    summary_table(_theory()).to_csv(results / "theory" / "summary.csv", index=False)
    parquet = results / "conjunctions.parquet"
    rows = _conjunction_rows().drop(columns=["t"])
    write_rows([make_row(**{k: (int(v) if k in ("n", "rep", "d", "k") else v) for k, v in r.items()}) for r in rows.to_dict("records")], parquet)
    table = write_cost_of_privacy([parquet], results / "theory" / "cost_of_privacy.csv", results / "theory" / "cost_of_privacy.html")
    assert len(table) == 3 and "cost of privacy" in (results / "theory" / "cost_of_privacy.html").read_text().lower()
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n{BEGIN}\nstale\n{END}\n\n{R_BEGIN}\n{R_END}\n")
    args = ["readme", "--results", str(results), "--readme", str(readme)]
    assert main([*args, "--check"]) == 1
    assert main(args) == 0
    text = readme.read_text()
    assert "What privacy costs" in text and "stale" not in text and text.index(BEGIN) < text.index(R_BEGIN)
    assert main([*args, "--check"]) == 0
