"""Audits with teeth (issue 10): for every learner and mechanism audited on this branch,
the correct copy's Clopper–Pearson lower bound on ε stays at or below its claim and the
broken copy's (noise halved / rate doubled, same claim) exceeds it.

False-alarm rate: every bound is one-sided at confidence 1 − 5e-7, so a correct copy is
refuted with probability ≤ 1e-6 per test (dpbench.audits.engine), and a broken copy is missed only
if its bound falls more than ~5 standard errors below its expectation (the runs are sized
so that the broken copy's exact ε exceeds the claim by ≥ 5 standard errors). Seeds fixed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbench.audits import cases_for, default_claim
from dpbench.audits.engine import AUDIT_COLUMNS, audit, cli_audit, epsilon_lower_bound, run_case, run_cases
from dpbench.learners.experts_common import ExpertsLosses
from dpbench.mechanisms.laplace import Laplace

CONFIDENCE = 1 - 5e-7
#: name → (ε, δ, runs per side); claims with a larger per-round η where a component is tiny
CLAIMS = {
    "laplace": (1.0, 0.0, 200_000),
    "gaussian_analytic": (1.0, 1e-5, 1_000_000),
    "gaussian_classic": (0.9, 1e-3, 1_000_000),
    "exponential": (1.0, 0.0, 200_000),
    "above_threshold": (1.0, 0.0, 200_000),
    "exp_mech_erm": (1.0, 0.0, 200_000),
    "private_sq_conjunction": (1.0, 0.0, 200_000),
}
#: end-to-end audits through the learner's own ``run``/``fit`` (~0.1–1 ms a run): the exact law carries the verdict
END_TO_END = {"private_rwm": 1.0, "private_rwm_tight": 1.0, "linear_learner": 1.0, "private_mw_001": 2.0,
              "privdl": 1.0, "privdl_composition": 1.0}


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_correct_copy_within_claim_and_broken_copy_caught(name):
    eps, delta, runs = CLAIMS[name]
    correct, broken = cases_for(name, epsilon=eps, delta=delta)
    assert (correct.variant, broken.variant) == ("correct", "broken")
    assert (broken.epsilon, broken.delta) == (correct.epsilon, correct.delta), "the broken copy claims the same"
    good, bad = run_cases([correct, broken], runs=runs, confidence=CONFIDENCE, seed=3)
    assert good["verdict"] == "pass"
    assert list(good) == AUDIT_COLUMNS
    assert good["epsilon_lower_bound"] <= correct.epsilon, good
    assert good["epsilon_lower_bound"] > 0.25 * correct.epsilon, f"audit too weak to mean anything: {good}"
    assert bad["epsilon_lower_bound"] > broken.epsilon, bad
    if correct.exact is not None:  # exact ε(δ) of the pair: the claim holds, the broken copy violates it
        assert good["epsilon_exact"] <= correct.epsilon * (1 + 1e-9) < bad["epsilon_exact"]
        assert good["epsilon_lower_bound"] <= good["epsilon_exact"] * (1 + 1e-9)


def test_exact_values_of_closed_form_pairs():
    eps = 1.0
    lap = cases_for("laplace", epsilon=eps, delta=0.0)
    assert [c.exact() for c in lap] == pytest.approx([eps, 2 * eps])
    a = math.exp(eps / 2)  # exponential pair: ln(a(1 + 9a)/(a + 9)) on outcome 0
    assert cases_for("exponential", epsilon=eps, delta=0.0)[0].exact() == pytest.approx(math.log(a * (1 + 9 * a) / (a + 9)))
    assert cases_for("gaussian_analytic", epsilon=eps, delta=1e-5)[0].exact() == pytest.approx(eps, rel=1e-6)
    from dpbench.learners.privdl import PrivDL

    correct, broken = cases_for("privdl", epsilon=4.0, delta=1e-6)[:2]  # the whole output's loss is exactly λ
    assert correct.exact() == pytest.approx(PrivDL(epsilon=4.0, delta=1e-6).lam(), rel=1e-3)  # ε(δ = 1e-6) of a λ-DP bit
    assert correct.exact() < 4.0 < broken.exact()


@pytest.mark.parametrize("name", sorted(END_TO_END))
def test_end_to_end_audits_with_exact_laws(name):
    """Through the learner's own ``run``: the correct copy's exact ε(δ) (its own per-round
    laws, composed exactly) is within the claim, the broken copy's above it; the Monte Carlo
    bound never exceeds the exact value; the audit's verdict is ``pass``."""
    rows = run_cases(cases_for(name, epsilon=END_TO_END[name], delta=1e-6)[:2], runs=2_000, confidence=CONFIDENCE, seed=3)
    good, bad = rows  # (privdl's uncovered-pair exact rows follow: tests/test_audit_bugs.py)
    assert (good["audit"], good["variant"], bad["variant"]) == ("end_to_end", "correct", "broken")
    assert good["epsilon_exact"] <= good["epsilon_claimed"] < bad["epsilon_exact"]
    assert good["epsilon_lower_bound"] <= good["epsilon_exact"] and bad["epsilon_lower_bound"] <= bad["epsilon_exact"]
    # pass only on sampled evidence: at 2000 runs the Hedge learners' broken copies are caught
    # by their exact value only (their default 20 000 runs catch them by sampling)
    expected = "pass" if bad["epsilon_lower_bound"] > bad["epsilon_claimed"] else "no_power"
    assert good["verdict"] == bad["verdict"] == expected
    if name.startswith("privdl"):  # 2000 is their default: sampled power there
        assert expected == "pass"


