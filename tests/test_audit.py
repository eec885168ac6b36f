"""Audits with teeth (issue 10): for every learner and mechanism audited on this branch,
the correct copy's Clopper–Pearson lower bound on ε stays at or below its claim and the
broken copy's (noise halved / rate doubled, same claim) exceeds it.

False-alarm rate: every bound is one-sided at confidence 1 − 5e-7, so a correct copy is
refuted with probability ≤ 1e-6 per test (dpbench.audit), and a broken copy is missed only
if its bound falls more than ~5 standard errors below its expectation (the runs are sized
so that the broken copy's exact ε exceeds the claim by ≥ 5 standard errors). Seeds fixed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbench.audit import AUDIT_COLUMNS, audit, cli_audit, epsilon_lower_bound, run_case
from dpbench.audits import cases_for, default_claim
from dpbench.learners.experts_common import ExpertsLosses, reference_steps
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
    "privdl": (4.0, 1e-6, 1_000_000),
    "privdl_composition": (1.0, 1e-6, 500_000),
    "private_rwm": (4.0, 1e-6, 1_000_000),
    "private_rwm_tight": (1.0, 1e-6, 1_000_000),
    "linear_learner": (4.0, 1e-6, 1_000_000),
    "private_mw_001": (2.0, 1e-6, 500_000),
    "sv_experts": (1.0, 1e-6, 500_000),
}


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_correct_copy_within_claim_and_broken_copy_caught(name):
    eps, delta, runs = CLAIMS[name]
    correct, broken = cases_for(name, epsilon=eps, delta=delta)
    assert (correct.variant, broken.variant) == ("correct", "broken")
    assert (broken.epsilon, broken.delta) == (correct.epsilon, correct.delta), "the broken copy claims the same"
    good = run_case(correct, runs=runs, confidence=CONFIDENCE, seed=3)
    bad = run_case(broken, runs=runs, confidence=CONFIDENCE, seed=3)
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
    lam = cases_for("privdl", epsilon=4.0, delta=1e-6)[0]
    assert lam.exact() == pytest.approx(lam.epsilon)  # the first bit's loss is exactly λ


def test_vectorised_hedge_round_is_the_reference_rule():
    """Round-2 actions of the vectorised sampler = reference_steps' on the same uniforms."""
    from dpbench.audits.experts import SWAP, hedge_round

    eta = 0.3
    rng = np.random.default_rng(5)
    for side in (0, 1):
        codes = np.zeros((2, len(SWAP[side])), np.uint8)
        codes[0] = SWAP[side].astype(np.uint8)
        u = rng.random(300)
        fast = hedge_round(eta, SWAP[side], u)
        for i in range(300):
            steps = list(reference_steps(ExpertsLosses(codes), eta, np.array([0.5, u[i]])))
            assert steps[1][0] == fast[i]


def test_vectorised_pac_statistics_are_the_learners_fit():
    """Same seed, one run: the vectorised statistic equals what ``fit`` outputs."""
    from dpbench.audits.pac import SQ_ALPHA, exp_mech_erm_pair, sq_pair, sq_statistic
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


def test_cli_audit(capsys):
    assert cli_audit("laplace", epsilon=None, delta=None, runs=20_000, seed=1) == 0
    out = capsys.readouterr().out
    assert "laplace" in out and "correct" in out and "broken" in out and "CAUGHT" in out
    assert cli_audit("no_such_learner", epsilon=None, delta=None, runs=100, seed=1) == 2
    assert "no audit registered" in capsys.readouterr().err
    assert cli_audit("private_mw_001", epsilon=1.0, delta=1e-6, runs=100, seed=1) == 2  # does not run there
    assert "certified delta" in capsys.readouterr().err
    assert default_claim("private_mw_001") == (2.0, 1e-6)


def test_audit_of_identical_distributions_is_near_zero():
    draws = lambda seed: Laplace(epsilon=1.0, sensitivity=1.0).sample(np.zeros(20_000), rng=np.random.default_rng(seed))  # noqa: E731
    assert audit(draws(1), draws(2), confidence=CONFIDENCE).epsilon_lower < 0.15


def test_epsilon_lower_bound_accounts_for_delta():
    no_delta = epsilon_lower_bound(5000, 10_000, 1000, 10_000)
    with_delta = epsilon_lower_bound(5000, 10_000, 1000, 10_000, delta=0.1)
    assert 0 < with_delta < no_delta
