"""Empirical privacy audits of ``privdl`` and ``privdl_composition`` (dpbench.audits.engine).

Every audit runs a learner many times on two neighbouring datasets (replace-one: one
example's label changed) and turns the frequencies of an output event into a lower bound
on ε (Clopper–Pearson, events chosen on one half of the runs, the bound computed on the
other). With ``confidence = 1 − 2e-6`` a correct mechanism is refuted with probability at
most 1e-6 per audit.

Why the λ-doubled variant is caught by a *per-round* audit: the set-cover analysis ([BF26]
Lemma A.1) is loose by a factor ≈ ln(e/δ) at the event probabilities an audit can observe
(a privacy loss above λ·Σp_i needs the differing example to survive rounds whose covering
mass sums to Σp_i, which happens with probability e^{−Σp_i} < δ once the loss exceeds the
claimed ε), so doubling λ stays within the claimed end-to-end ε in every observable event
and no audit can refute it there. What *is* observable is the exponential mechanism's
calibration: on a one-example dataset where every feature covers the example, the first
rule's bit is 0 with probability e^{−λ}/(1 + e^{−λ}) under label 1 and 1/(1 + e^{−λ}) under
label 0 — a privacy loss of exactly λ. The audit checks the learner's behaviour against
the λ that its own accounting (:meth:`PrivDL.lam`, the number behind ``guarantee()``)
reports: the correct learner is not refuted, the λ-doubled one is. A grossly miscalibrated
variant (λ × 50) is also refuted end-to-end, at the claimed ε.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbench.audits.engine import audit, run_many
from dpbench.learners.base import ADD_REMOVE
from dpbench.learners.privdl import PrivDL, covering_list
from dpbench.learners.privdl_composition import PrivDLComposition
from dpbench.problems.base import Sample
from dpbench.problems.decision_list import DecisionListClass, FeatureClass

CONFIDENCE = 1 - 2e-6
TRIALS = 4000


def _neighbours_one_example(monotone: bool = True) -> tuple[Sample, Sample]:
    """D = {((1,1), 1)}, D' = {((1,1), 0)}; with monotone 2-term features every feature covers (1,1)."""
    cls = DecisionListClass(FeatureClass(d=2, k=2, monotone=monotone))
    X = np.array([[1, 1]], dtype=np.uint8)
    return Sample(X, np.array([1], dtype=np.uint8), concept_class=cls), Sample(X, np.array([0], dtype=np.uint8), concept_class=cls)


def _neighbours_small() -> tuple[Sample, Sample]:
    """Six examples over d = 3 (1-decision lists), the last one's label differs."""
    cls = DecisionListClass(FeatureClass(d=3, k=1))
    X = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 1], [1, 1, 1], [0, 1, 0]], dtype=np.uint8)
    y = np.array([1, 1, 0, 0, 1, 0], dtype=np.uint8)
    y_prime = y.copy()
    y_prime[-1] = 1
    return Sample(X, y, concept_class=cls), Sample(X, y_prime, concept_class=cls)


def _first_rule_code(h) -> int:
    return int(h.features[0]) * 2 + int(h.bits[0])


def _audit(fit, d, d_prime, *, delta: float, seed: int):
    a = run_many(lambda r: fit(d, r), TRIALS, seed=seed)
    b = run_many(lambda r: fit(d_prime, r), TRIALS, seed=seed + 1)
    return audit(a, b, delta=delta, confidence=CONFIDENCE)


@pytest.mark.parametrize(
    "learner",
    [PrivDL(epsilon=1.0, delta=1e-3), PrivDL(epsilon=2.0, delta=1e-3, neighbours=ADD_REMOVE), PrivDLComposition(epsilon=1.0, delta=1e-3), PrivDLComposition(epsilon=1.0)],
    ids=["privdl", "privdl-add-remove", "privdl_composition", "privdl_composition-pure"],
)
def test_private_learners_pass_the_end_to_end_audit(learner):
    """The first rule (feature, bit) of the output: the audited ε lower bound (δ accounted
    for) stays below the claimed ε (false alarm ≤ 1e-6)."""
    g = learner.guarantee()
    d, d_prime = _neighbours_small()
    result = _audit(lambda s, r: _first_rule_code(learner.fit(s, rng=r)), d, d_prime, delta=g.delta, seed=10)
    assert result.epsilon_lower <= g.epsilon, result


@pytest.mark.slow
def test_per_round_audit_catches_doubled_lambda():
    """First-round bit on the one-example instance (module docstring): loss exactly λ.
    Correct λ: lower bound ≤ λ (false alarm ≤ 1e-6). λ doubled (true loss 2λ ≈ 0.71 at
    ε = 4, δ = 1e-2, add/remove: λ = 0.357): refuted — lower bound > λ (measured 0.49)."""
    learner = PrivDL(epsilon=4.0, delta=1e-2, neighbours=ADD_REMOVE)
    lam = learner.lam()
    assert lam == pytest.approx(4.0 / (2 * math.log(math.e / 1e-2)))
    d, d_prime = _neighbours_one_example()

    correct = _audit(lambda s, r: int(learner.fit(s, rng=r).bits[0]), d, d_prime, delta=0.0, seed=1)
    assert correct.epsilon_lower <= lam, correct
    broken = _audit(lambda s, r: int(covering_list(s, 2 * lam, rng=r).bits[0]), d, d_prime, delta=0.0, seed=1)
    assert broken.epsilon_lower > lam, broken


def test_end_to_end_audit_catches_gross_miscalibration():
    """λ × 50 at claimed ε = 1, δ = 1e-3 (replace-one λ = 0.028 → 1.4 > ε): the one-example
    instance's first bit alone refutes the claimed ε (measured lower bound ≈ 1.2)."""
    learner = PrivDL(epsilon=1.0, delta=1e-3)
    g = learner.guarantee()
    d, d_prime = _neighbours_one_example()
    broken = _audit(lambda s, r: int(covering_list(s, 50 * learner.lam(), rng=r).bits[0]), d, d_prime, delta=g.delta, seed=3)
    assert broken.epsilon_lower > g.epsilon, broken