@pytest.mark.slow
def test_dp_winnow_end_to_end():
    """The whole learner on the release pair: the correct copy within its claim, the broken
    copy (η × 4) caught by the sampled bound; the component rows too."""
    rows = run_cases(cases_for("dp_winnow_batched_tight", epsilon=1.0, delta=1e-6), runs=3_000_000, confidence=0.999, seed=3)
    e2e = [r for r in rows if r["audit"] == "end_to_end"]
    assert [r["variant"] for r in e2e] == ["correct", "broken"] and [r["runs"] for r in e2e] == [200, 500]
    assert e2e[0]["epsilon_lower_bound"] <= 1.0 < e2e[1]["epsilon_lower_bound"]
    assert {r["verdict"] for r in rows} == {"pass"}


def test_the_recorded_laws_are_what_the_kernel_samples_from():
    """Inside ``recording_laws`` the Hedge kernel records, per round, the law it draws the
    action from: the step-by-step reference's p_t, summing to the kernel's own running sum;
    recording changes nothing in the run (same actions, same trace), and outside the block
    nothing is recorded."""
    from dpbench.learners.experts_common import reference_steps, run_hedge
    from dpbench.mechanisms.laws import recorder, recording_laws

    losses = ExpertsLosses(np.random.default_rng(0).integers(0, 3, (60, 4)).astype(np.uint8), 0.5)
    for eta in (0.0, 0.4, math.inf):
        plain = run_hedge(losses, eta, rng=np.random.default_rng(1), track_p=True)
        with recording_laws() as laws:
            recorded = run_hedge(losses, eta, rng=np.random.default_rng(1), track_p=True)
        assert len(laws) == 1 and laws[0].shape == (60, 4)
        assert np.array_equal(plain.counts, recorded.counts) and np.array_equal(plain.alg_loss, recorded.alg_loss)
        p = np.exp(laws[0])
        assert np.allclose(p.sum(axis=0), plain.p_sum, rtol=0, atol=1e-12)
        reference = np.array([pt for _, pt, _ in reference_steps(losses, eta, np.random.default_rng(1).random(60))])
        assert np.allclose(p, reference, rtol=0, atol=1e-12)
    assert recorder() is None


