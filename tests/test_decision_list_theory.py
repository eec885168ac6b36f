"""Theory of the ``decision_lists`` experiment: the rates drawn and checked
(:func:`dpbench.theory.dl_rates_of`), the majority-label level
(:func:`dpbench.theory_check.trivial.dl_trivial_error_of`) and the theory check's statuses on rows whose
errors are set by hand (so each status is forced, not hoped for)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from dpbench import theory
from dpbench.experiments.base import draw_target
from dpbench.orchestration.config import from_dict
from dpbench.theory_check.trivial import dl_trivial_error_of
from tests.conftest import TINY_CONFIG


@pytest.fixture(scope="module")
def cell():
    config = yaml.safe_load(TINY_CONFIG.read_text())
    config["experiments"] = {"decision_lists": config["experiments"]["decision_lists"]}
    grid = from_dict(config)
    cells = [c for c in grid.experiments["decision_lists"].cells if c.learner == "privdl" and dict(c.problem_params)["d"] == 5]
    return cells[0], grid.seed


def _row(cell, seed, **values) -> dict:
    target = draw_target(cell, seed)
    row = {
        "problem_id": cell.problem_id, "cell_key": cell.key_string(), "root_seed": seed, "problem": "decision_list",
        **dict(cell.problem_params), "n_features": target.columns()["n_features"],
        "log_class_size": target.columns()["log_class_size"], "epsilon": cell.epsilon, "delta": cell.delta,
        "learner": cell.learner, "private": True, "status": "ok", "fit_seconds": 1e-3,
    }
    row.update(values)
    return row


def test_trivial_error_is_the_majority_error_of_the_drawn_target(cell):
    c, seed = cell
    target = draw_target(c, seed)
    X, f = target._holdout_sample()
    expected = min(f.mean(), 1 - f.mean())
    assert 0.05 <= expected <= 0.5
    assert dl_trivial_error_of(pd.Series(_row(c, seed))) == pytest.approx(expected, abs=1e-12)
    wrong = pd.Series(_row(c, seed, problem_id="decision_list-000000000000", root_seed=seed + 1))
    with pytest.raises(ValueError, match="does not rebuild"):
        dl_trivial_error_of(wrong)


def test_rates_in_the_setting_a_row_records(cell):
    c, seed = cell
    row = pd.Series(_row(c, seed))
    f, logc = int(row["n_features"]), float(row["log_class_size"])
    n = np.array([1e3, 1e4])
    (occam,) = theory.dl_rates_of("rivest", row)
    assert occam.kind == "bound" and np.allclose(occam.error(n), (logc + math.log(10)) / n)
    derived, stated = theory.dl_rates_of("exp_mech_erm", row)
    assert derived.primary and not stated.primary and derived.kind == stated.kind == "bound"
    assert np.allclose(derived.error(n), max(8, 4 / row["epsilon"]) * (logc + math.log(20)) / n)
    bound, shape = theory.dl_rates_of("privdl", row)
    assert bound.primary and bound.kind == "bound" and not shape.primary
    assert np.allclose(bound.error(n), theory.rate_privdl_run(n, row["epsilon"], row["delta"], f, 0.1, logc))
    assert shape.kind == "shape" and np.allclose(shape.error(n), theory.rate_privdl(n, row["epsilon"], row["delta"], f, 0.1))
    assert theory.dl_rates_of("privdl", pd.Series({**row, "noise": 0.05})) == []
    # n*(α) in |F|: the composition ablation grows faster than privdl (3/2 vs 1, up to logs)
    fs = np.array([33, 201])
    grow = {l: np.log(theory.dl_rates_of(l, row, n_features=fs[1])[0].n_at(0.05, 2.0)
                      / theory.dl_rates_of(l, row, n_features=fs[0])[0].n_at(0.05, 2.0)) / np.log(fs[1] / fs[0])
            for l in ("privdl", "privdl_composition")}
    assert 1.0 < grow["privdl"] < 1.3 < 1.5 < grow["privdl_composition"] < 1.8


def test_theory_check_statuses_from_hand_set_errors(cell):
    from dpbench.experiments.checks.decision_lists import theory_check

    c, seed = cell
    trivial = dl_trivial_error_of(pd.Series(_row(c, seed)))
    sizes = [128, 256, 512, 1024, 2048, 4096]
    rows = []
    for rep in range(6):
        for n in sizes:
            learning = trivial * (n / 128.0) ** -1.0 * (1 + 0.05 * (rep - 2.5) / 2.5)
            # no theory line (the reference tree): the fitted slope alone, −1
            rows.append(_row(c, seed, n=n, rep=rep, error=learning, learner="decision_tree", private=False,
                             epsilon=math.inf))
            rows.append(_row(c, seed, n=n, rep=rep, error=trivial))  # privdl: never learns
            rows.append(_row(c, seed, n=n, rep=rep, error=0.0, learner="rivest", private=False, epsilon=math.inf))
    out = theory_check(pd.DataFrame(rows)).set_index(["learner", "x", "y"])
    ok = out.loc[("decision_tree", "n", "error")]
    assert ok["status"] == "ok" and ok["fitted_slope"] == pytest.approx(-1.0, abs=0.02)
    assert ok["slope_ci_low"] <= -1.0 <= ok["slope_ci_high"] and ok["x_max"] == 4096
    assert out.loc[("privdl", "n", "error"), "status"] == "at_chance"
    zero = out.loc[("rivest", "n", "error")]
    assert zero["status"] == "too_few_points" and "exactly 0 at every n" in zero["note"] and zero["cells_above_bound"] == 0
    assert zero["verdict"] == "bound_holds"  # the Occam bound checked at every cell, no slope needed
    nstar = out.loc[("rivest", "n", "n_star")]  # n*(α) against the finite-class bound: censored at 128, below it
    assert nstar["verdict"] == "bound_holds" and nstar["bound_ratio"] < 1
    assert set(out["status"]) <= {"ok", "no_points", "at_chance", "vacuous_bound", "too_few_points"}
    assert not ((out["status"] == "ok") & out["fitted_slope"].isna()).any()


#: the bound each privdl variant's rows are judged by (dpbench.theory.dl_rates_of's primary rate)
RUN_BOUNDS = {"privdl": theory.rate_privdl_run, "privdl_composition": theory.rate_privdl_composition_run}


@pytest.mark.parametrize("learner", sorted(RUN_BOUNDS))
@pytest.mark.parametrize("factor, verdicts", [(0.2, {"bound_holds", "agrees"}), (3.0, {"violated"})])
def test_privdl_is_judged_by_its_derived_bound_which_bad_data_violate(cell, learner, factor, verdicts):
    """privdl's and privdl_composition's rows compare with the bound of the learner as run, derived
    with constants (:func:`dpbench.theory.n_privdl_run`, :func:`dpbench.theory.n_privdl_composition_run`:
    one derivation at each learner's own per-round budget): errors at 0.2× it hold (bound_holds or,
    the slope being −1, agrees), errors at 3× it are `violated` — a contradiction, as a proven bound
    must allow. The n*-vs-ε row is a bound row with a stated ratio."""
    from dpbench.experiments.checks.decision_lists import theory_check

    c, seed = cell
    base = _row(c, seed)
    sizes = [2.0**k for k in range(14, 21)]
    rows = []
    for eps in (8.0, 16.0, 32.0):
        bound = RUN_BOUNDS[learner](np.array(sizes), eps, base["delta"], base["n_features"], 0.1,
                                    base["log_class_size"])
        for rep in range(6):
            for n, b in zip(sizes, bound):
                rows.append(_row(c, seed, n=n, rep=rep, epsilon=eps, learner=learner,
                                 error=factor * b * (1 + 0.02 * (rep - 2.5))))
    out = theory_check(pd.DataFrame(rows))
    judged = out[(out["learner"] == learner) & (out["y"] == "error")]
    assert len(judged) == 3 and (judged["bound_kind"] == "bound").all()
    assert set(judged["verdict"]) <= verdicts, judged[["verdict", "note"]]
    if factor < 1:
        assert (judged["bound_ratio"] < 0.3).all()
        vs_eps = out[(out["learner"] == learner) & (out["x"] == "epsilon")]
        assert len(vs_eps) == 1 and vs_eps["bound_kind"].iloc[0] == "bound"
        assert vs_eps["verdict"].iloc[0] != "shape_only"


@pytest.mark.parametrize("delta", [1e-6, 1e-3, 0.0])
def test_composition_bound_uses_the_learners_own_budget(delta):
    """The bound's λ is the one privdl_composition draws with (λ = ε₀/2, ε₀ from advanced
    composition, or ε/|F| at δ = 0), and K = (|F| ln(2|F|) + Γ⁻¹_|F|(1 − β/2))/λ — the covering
    bound privdl's
    derivation uses, at the other λ."""
    from dpbench.learners.privdl_composition import PrivDLComposition

    for f in (33, 129, 1153):
        for eps in (0.25, 1.0, 16.0):
            lam = PrivDLComposition(epsilon=eps, delta=delta).lam(f)
            assert theory.privdl_composition_selection_rate(eps, delta, f) == pytest.approx(lam, rel=1e-12)
            k = theory.privdl_composition_mistakes(eps, delta, f, 0.1)
            assert k == pytest.approx((f * math.log(2 * f) + stats.gamma(f).ppf(0.95)) / lam, rel=1e-9)
    assert theory.privdl_composition_round_epsilon(1.0, 0.0, 129) == pytest.approx(1 / 129)
    assert float(theory.n_privdl_composition_run(0.05, math.inf, delta, 33)) == pytest.approx(
        2 * (theory.dl_log_class_size(33) + math.log(20)) / 0.05)  # K = 0: the union bound over C alone


def test_composition_bound_holds_on_real_rows_and_a_wrong_one_is_violated(monkeypatch):
    """privdl_composition run through its own code on small cells (|F| = 33, 73; ε = 1, 16;
    n = 2¹⁰ … 2¹⁶, 10 repetitions): the 0.9-quantile error is below the derived bound at every
    cell, and the theory check says so (bound rows, none violated, some holding). The same rows
    against the bound shrunk 200× (a wrong derivation) are `violated`: the check can fail."""
    from dpbench.experiments.base import run_batch_cell
    from dpbench.experiments.checks.decision_lists import theory_check
    from dpbench.theory import decision_lists as dl_theory

    grid = from_dict({"seed": 11, "experiments": {"decision_lists": {
        "problem": "decision_list", "problem_params": {"d": [4, 6], "k": 2, "l": 6, "r": 3, "p": 0.5, "noise": 0.0},
        "learners": ["privdl_composition"], "epsilon": [1.0, 16.0], "delta": 1e-6,
        "n": [1024, 2048, 4096, 8192, 16384, 65536], "repetitions": 10, "shards": 1}}})
    cells = grid.experiments["decision_lists"].cells
    df = pd.DataFrame([r for c in cells for r in run_batch_cell(c, draw_target(c, grid.seed), grid.seed)])
    q = df.groupby(["n_features", "log_class_size", "epsilon", "n"])["error"].quantile(0.9).reset_index()
    bound = [float(theory.rate_privdl_composition_run(r.n, r.epsilon, 1e-6, int(r.n_features), 0.1, r.log_class_size))
             for r in q.itertuples()]
    assert (q["error"] <= bound).all() and (q["error"] > 0).any()
    out = theory_check(df)
    judged = out[out["y"] == "error"]
    assert len(judged) == 4 and (judged["bound_kind"] == "bound").all() and (judged["cells_above_bound"] == 0).all()
    assert "violated" not in set(judged["verdict"]) and "bound_holds" in set(judged["verdict"])
    true_bound = dl_theory.rate_privdl_composition_run
    monkeypatch.setattr(dl_theory, "rate_privdl_composition_run", lambda *a: true_bound(*a) / 200)
    wrong = theory_check(df)
    assert "violated" in set(wrong.loc[wrong["y"] == "error", "verdict"])


@pytest.mark.parametrize("learner", ["privdl", "privdl_composition"])
def test_covering_mistakes_bound_the_learners_own_training_mistakes(learner):
    """K (theory.covering_mistakes at each learner's own λ) against the learners' own code, at a
    size where K < n (|F| = 33, n = 32,768, ε = 2, δ = 1e-6, K ≈ 5,850): the 0.95-quantile
    (1 − β/2, β = 0.1) of the mistakes the output list makes on its own sample is at most K; a
    copy drawing at λ/32 (a selection rate 32× too small) exceeds it. The bound is loose: only
    λ errors of that order are caught (at λ/8 the list still makes no mistake here)."""
    from dpbench.foundation import registry
    from dpbench.problems.decision_list import DecisionListProblem

    problem = DecisionListProblem(d=4, k=2, l=6, r=3, p=0.5, noise=0.0)
    target = problem.draw_target(rng=np.random.default_rng(0))
    cls = registry.learner(learner)

    class Slow(cls):
        def lam(self, *args):
            return super().lam(*args) / 32

    bound = float((theory.privdl_empirical_mistakes if learner == "privdl" else theory.privdl_composition_mistakes)(
        2.0, 1e-6, problem.n_features(), 0.1))
    assert bound < 32768

    def quantile(make):
        mistakes = []
        for r in range(40):
            rng = np.random.default_rng(r)
            sample = target.sample(32768, rng=rng)
            mistakes.append(int((make().fit(sample, rng=rng).predict(sample.X) != sample.y).sum()))
        return np.quantile(mistakes, 0.95)

    assert quantile(lambda: cls(epsilon=2.0, delta=1e-6)) <= bound
    assert quantile(lambda: Slow(epsilon=2.0, delta=1e-6)) > bound
