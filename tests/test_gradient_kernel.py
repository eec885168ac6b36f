"""The compiled full-batch gradient pass of dp_gd (:func:`full_batch_clipped_gradient_sum`)
and its four-lane margins (:func:`dpbench.kernels.lane_dot.block_dots`): the same bits as the
plain numba loop :func:`~dpbench.learners.logistic_common.plain_clipped_sums` (the scalar pass it
replaced, and the baseline ``benchmarks/bench_intrinsics.py`` times it against), the numpy
gradient up to rounding."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from dpbench.kernels.lane_dot import block_dots
from dpbench.learners.logistic_common import clipped_gradient_sum, full_batch_clipped_gradient_sum, plain_clipped_sums


@numba.njit
def sequential_dot(a, b, d):
    m = 0.0
    for k in range(d):
        m += a[k] * b[k]
    return m


@numba.njit
def block_dots_of(a, X):
    m = np.empty(X.shape[0])
    block_dots(a, X, 0, X.shape[0], m)
    return m


def lane_dot_of(a, b, d):
    """The four-lane dot of ``a[:d]`` and ``b[:d]``, as dp_gd's pass forms a margin."""
    return block_dots_of(np.ascontiguousarray(a[:d]), np.ascontiguousarray(b[:d]).reshape(1, d))[0]


def _data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * rng.uniform(0.5, 1.5, size=(n, 1))  # some rows outside the ball
    s = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return X, s, np.linalg.norm(X, axis=1), rng.standard_normal((3, d)) * 5


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 20, 33, 47, 50, 67])
@pytest.mark.parametrize("clip", [None, 1.0, 0.05])
def test_gradient_pass_is_the_plain_loop_bit_for_bit(d, clip):
    X, s, norms, theta = _data(133, d)  # 133 rows: blocks of 16 and a remainder
    got = full_batch_clipped_gradient_sum(theta, X, s, norms, clip)
    want = plain_clipped_sums(theta, X, s, norms, -1.0 if clip is None else clip)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(full_batch_clipped_gradient_sum(theta[1], X, s, norms, clip), want[1])
    np.testing.assert_allclose(got, clipped_gradient_sum(theta, X, s, norms, clip), rtol=1e-12, atol=1e-12)


def test_lane_dot_order_is_the_four_lanes_and_differs_from_a_sequential_sum():
    """The bit-for-bit check can fail: the lane order is not the sequential order."""
    rng = np.random.default_rng(1)
    differs = 0
    for _ in range(200):
        a, b = rng.standard_normal(50), rng.standard_normal(50)
        lanes = [sum((a[k] * b[k] for k in range(l, 48, 4)), 0.0) for l in range(4)]
        lanes[0] = lanes[0] + a[48] * b[48] + a[49] * b[49]
        assert lane_dot_of(a, b, 50) == (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
        differs += lane_dot_of(a, b, 50) != sequential_dot(a, b, 50)
    assert differs > 0


def test_lane_dot_refuses_strided_arrays():
    a = np.arange(8.0)
    with pytest.raises(numba.core.errors.TypingError, match="contiguous 1-D float64"):
        block_dots_of(a[::2], a[:4].reshape(1, 4))


@pytest.mark.parametrize("d, points, n", [(1, 7, 50), (2, 61, 120), (3, 5, 64), (6, 7, 20), (5, 2, 33), (2, 1, 9)])
def test_grid_kernel_is_the_generic_kernel_bit_for_bit(d, points, n):
    """exp_mech_grid's scores by the grid kernel (margins as shared prefixes) are the generic
    kernel's, bit for bit (a different order of the margin sums would not be)."""
    from dpbench.learners.exp_mech_grid import ExpMechGrid, grid
    from dpbench.learners.log_loss_kernel import grid_log_loss_sums, log_loss_sums

    rng = np.random.default_rng(d * 100 + points)
    X = rng.standard_normal((n, d)) / 2
    s = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    learner = ExpMechGrid(epsilon=1.0, points=points, max_candidates=10**6)
    cands = grid(d, points, learner.radius)
    np.testing.assert_array_equal(learner.grid_scores(X, s), learner.scores(X, s, cands))
    if d >= 3:  # the margins summed last coordinate first (for d = 2 the same: a + b = b + a): other bits somewhere
        flipped = log_loss_sums((s[:, None] * X)[:, ::-1], cands[:, ::-1])
        assert not np.array_equal(flipped, grid_log_loss_sums(s[:, None] * X, np.linspace(-4, 4, points)))


@pytest.mark.parametrize("case", ["short_theta", "long_theta", "short_s", "short_norms", "theta_3d"])
def test_gradient_pass_refuses_mismatched_shapes(case):
    """The compiled pass reads and writes by X's shape: a mismatch is refused, not run."""
    X, s, norms, theta = _data(20, 5)
    args = {"short_theta": (theta[:, :4], X, s, norms), "long_theta": (np.hstack([theta, theta]), X, s, norms),
            "short_s": (theta, X, s[:-1], norms), "short_norms": (theta, X, s, norms[:-1]),
            "theta_3d": (theta[None], X, s, norms)}[case]
    with pytest.raises(ValueError, match="shapes do not match"):
        full_batch_clipped_gradient_sum(*args, 1.0)


@pytest.mark.parametrize("clip", [0.0, -1.0, float("nan")])
def test_gradient_pass_refuses_a_clip_that_is_not_positive(clip):
    X, s, norms, theta = _data(20, 5)
    with pytest.raises(ValueError, match="clip must be > 0"):
        full_batch_clipped_gradient_sum(theta, X, s, norms, clip)


def test_gradient_pass_is_the_plain_loop_on_random_shapes_and_awkward_values():
    """d = 1 … 70, n = 0 … 133 (blocks of 16 and every remainder), 1–3 runs, strided inputs,
    and NaN, ±inf and huge entries (overflowing margins and products): the same bits, NaN
    where NaN (a NaN's sign bit may differ: x86 gives the NaN of one operand, which the vector
    and scalar orders of operands pick differently)."""
    rng = np.random.default_rng(7)
    for case in range(120):
        d, n, runs = int(rng.integers(1, 71)), int(rng.integers(0, 134)), int(rng.integers(1, 4))
        X = rng.standard_normal((n, 2 * d))[:, ::2]  # strided: the pass takes a contiguous copy
        theta = rng.standard_normal((runs, d)) * 10.0 ** rng.integers(-3, 4)
        if case % 4 == 0 and n:
            X.flat[rng.integers(0, X.size, 3)] = rng.choice([np.nan, np.inf, -np.inf, 1e308, -1e308], 3)
        s = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        norms = np.linalg.norm(X, axis=1) if n else np.zeros(0)
        for clip in (None, 0.3):
            got = full_batch_clipped_gradient_sum(theta, X, s, norms, clip)
            want = plain_clipped_sums(theta, np.ascontiguousarray(X), s, norms, -1.0 if clip is None else clip)
            nan = np.isnan(got)
            assert np.array_equal(nan, np.isnan(want)), (d, n, runs, clip)
            assert np.where(nan, 0.0, got).tobytes() == np.where(nan, 0.0, want).tobytes(), (d, n, runs, clip)