def test_the_audit_runs_the_learners_own_code(monkeypatch):
    """No re-implementation: with the learner's sampling function or its per-round laws
    patched to raise, its audit fails."""
    from dpbench.learners import experts_common

    def boom(*args, **kwargs):
        raise RuntimeError("the learner's own code ran")

    correct = cases_for("private_rwm_tight", epsilon=1.0, delta=1e-6)[0]
    with monkeypatch.context() as m:
        m.setattr(experts_common, "run_hedge", boom)
        with pytest.raises(RuntimeError, match="own code ran"):
            run_case(correct, runs=10, seed=0)
        with pytest.raises(RuntimeError, match="own code ran"):
            correct.exact()  # the exact value composes the laws the learner's run records
    from dpbench.learners import dp_winnow

    with monkeypatch.context() as m:
        m.setattr(dp_winnow, "run_dp_winnow", boom)
        with pytest.raises(RuntimeError, match="own code ran"):
            run_case(cases_for("dp_winnow_batched", epsilon=1.0, delta=1e-6)[0], runs=4, seed=0)
    from dpbench.learners import privdl

    with monkeypatch.context() as m:
        m.setattr(privdl, "gumbel_max", boom)
        with pytest.raises(RuntimeError, match="own code ran"):
            run_case(cases_for("privdl", epsilon=1.0, delta=1e-6)[0], runs=4, seed=0)
    with monkeypatch.context() as m:
        privdl_case = cases_for("privdl", epsilon=1.0, delta=1e-6)[0]
        m.setattr(privdl, "gumbel_max", boom)
        with pytest.raises(RuntimeError, match="own code ran"):
            privdl_case.exact()  # round 1's law as the learner's own fit records it
    from dpbench.learners.dp_gd import DPGD

    monkeypatch.setattr(DPGD, "descend", boom)
    with pytest.raises(RuntimeError, match="own code ran"):
        run_case(cases_for("dp_gd", epsilon=1.0, delta=1e-5)[0], runs=10, seed=0)


def test_private_mw_001_at_the_notes_alpha_is_a_violation():
    """The notes' α = sqrt(ε/(12T)) at their claim (ε = 1, δ = 1e-6): exact ε(δ) ≈ 1.2 > 1."""
    from dpbench.audits.cases.experts import private_mw_001_as_the_notes_claim

    rows = run_cases(private_mw_001_as_the_notes_claim(epsilon=1.0, delta=1e-6), runs=1_000, confidence=CONFIDENCE, seed=0)
    assert rows[0]["variant"] == "correct" and rows[0]["epsilon_exact"] > 1.1
    assert {r["verdict"] for r in rows} == {"violation"}


def test_judge_can_say_each_verdict():
    from dpbench.audits.engine import judge

    def row(variant, bound, exact=math.nan):
        return {"variant": variant, "epsilon_claimed": 1.0, "epsilon_lower_bound": bound, "epsilon_exact": exact}

    assert judge([row("correct", 0.9), row("broken", 1.2)])[0]["verdict"] == "pass"
    assert judge([row("correct", 1.1), row("broken", 1.2)])[0]["verdict"] == "violation"
    assert judge([row("correct", 0.5, 1.3), row("broken", 1.2)])[0]["verdict"] == "violation"
    assert judge([row("correct", 0.5), row("broken", 0.9)])[0]["verdict"] == "no_power"
    # the exact value alone is no evidence about the sampled code: not a pass
    assert judge([row("correct", 0.5), row("broken", 0.9, 1.5)])[0]["verdict"] == "no_power"
    assert judge([row("correct", 0.5, 0.9), row("broken", 1.1, 1.5)])[0]["verdict"] == "pass"
    assert judge([row("correct", 0.5)])[0]["verdict"] == "no_power"
    # a sampled bound above the exact value: the exact value is not the sampled code's law
    mismatch = judge([{**row("correct", 0.5, 0.4), "note": "n", "confidence": 0.999}, row("broken", 1.1, 1.5)])
    assert [r["verdict"] for r in mismatch] == ["violation"] * 2
    assert "sampled bound exceeds the exact ε" in mismatch[0]["note"] and "probability <= 0.002" in mismatch[0]["note"]
    assert "note" not in mismatch[1]
    assert judge([row("correct", 0.5, 0.9), row("broken", 1.6, 1.5)])[0]["verdict"] == "violation"


