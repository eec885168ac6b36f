"""Problems ``halfspace`` and ``dl_as_halfspace``: margins, transforms, nesting (deterministic)."""

from __future__ import annotations

import numpy as np
import pytest

from dpbench.problems.dl_as_halfspace import DlAsHalfspace
from dpbench.problems.halfspace import Halfspace


@pytest.mark.parametrize("domain", ["boolean", "cube"])
@pytest.mark.parametrize("monotone", [True, False])
@pytest.mark.parametrize("order", ["random", "adversarial"])
def test_margin_is_guaranteed_over_learner_features(domain, monotone, order):
    target = Halfspace(d=12, s=5, rho=0.45, domain=domain, monotone=monotone, order=order).draw_target(rng=np.random.default_rng(1))
    X, y = target.stream(5000, rng=np.random.default_rng(2)).materialise()
    u = target.u_features()
    assert X.shape == (5000, target.n_features) and np.all(u >= 0) and np.isclose(u.sum(), 1.0)
    assert np.all(np.abs(X) <= 1) and set(np.unique(y)) <= {-1, 1}
    assert np.min(y * (X.astype(float) @ u)) >= 0.45 - 1e-12
    if order == "adversarial":  # nearest the margin first (one block here)
        m = y * (X.astype(float) @ u)
        assert np.all(np.diff(m) >= -1e-12)


def test_streams_are_nested_and_reiterable():
    target = Halfspace(d=300, s=7, rho=0.2).draw_target(rng=np.random.default_rng(0))
    big = target.stream(9000, rng=np.random.default_rng(5))
    small = target.stream(4000, rng=np.random.default_rng(5))
    Xb, yb = big.materialise()
    Xs, ys = small.materialise()
    np.testing.assert_array_equal(Xb[:4000], Xs)
    np.testing.assert_array_equal(yb[:4000], ys)
    np.testing.assert_array_equal(big.materialise()[0], Xb)


def test_batch_view():
    target = Halfspace(d=10, s=3, rho=0.3, domain="cube").draw_target(rng=np.random.default_rng(0))
    s = target.sample(500, rng=np.random.default_rng(1))
    assert s.X.dtype == np.float64 and s.X.shape == (500, 10) and set(np.unique(s.y)) <= {0, 1}
    assert np.min((2.0 * s.y - 1) * (s.X @ target.u)) >= 0.3 - 1e-12


@pytest.mark.parametrize("l", [1, 2, 4])
def test_decision_list_equals_its_halfspace_with_lemma_4_10_margin(l):
    target = DlAsHalfspace(d=8, l=l, p=0.3).draw_target(rng=np.random.default_rng(l))
    X, y = target.stream(3000, rng=np.random.default_rng(9)).materialise()
    u = np.concatenate([np.maximum(target.weights(), 0), np.maximum(-target.weights(), 0)])
    margins = y * (X.astype(float) @ u)
    assert np.min(margins) >= 1 / (2 ** (l + 1) - 1) - 1e-12
    assert np.isclose(target.rho, 1 / (2 ** (l + 1) - 1))


def test_bad_parameters_name_the_key():
    with pytest.raises(ValueError, match="rho"):
        Halfspace(rho=0.0)
    with pytest.raises(ValueError, match="order"):
        Halfspace(order="sorted")
    with pytest.raises(ValueError, match="l must"):
        DlAsHalfspace(d=3, l=4)


def test_decision_list_targets_are_never_constant_and_their_constant_error_is_exact():
    """Every drawn list has both labels (a constant target is learnt by predicting one
    label); constant_error() is the majority label's mistake rate, checked against 2·10⁵
    drawn labels (binomial sd ≤ 1.2e-3; tolerance 6e-3 ≈ 5 sd, false alarm < 1e-6)."""
    for l in (1, 2, 3, 4):
        for seed in range(40):
            target = DlAsHalfspace(d=8, l=l, p=0.3).draw_target(rng=np.random.default_rng(seed))
            assert len(set(target.bits.tolist())) == 2
        _, y = target.stream(200_000, rng=np.random.default_rng(11)).materialise()
        share = float(np.mean(y > 0))
        assert 0 < target.constant_error() <= 0.5
        assert abs(min(share, 1 - share) - target.constant_error()) < 6e-3
