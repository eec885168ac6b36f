"""Empirical privacy audits (dpbench.audit) of the conjunction learners, and proof that
the audit has teeth: deliberately broken copies (noise scale halved) are caught.

Every audit uses confidence 1 − 5e-7 per Clopper–Pearson bound, so a correct mechanism is
refuted with probability ≤ 1e-6 (the false-alarm rate of these tests). The neighbouring
datasets are built so that the privacy loss of the correct mechanism is (close to) ε on
some event: the audit then lands just under ε for the correct learner and near 2ε for the
broken one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from dpbench.audit import audit, epsilon_lower_bound, run_many
from dpbench.learners.exp_mech_erm import ExpMechERM
from dpbench.learners.private_sq_conjunction import PrivateSQConjunction
from dpbench.mechanisms.exponential import ExponentialMechanism
from dpbench.mechanisms.laplace import Laplace
from dpbench.problems.base import Sample
from dpbench.problems.conjunction import ConjunctionClass

CONFIDENCE = 1 - 5e-7
TRIALS = 20_000
EPSILON = 1.0


@dataclass(frozen=True, kw_only=True)
class BrokenExpMechERM(ExpMechERM):
    """Claims ε but samples with exp(ε·u) instead of exp(ε·u/2): noise scale halved."""

    def fit(self, sample, *, rng):
        index = ExponentialMechanism(epsilon=2 * self.epsilon).select(-sample.concept_class.mistakes(sample.X, sample.y), rng=rng)
        return sample.concept_class.hypothesis(index)


@dataclass(frozen=True, kw_only=True)
class BrokenPrivateSQ(PrivateSQConjunction):
    """Claims ε but spends 2ε per query budget: Laplace noise scale halved."""

    def epsilon_per_query(self, m):
        return 2 * super().epsilon_per_query(m)


def _exp_mech_neighbours():
    """Class {true, x₁} (d = 1, monotone). D: four (x=0, y=1) → mistakes (0, 4);
    D': one of them replaced by (0, 0) → mistakes (1, 3). P[x₁] moves from 1/(1+e^{2ε})
    to 1/(1+e^{ε}): privacy loss 0.81ε for the correct mechanism, 1.9ε for the broken one."""
    cls = ConjunctionClass(d=1, monotone=True)
    d = Sample(np.zeros((4, 1), np.uint8), np.array([1, 1, 1, 1], np.uint8), concept_class=cls)
    d_prime = Sample(np.zeros((4, 1), np.uint8), np.array([1, 1, 1, 0], np.uint8), concept_class=cls)
    return d, d_prime


def _sq_neighbours():
    """Monotone d = 2, n = 100, α = 0.04 ⇒ τ = α/(2m) = 0.01. D: two positives at x = (0,0)
    (both literal answers 0.02), 98 negatives at (1,1); D': one positive replaced by a
    negative (answers 0.01 = τ). P[both literals kept] = e^{-ε}/4 on D and 1/4 on D':
    privacy loss exactly ε (2ε when the noise scale is halved)."""
    cls = ConjunctionClass(d=2, monotone=True)
    X = np.ones((100, 2), np.uint8)
    X[:2] = 0
    y = np.zeros(100, np.uint8)
    y[:2] = 1
    d = Sample(X, y, concept_class=cls)
    y_prime = y.copy()
    y_prime[1] = 0
    X_prime = X.copy()
    X_prime[1] = 1
    return d, Sample(X_prime, y_prime, concept_class=cls)


def _outputs(learner, sample, seed):
    def one(rng):
        h = learner.fit(sample, rng=rng)
        return int(np.packbits(np.concatenate([h.pos, h.neg]), bitorder="little")[0])

    return run_many(one, TRIALS, seed=seed)


CASES = {
    "exp_mech_erm": (ExpMechERM(epsilon=EPSILON), BrokenExpMechERM(epsilon=EPSILON), _exp_mech_neighbours),
    "private_sq_conjunction": (
        PrivateSQConjunction(epsilon=EPSILON, alpha=0.04),
        BrokenPrivateSQ(epsilon=EPSILON, alpha=0.04),
        _sq_neighbours,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_audit_stays_below_claimed_epsilon(name):
    learner, _, neighbours = CASES[name]
    d, d_prime = neighbours()
    result = audit(_outputs(learner, d, 1), _outputs(learner, d_prime, 2), delta=learner.guarantee().delta, confidence=CONFIDENCE)
    assert result.epsilon_lower <= learner.guarantee().epsilon, result
    assert result.epsilon_lower > 0.3 * EPSILON, f"audit too weak to mean anything: {result}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_audit_catches_broken_copy(name):
    _, broken, neighbours = CASES[name]
    d, d_prime = neighbours()
    result = audit(_outputs(broken, d, 1), _outputs(broken, d_prime, 2), delta=0.0, confidence=CONFIDENCE)
    assert result.epsilon_lower > broken.guarantee().epsilon, result


def test_audit_of_identical_distributions_is_near_zero():
    draws = lambda seed: Laplace(epsilon=1.0, sensitivity=1.0).sample(np.zeros(TRIALS), rng=np.random.default_rng(seed))  # noqa: E731
    assert audit(draws(1), draws(2), confidence=CONFIDENCE).epsilon_lower < 0.15


def test_audit_of_laplace_mechanism_is_tight_from_below():
    """Lap(1/ε) on f(D)=0 vs f(D')=1: the audit approaches but never exceeds ε."""
    mech = Laplace(epsilon=EPSILON, sensitivity=1.0)
    a = mech.sample(np.zeros(TRIALS), rng=np.random.default_rng(1))
    b = mech.sample(np.ones(TRIALS), rng=np.random.default_rng(2))
    result = audit(a, b, confidence=CONFIDENCE)
    assert 0.5 * EPSILON < result.epsilon_lower <= EPSILON


def test_epsilon_lower_bound_accounts_for_delta():
    no_delta = epsilon_lower_bound(5000, 10_000, 1000, 10_000)
    with_delta = epsilon_lower_bound(5000, 10_000, 1000, 10_000, delta=0.1)
    assert 0 < with_delta < no_delta