def test_a_bound_above_the_exact_value_is_a_violation():
    """The reviewer's defect re-created: the broken DP-Winnow copy's exact value computed as a
    formula of the *correct* calibration (beside the sampler, blind to the η error the copy
    runs with). Its sampled bound exceeds that "exact" value and the audit is a violation;
    with exact from the copy's own recorded laws it passes (no false alarm at 0.999)."""
    import dataclasses

    from dpbench.audits.cases.winnow import ReleaseSwapFamily, release_horizon, release_pair
    from dpbench.foundation import registry

    correct, broken = cases_for("dp_winnow_batched", epsilon=1.0, delta=1e-6)[:2]
    learner = registry.learner("dp_winnow_batched")(epsilon=1.0, delta=1e-6)
    p = learner.calibrate(release_pair(release_horizon(learner))[0])
    formula = dataclasses.replace(broken, exact=lambda: ReleaseSwapFamily(p.M * p.K).epsilon(2 * p.eta, 1e-6))
    honest = run_cases([correct, broken], runs=200, confidence=0.999, seed=0)
    assert [r["verdict"] for r in honest] == ["pass", "pass"], honest
    assert all("sampled bound exceeds" not in r["note"] for r in honest)
    rows = run_cases([correct, formula], runs=200, confidence=0.999, seed=0)
    assert rows[1]["epsilon_lower_bound"] > rows[1]["epsilon_exact"] == pytest.approx(honest[0]["epsilon_exact"])
    assert [r["verdict"] for r in rows] == ["violation", "violation"]
    assert "sampled bound exceeds the exact ε: the code does not draw from the law the exact value describes" in rows[1]["note"]


def test_gdp_bound_is_tight_and_valid_for_a_gaussian_shift():
    from dpbench.audits.cases.mechanisms import gaussian_exact
    from dpbench.audits.engine import gdp_lower_bound

    rng = np.random.default_rng(0)
    sigma = 2.0
    exact = gaussian_exact(sigma, 1e-5)
    bound = gdp_lower_bound(sigma * rng.standard_normal(400_000), 1 + sigma * rng.standard_normal(400_000), delta=1e-5,
                            confidence=0.999).epsilon_lower
    assert 0.85 * exact < bound <= exact


def test_vectorised_pac_statistics_are_the_learners_fit():
    """Same seed, one run: the vectorised statistic equals what ``fit`` outputs."""
    from dpbench.audits.cases.pac import SQ_ALPHA, exp_mech_erm_pair, sq_pair, sq_statistic
    from dpbench.learners.exp_mech_erm import ExpMechERM
    from dpbench.learners.private_sq_conjunction import PrivateSQConjunction

    sq = PrivateSQConjunction(epsilon=1.0, alpha=SQ_ALPHA)
    em = ExpMechERM(epsilon=1.0)
    em_case = cases_for("exp_mech_erm", epsilon=1.0, delta=0.0)[0]
    for seed in range(100):
        for side in (0, 1):
            h = sq.fit(sq_pair()[side], rng=np.random.default_rng(seed))
            code = int(h.pos.astype(int) @ (1 << np.arange(len(h.pos))))
            assert sq_statistic(sq, sq_pair()[side], 1, np.random.default_rng(seed))[0] == code
            fitted = em.fit(exp_mech_erm_pair()[side], rng=np.random.default_rng(seed))
            drawn = em_case.sample(side, 1, np.random.default_rng(seed))[0]
            assert fitted == exp_mech_erm_pair()[side].concept_class.hypothesis(drawn)


