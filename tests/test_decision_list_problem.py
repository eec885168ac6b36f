"""The ``decision_list`` problem: feature class, enumerated class, targets ([BF26, §2–3])."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbench import theory
from dpbench.problems.decision_list import (
    CHECK_SIZE,
    HUGE,
    DecisionList,
    DecisionListClass,
    DecisionListProblem,
    FeatureClass,
    _first_rule,
)


@pytest.mark.parametrize("d,k,monotone", [(3, 1, False), (5, 2, False), (6, 3, True), (8, 2, True), (50, 2, False)])
def test_feature_class_size_matches_formula(d, k, monotone):
    F = FeatureClass(d=d, k=k, monotone=monotone)
    expected = sum(math.comb(d, i) * (1 if monotone else 2**i) for i in range(k + 1))
    assert len(F.literals) == F.size == theory.dl_feature_count(d, k, monotone) == expected
    assert F.size <= (2 * d + 1) ** k  # [BF26, Prop. A.9]
    assert len({tuple(sorted(r)) for r in F.literals.tolist()}) == F.size  # no duplicates
    assert (F.literals[0] == 2 * d).all()  # feature 0 is the constant-true function


def test_feature_matrix_matches_single_rule_lists(rng):
    F = FeatureClass(d=5, k=2)
    X = rng.integers(0, 2, size=(300, 5)).astype(np.uint8)
    phi = F.evaluate(X)
    assert phi.shape == (300, F.size) and phi[:, 0].all()
    for f in range(F.size):
        rule = DecisionList(d=5, literals=F.literals[f : f + 1], bits=np.array([1], dtype=np.uint8), default=0)
        np.testing.assert_array_equal(rule.predict(X), phi[:, f])
    packed = F.evaluate_packed(X, block=64)
    np.testing.assert_array_equal(np.unpackbits(packed, axis=1, bitorder="little", count=F.size).astype(bool), phi)


def test_enumerated_class_counts_and_mistakes(rng):
    cls = DecisionListClass(FeatureClass(d=3, k=1))
    assert cls.size == 151_946
    assert math.isclose(math.log(cls.size), cls.log_size, rel_tol=1e-12)
    X = rng.integers(0, 2, size=(150, 3)).astype(np.uint8)
    y = rng.integers(0, 2, size=150).astype(np.uint8)
    mistakes = cls.mistakes(X, y)
    assert mistakes.shape == (cls.size,)
    for i in [*rng.integers(0, cls.size, size=200).tolist(), 0, 1, cls.size - 1]:
        assert int((cls.hypothesis(i).predict(X) != y).sum()) == mistakes[i]
    assert DecisionListClass(FeatureClass(d=30, k=2)).size == HUGE  # too large to count: the cap applies


def _alternations(bits) -> int:
    return int(np.count_nonzero(np.diff(np.asarray(bits, dtype=int))))


@pytest.mark.parametrize(
    "params",
    [
        {"d": 3, "k": 1, "l": 2, "r": 1},
        {"d": 10, "k": 1, "l": 4, "r": 2},
        {"d": 8, "k": 2, "l": 4, "r": 4},
        {"d": 12, "k": 3, "l": 5, "r": 3, "p": 0.4},
        {"d": 6, "k": 1, "l": 3, "r": 3, "monotone": True, "p": 0.3},
    ],
)
def test_targets_are_not_degenerate(params):
    """Every drawn target has l rules of exactly k literals, exactly r alternations, every
    rule and the default deciding ≥ τ of a fresh input sample, and both labels present.

    The share check re-estimates on 8192 fresh inputs the property that draw_target enforced
    on its own 8192 inputs with threshold τ; here the threshold is τ/2: a share ≥ τ whose
    estimate falls below τ/2 has (Chernoff, τ·8192 ≥ 20) probability < 1e-6 per rule for
    the parameters above."""
    problem = DecisionListProblem(**params)
    tau = problem.min_share()
    assert tau * CHECK_SIZE >= 20
    for seed in range(5):
        target = problem.draw_target(rng=np.random.default_rng(seed))
        concept = target.concept
        assert len(concept) == problem.l
        assert ((concept.literals < 2 * problem.d).sum(axis=1) == problem.k).all()
        assert _alternations([*concept.bits, concept.default]) == problem.r
        if problem.monotone:
            assert (concept.literals < problem.d).all()
        X = (np.random.default_rng(100 + seed).random((CHECK_SIZE, problem.d)) < problem.p).astype(np.uint8)
        shares = np.bincount(_first_rule(X, concept.literals), minlength=problem.l + 1) / CHECK_SIZE
        assert shares.min() >= tau / 2
        assert 0.02 < concept.predict(X).mean() < 0.98


def test_population_error_adds_noise_exactly():
    target = DecisionListProblem(d=8, k=2, l=4, r=2, noise=0.1).draw_target(rng=np.random.default_rng(0))
    assert target.population_error(target.concept) == pytest.approx(0.1)
    flipped = DecisionList(d=8, literals=target.concept.literals, bits=1 - target.concept.bits, default=1 - target.concept.default)
    assert target.population_error(flipped) == pytest.approx(0.9)
    sample = target.sample(20_000, rng=np.random.default_rng(1))
    # labels are flipped at rate 0.1: 4.9 sd of a binomial(20000, 0.1) share is 0.0104 (false alarm < 1e-6)
    assert abs(np.mean(target.concept.predict(sample.X) != sample.y) - 0.1) < 0.0104


@pytest.mark.parametrize(
    "params,key",
    [
        ({"d": 5, "k": 6}, "k"),
        ({"d": 5, "r": 0}, "r"),
        ({"d": 5, "l": 2, "r": 3}, "r"),
        ({"d": 2, "k": 1, "l": 5, "r": 1}, "l"),
        ({"d": 5, "noise": 0.5}, "noise"),
        ({"d": 5, "p": 1.0}, "p"),
        ({"d": 0}, "d"),
    ],
)
def test_bad_parameters_name_the_key(params, key):
    with pytest.raises(ValueError, match=key):
        DecisionListProblem(**params)


def test_problem_knows_its_class_size():
    problem = DecisionListProblem(d=3, k=1, l=2, r=1)
    assert problem.n_features() == 7
    assert math.exp(problem.log_class_size()) == pytest.approx(151_946)
    m = 5000  # ln|C| = Θ(|F| ln|F|): between m ln m − m and m ln(2m) + 2 (Stirling)
    assert m * math.log(m) - m < theory.dl_log_class_size(m + 1) < m * math.log(2 * m) + 2
