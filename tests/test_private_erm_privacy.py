"""Privacy audits of the private-ERM learners (issue 10): near-worst-case neighbours
(``dpbench/audits/cases/erm.py``), a correct copy and a broken copy (noise scale halved, claiming
the same ε) per learner, and the two dp_sgd defects.

Rates. The correct copy is refuted (bound > ε) with probability ≤ 2(1 − c) over the runs
(``dpbench.audits.engine``); with ``c = 1 − 5·10⁻⁷`` that is a false-alarm rate ≤ 10⁻⁶ per test. The
broken copy must be refuted at the experiment's confidence 0.95: its bound > ε is a
refutation that an ε-DP mechanism would produce with probability ≤ 10%. Seeds are fixed,
so each test is deterministic; the rates say how much to trust a pass.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest

from dpbench.audits import cases_for
from dpbench.audits.cases.erm import CANARY_S, CANARY_X, GD_PARAMS, discrete_epsilon, gaussian_mixture_epsilon
from dpbench.audits.engine import audit
from dpbench.learners.base import ADD_REMOVE, REPLACE_ONE, Guarantee
from dpbench.learners.dp_sgd import DPSGD
from dpbench.mechanisms.accounting import calibrate_noise_multiplier, poisson_gaussian_epsilon
from dpbench.mechanisms.gaussian import analytic_epsilon

STRICT = 1 - 5e-7  # false alarm ≤ 1e-6 for the correct copy
REFUTE = 0.95  # the experiment's confidence, for the broken copy
EPSILON, DELTA = 1.0, 1e-5

#: runs per side (chosen so the broken copy is refuted with margin; measured bounds in the
#: report of the erm branch): diffprivlib draws its noise in a Python loop, so fewer runs.
RUNS = {"dp_gd": 200_000, "dp_sgd": 100_000, "output_perturbation": 100_000, "objective_perturbation": 100_000,
        "exp_mech_grid": 100_000, "diffprivlib_logreg": 20_000}


def _outputs(case, runs, seed):
    rng = np.random.default_rng([seed, 0])
    return case.sample(0, runs, rng), case.sample(1, runs, np.random.default_rng([seed, 1]))


@pytest.mark.parametrize("name", sorted(RUNS))
def test_correct_copy_passes_and_broken_copy_is_refuted(name):
    logging.disable(logging.WARNING)
    correct, broken = cases_for(name, epsilon=EPSILON, delta=DELTA)[-2:]  # diffprivlib: its component pair (end to end: test_audit_erm.py)
    assert (correct.variant, broken.variant) == ("correct", "broken")
    assert correct.neighbours == broken.neighbours == REPLACE_ONE
    a, b = _outputs(correct, RUNS[name], 1)
    lower = audit(a, b, delta=correct.delta, confidence=STRICT)
    assert lower.epsilon_lower <= EPSILON, lower
    a, b = _outputs(broken, RUNS[name], 2)
    refuted = audit(a, b, delta=broken.delta, confidence=REFUTE)
    assert refuted.epsilon_lower > EPSILON, refuted
    if correct.exact is not None:  # the exact ε(δ) of the pair: below the claim, and near it
        assert 0.75 * EPSILON <= correct.exact() <= EPSILON
        assert broken.exact() > 1.5 * EPSILON


def test_exact_epsilon_of_a_pair_matches_closed_forms():
    """The two exact computations of the audit module against closed forms: a Gaussian
    shift (Balle–Wang, via analytic_epsilon) and randomised response (ε = ln 3 at δ = 0)."""
    eps = gaussian_mixture_epsilon(np.array([0.25]), np.array([1.0]), 1e-5)
    assert eps == pytest.approx(analytic_epsilon(sigma=1.0, delta=1e-5, sensitivity=0.5), rel=1e-4)
    assert discrete_epsilon(np.log([0.75, 0.25]), np.log([0.25, 0.75]), 0.0) == pytest.approx(math.log(3), rel=1e-9)


# ------------------------------------------------------------------ defect 2: dp_sgd's relation


class _AddRemoveClaimDPSGD(DPSGD):
    """The old dp_sgd: the same algorithm (q = min(1, B/n), normaliser qn) calibrated and
    claimed for add/remove-one neighbours."""

    def calibration(self, n):
        z, eps = calibrate_noise_multiplier(
            lambda z: poisson_gaussian_epsilon(z, min(1.0, self.batch_size / n), self.steps, self.delta, neighbours=ADD_REMOVE),
            epsilon=self.epsilon, delta=self.delta)
        return z, eps

    def guarantee(self):
        return Guarantee(epsilon=self.epsilon, delta=self.delta, neighbours=ADD_REMOVE)


def _pair(relation):
    """Neighbouring inputs of ``relation`` near the worst case: replace-one, the canary's
    label flipped (n = 2); add/remove-one, D = {(e₁, y=1)} (n = 1) and D' = D + a canary on
    e₂ (n = 2), which changes the normaliser qn seen by the e₁ example."""
    if relation == REPLACE_ONE:
        return (CANARY_X, CANARY_S[0]), (CANARY_X, CANARY_S[1])
    return (CANARY_X[:1], np.ones(1)), (CANARY_X, np.ones(2))


@pytest.mark.parametrize("cls,refuted", [(DPSGD, False), (_AddRemoveClaimDPSGD, True)])
def test_dp_sgd_audited_with_the_neighbours_it_claims(cls, refuted):
    """Audit dp_sgd on a pair of the relation its guarantee names (θ₁, 10⁵ runs). The
    learner (replace-one, n public) passes at false-alarm rate ≤ 10⁻⁶; the old claim
    (add/remove-one with q and qn depending on n: the n = 1 vs n = 2 pair doubles the noise
    and gradient scale on e₁) is refuted far above ε at the same strict confidence."""
    learner = cls(epsilon=EPSILON, delta=DELTA, batch_size=2, **GD_PARAMS)
    (X0, s0), (X1, s1) = _pair(learner.guarantee().neighbours)
    a = learner.descend(X0, s0, runs=100_000, rng=np.random.default_rng(3))[:, 0]
    b = learner.descend(X1, s1, runs=100_000, rng=np.random.default_rng(4))[:, 0]
    result = audit(a, b, delta=DELTA, confidence=STRICT)
    if refuted:
        assert result.epsilon_lower > 2 * EPSILON, result
    else:
        assert result.epsilon_lower <= EPSILON, result


def test_dp_sgd_states_replace_one():
    g = DPSGD(epsilon=EPSILON, delta=DELTA).guarantee()
    assert (g.epsilon, g.delta, g.neighbours) == (EPSILON, DELTA, REPLACE_ONE)