def test_an_exact_only_catch_is_no_power_and_says_why(capsys):
    """``dpbench audit dp_gd --runs 40``: no sampled power, so no pass (exit 1, the reason printed);
    ``--runs 2`` (the review's repro) is refused: no bound above 0 is possible there."""
    from dpbench.audits.engine import minimum_runs, no_power_reason

    rows = run_cases(cases_for("dp_gd", epsilon=1.0, delta=1e-6), runs=2, confidence=0.999, seed=0)
    assert rows[1]["epsilon_exact"] > 1.0 >= rows[1]["epsilon_lower_bound"]
    assert {r["verdict"] for r in rows} == {"no_power"}
    assert "caught by its exact eps only" in no_power_reason(rows)
    assert minimum_runs(0.999) == 20
    assert cli_audit("dp_gd", epsilon=None, delta=None, runs=2, seed=0) == 2
    assert "--runs must be >= 20" in capsys.readouterr().err
    assert cli_audit("dp_gd", epsilon=None, delta=None, runs=40, seed=0) == 1
    out = capsys.readouterr().out
    assert "exact only (no sampled power)" in out and "no_power: dp_gd:" in out
    assert not any("end_to_end" in line and "verdict=pass" in line for line in out.splitlines())  # (its accounting rows pass)


def test_cli_audit(capsys):
    assert cli_audit("laplace", epsilon=None, delta=None, runs=20_000, seed=1) == 0
    out = capsys.readouterr().out
    assert "laplace" in out and "correct" in out and "broken" in out and "CAUGHT" in out and "verdict=pass" in out
    assert cli_audit("laplace", epsilon=None, delta=None, runs=0, seed=1) == 2
    assert "--runs must be >= 20" in capsys.readouterr().err
    assert cli_audit("no_such_learner", epsilon=None, delta=None, runs=100, seed=1) == 2
    assert "no audit registered" in capsys.readouterr().err
    assert cli_audit("private_mw_001", epsilon=1.0, delta=1e-6, runs=100, seed=1) == 2  # does not run there
    assert "certified delta" in capsys.readouterr().err
    assert default_claim("private_mw_001") == (2.0, 1e-6)


@pytest.mark.slow
def test_the_readme_example_catches_the_broken_copy_at_default_runs(capsys):
    """``dpbench audit private_rwm`` (README, docs/privacy.md) at its default runs: caught by
    sampling, and the docs show exactly what it prints."""
    import re
    from pathlib import Path

    assert cli_audit("private_rwm", epsilon=None, delta=None, runs=None, seed=0) == 0
    out = capsys.readouterr().out
    assert "CAUGHT by bound" in out and "missed" not in out and "verdict=pass" in out
    doc = (Path(__file__).parents[1] / "docs" / "privacy.md").read_text(encoding="utf-8")
    shown = re.search(r"Output of `dpbench audit private_rwm` \(20,000 runs per side\):\n\n```text\n(.*?)```", doc, re.S)
    assert shown is not None and shown.group(1) == out, "docs/privacy.md's example is stale: paste the output above"


def test_audit_of_identical_distributions_is_near_zero():
    draws = lambda seed: Laplace(epsilon=1.0, sensitivity=1.0).sample(np.zeros(20_000), rng=np.random.default_rng(seed))  # noqa: E731
    assert audit(draws(1), draws(2), confidence=CONFIDENCE).epsilon_lower < 0.15


def test_epsilon_lower_bound_accounts_for_delta():
    no_delta = epsilon_lower_bound(5000, 10_000, 1000, 10_000)
    with_delta = epsilon_lower_bound(5000, 10_000, 1000, 10_000, delta=0.1)
    assert 0 < with_delta < no_delta


def test_guards_the_guarantees_depend_on():
    """Expert losses in [0, 1] and DP-Winnow's ‖x‖∞ ≤ 1 are checked where the data enter."""
    from dpbench.foundation import registry
    from dpbench.problems.halfspace import OnlineStream

    registry.load_all()
    big = ExpertsLosses(np.full((5, 2), 2, np.uint8), 1.0)
    for name in ("private_rwm", "private_rwm_tight", "sv_experts"):
        with pytest.raises(ValueError, match=r"expert losses must lie in \[0, 1\], got a loss of 2"):
            registry.learner(name)(epsilon=1.0, delta=1e-6).run(big, rng=np.random.default_rng(0))
    X, y = np.array([[1.5, 0.0]] * 8), np.ones(8)
    stream = OnlineStream(T=8, n_features=2, rho=1.0, make_block=lambda b, rng: (X, y), rng=np.random.default_rng(0),
                          checkpoints=np.array([8]), block_size=8)
    for name in ("dp_winnow", "dp_winnow_batched", "dp_winnow_batched_tight"):
        with pytest.raises(ValueError, match=r"\|\|x\|\|_inf <= 1\), got 1.5"):
            registry.learner(name)(epsilon=1.0, delta=1e-6).run(stream, rng=np.random.default_rng(0))


def test_the_mixture_family_of_one_component_is_gdp():
    """DP-SGD's trade-off family reduces to μ-GDP for one inclusion pattern (N(±s/2, 1): μ = s)."""
    from dpbench.audits.engine import GaussianFamily, MixtureFamily

    family = MixtureFamily((0.5,), (1.0,), epsilon_of=lambda s, d: 0.0)
    for alpha, beta in ((0.3, 0.4), (0.05, 0.2), (1e-3, 0.6)):
        assert family.lower(alpha, beta) == pytest.approx(GaussianFamily.lower(alpha, beta), rel=1e-6)


def test_the_hedge_family_bound_is_checked_against_the_model_free_bound():
    """An all-or-nothing mechanism (true ε = ln(0.6/0.4) = 0.405) is not in the Hedge-swap
    family: the family's bound (Hedge at η′ ≥ 0.4 over 100 rounds: ε ≈ 20) would be far above
    the truth; the goodness-of-fit check rejects it and the row's bound is the model-free
    threshold bound. All-or-nothing plays that are deterministic per side: rejected too."""
    from dpbench.audits.cases.experts import HedgeSwapFamily

    rng = np.random.default_rng(0)
    p = 0.6
    family = HedgeSwapFamily(100)
    result = family.lower_bound(100 * (rng.random(20_000) < p), 100 * (rng.random(20_000) < 1 - p), delta=1e-6, confidence=0.999)
    assert 0.3 < result.epsilon_lower <= math.log(p / (1 - p))  # docs/privacy.md: ≈ 0.34
    assert family.epsilon(0.4, 1e-6) > 10 and "family rejected" in result.event
    capped = family.lower_bound(np.full(50, 100), np.zeros(50, np.int64), delta=1e-6, confidence=0.999)
    assert "family rejected" in capped.event and capped.epsilon_lower < 2 < family.epsilon(7.0, 1e-6)


def test_the_hedge_family_fits_the_hedge_learner():
    """On the learner's own plays the goodness-of-fit check passes (the family bound stands)."""
    rows = run_cases(cases_for("private_rwm_tight", epsilon=1.0, delta=1e-6), runs=5_000, confidence=0.999, seed=1)
    for row in rows:
        assert "chi2 p=" in row["instance"] and "family rejected" not in row["instance"], row["instance"]


def test_a_row_short_of_its_target_says_why_from_its_numbers():
    """The ``note`` column: a correct row whose exact ε is far below its claim says the
    analysis is loose (with the ratio), one below its tightness target says how far and why;
    a row at its target says nothing; a broken row says which error and why."""
    from dpbench.audits.engine import shortfall_note

    rows = run_cases(cases_for("private_rwm", epsilon=1.0, delta=1e-6), runs=2_000, confidence=0.999, seed=0)
    good, bad = rows
    exact = good["epsilon_exact"]
    assert f"analysis loose: exact eps {exact:.3g} < claim 1 (claim/exact = {1 / exact:.3g})" in good["note"]
    assert "of exact at 2,000 runs/side (target 0.8)" in good["note"] and "runs/side" in good["note"].split("needs ~")[1]
    assert bad["note"].startswith("broken: eta x8, the smallest power-of-2 error") and "within the claim" in bad["note"]
    assert 5.6 < 1 / exact < 5.8  # docs/privacy.md: advanced composition is loose ≈ 5.7x on this pair
    privdl_broken = cases_for("privdl", epsilon=1.0, delta=1e-6)[1].note  # docs: λ x128 at ε = 1, x64 over by 1 %
    assert privdl_broken.startswith("broken: lambda x128,") and "(x64: exact 1.01, above the claim" in privdl_broken
    row = {"variant": "correct", "epsilon_claimed": 1.0, "delta_claimed": 0.0, "method": "threshold", "runs": 10}
    assert shortfall_note({**row, "epsilon_exact": 0.9, "epsilon_lower_bound": 0.88}) == ""  # 0.98 of exact, pure DP
    assert "= 0.90 of exact" in shortfall_note({**row, "epsilon_exact": 0.9, "epsilon_lower_bound": 0.81})  # below 0.95
    assert shortfall_note({**row, "epsilon_exact": math.nan, "epsilon_lower_bound": 0.5}) == ""  # nothing to compare with


def test_the_pooled_rate_bound_covers_at_its_confidence():
    """The Hedge-swap family's pooled lower bound on η′ exceeds the true rate in at most a
    (1 − confidence) share of audits (round 1's Bernoulli(½) only makes it conservative):
    400 simulated audits of the family's own law at confidence 0.9."""
    from dpbench.audits.cases.experts import HedgeSwapFamily

    eta, T, runs, reps = 0.02, 100, 1_000, 400
    family = HedgeSwapFamily(T)
    q = 1 / (1 + math.exp(-eta))
    rng = np.random.default_rng(11)
    above = 0
    for _ in range(reps):
        a = rng.binomial(1, 0.5, runs) + rng.binomial(T - 1, q, runs)
        b = rng.binomial(1, 0.5, runs) + rng.binomial(T - 1, 1 - q, runs)
        above += family.rate_lower(a, b, 0.9)[0] > eta
    assert above <= 0.1 * reps + 3 * math.sqrt(0.1 * 0.9 * reps), above  # ≤ 40 expected (+ 3 sd)
    assert above >= 10, "the bound is so loose that it never nears the truth"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["private_rwm", "linear_learner"])
def test_the_loose_learners_broken_copies_are_caught_with_a_margin(name):
    """The η x8 copies of the two learners whose analysis is loose, at their capped runs
    (BROKEN_RUNS): the pooled bound clears the claim by a quarter or more (it cleared it by
    0.1 % with the trade-off estimator), at the workflow's confidence."""
    from dpbench.audits.cases.experts import BROKEN_RUNS

    correct, broken = cases_for(name, epsilon=1.0, delta=1e-6)
    row = run_case(broken, runs=BROKEN_RUNS, confidence=0.999, seed=7)
    assert row["runs"] == BROKEN_RUNS and row["epsilon_lower_bound"] > 1.25 * broken.epsilon, row
    assert "family rejected" not in row["instance"]


def test_the_runs_the_docs_quote_for_the_hedge_bound():
    """docs/privacy.md: private_rwm's pair moves the plays by η√T ≈ 0.05 a run and its correct
    copy needs ≈ 2·10⁵ runs per side for 0.8 of its exact ε at confidence 0.999; the tight
    learner far fewer."""
    from dpbench.audits.cases.experts import T_AUDIT, HedgeSwapFamily
    from dpbench.learners.private_rwm import PrivateRWM
    from dpbench.learners.private_rwm_tight import PrivateRWMTight

    family = HedgeSwapFamily(T_AUDIT)
    eta = PrivateRWM(epsilon=1.0, delta=1e-6).eta(T_AUDIT, 2)
    assert eta * math.sqrt(T_AUDIT) == pytest.approx(0.05, abs=0.005)
    assert 1.5e5 < family.runs_for(eta, 0.8, 1e-6, 0.999) < 3e5
    assert family.runs_for(PrivateRWMTight(epsilon=1.0, delta=1e-6).eta(T_AUDIT, 2), 0.8, 1e-6, 0.999) < 2e4


def test_dp_winnow_rows_say_their_claim_is_audit_only():
    """The source rule is audited at ε = 400, which no workflow cell claims: each of its rows
    says so, with the cap at ε = 1 (from its own calibration) that rules out a row there."""
    from dpbench.audits.cases.winnow import SOURCE_CLAIM, STREAM
    from dpbench.learners.dp_winnow import calibrate

    cases = cases_for("dp_winnow", epsilon=SOURCE_CLAIM, delta=1e-6)
    at_one = calibrate(epsilon=1.0, delta=1e-6, accountant="advanced", update="first", **STREAM)
    assert all(c.note.startswith(f"audit-only claim eps={SOURCE_CLAIM:g}") and f"cap is M={at_one.M} firings" in c.note for c in cases)
    assert not any("audit-only" in c.note for c in cases_for("dp_winnow_batched", epsilon=1.0, delta=1e-6))


@pytest.mark.parametrize("name", ["privdl", "privdl_composition"])
def test_privdl_rows_call_their_slack_the_pairs(name):
    """The privdl pair's differing example is covered in round 1: its claim/exact is this
    pair's slack, not shown to be the set-cover analysis's (the notes say so)."""
    correct, broken = cases_for(name, epsilon=1.0, delta=1e-6)[:2]
    assert "this pair's slack" in correct.note and "this pair's slack" in broken.note
    assert "the analysis's slack" not in correct.note + broken.note


def test_cli_audit_validates_delta_against_the_audits_kind(capsys):
    """``--delta`` on a pure-DP audit must be 0 (2, -1, nan, 0.5 were silently ignored);
    on an (eps, delta) audit 0 < delta < 1, with a warning above 1/n: one line, exit 2."""
    from dpbench.audits.engine import cli_audit

    for bad in (2.0, -1.0, math.nan, 0.5):
        assert cli_audit("laplace", epsilon=None, delta=bad, runs=20, seed=0) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "pure DP" in err[0]
    for bad in (0.0, 1.0, 2.0, -1e-6, math.nan):
        assert cli_audit("dp_gd", epsilon=None, delta=bad, runs=20, seed=0) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "0 < delta < 1" in err[0]
    assert cli_audit("dp_gd", epsilon=None, delta=0.9, runs=20, seed=0) in (0, 1)
    assert "warning: --delta 0.9 > 1/n" in capsys.readouterr().err


def test_every_learners_pair_says_why_it_is_near_the_worst_case():
    """Issue 30 item 3: every private learner's audit carries, on a correct row, a note saying
    which step of its proof the pair saturates ('pair:'), and a pair whose exact share of the
    worst case is below half says so (the notes' shares are generated, so the flag follows them)."""
    import re

    from dpbench.audits import audited_names
    from dpbench.foundation import registry

    registry.load_all()
    private = sorted(n for n, c in registry.LEARNERS.items() if c.private and c.__module__.startswith("dpbench.")
                     and n in audited_names())
    for name in private:
        eps, dlt = default_claim(name)
        notes = [c.note for c in cases_for(name, epsilon=eps, delta=dlt, accounting=True) if c.variant == "correct"]
        assert any("pair:" in n for n in notes), name
        for note in notes:
            for share in re.findall(r"= (\d\.\d\d) of the (?:worst case|uncovered pair)", note):
                assert ("LESS THAN HALF" in note) == (float(share) < 0.5), (name, note)


def test_the_exposure_note_flags_a_pair_below_half_of_the_worst_case():
    from dpbench.audits.engine import exposure_note

    assert "LESS THAN HALF" in exposure_note(0.0158, 0.1214, "uncovered")
    assert "LESS THAN HALF" not in exposure_note(0.81, 1.0, "the supremum")
    assert "0.81 of the worst case over pairs 1" in exposure_note(0.81, 1.0, "the supremum")
