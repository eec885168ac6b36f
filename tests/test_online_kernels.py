"""The compiled pieces behind the online experiment (issue 22): the blocked SIMD margin, the
lazily evaluated Laplace noise of DP-Winnow's sparse vector and the one-pass stream blocks
each equal their plain numpy / Python reference bit for bit, and each check here can fail."""

from __future__ import annotations

import dataclasses
import math

import numba
import numpy as np
import pytest

from dpbench.kernels import pcg64
from dpbench.kernels.block_kernels import decision_list_block
from dpbench.kernels.pcg64 import random_below, skip_coin_flips
from dpbench.kernels.simd_dot import row_dot
from dpbench.learners.online import blocked_dot, max_abs, nonprivate_block
from dpbench.mechanisms.lazy_laplace import laplace_from_uniform, laplace_uniforms, query_uniforms, uniform_cut
from dpbench.problems.dl_as_halfspace import DlAsHalfspace
from dpbench.problems.halfspace import Halfspace, enforce_margin


@numba.njit
def _row_dots(w, X):
    out = np.empty(X.shape[0])
    for r in range(X.shape[0]):
        out[r] = row_dot(w, X, r)
    return out


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64, np.float32, np.float64])
def test_simd_margin_equals_the_blocked_reference(dtype):
    """Every length 0 … 40 and two long ones, contiguous (the vector loop) and strided (the
    scalar fallback): the value of blocked_dot's lane order exactly, including the sign of
    exact ties."""
    rng = np.random.default_rng(0)
    for n in [*range(41), 1000, 2003]:
        w = rng.random(n) * rng.choice([1e-3, 1.0, 1e3], size=n)
        w[rng.random(n) < 0.2] = 1.0 / 7  # repeated weights: exact ties ⟨w, x⟩ = 0
        X = rng.integers(-1, 2, size=(6, n)).astype(dtype) if np.issubdtype(dtype, np.integer) else rng.uniform(-1, 1, (6, n)).astype(dtype)
        wide = np.repeat(X, 2, axis=1)[:, ::2]  # a strided (non-contiguous) view of the same rows
        expected = [blocked_dot(w, x.astype(np.float64)) for x in X]
        for got in (_row_dots(w, X), _row_dots(w, wide)):
            assert [float(v).hex() for v in got] == [float(v).hex() for v in expected]


def test_the_lane_order_is_what_the_check_sees():
    """A vector whose left-to-right sum differs from the blocked one: the check above tells
    the orders apart (it is not passed by any summation)."""
    w = np.array([1.0, 1e16, 0, 0, 0, 0, 0, 0, 1.0, -1e16])
    x = np.ones((1, 10), dtype=np.int8)
    left_to_right = 0.0
    for a in w:
        left_to_right += a
    assert _row_dots(w, x)[0] == blocked_dot(w, w * 0 + 1) == 2.0 and left_to_right == 0.0


def test_block_kernels_refuse_mismatched_shapes():
    X, y = np.ones((4, 3), np.int8), np.ones(4, np.int8)
    with pytest.raises(ValueError, match="len\\(w\\)"):
        nonprivate_block(X, y, np.zeros(5), 0, 0.0, 0.0, np.array([4]), np.array([0, 0, 0, 0, -1]), np.zeros(1, np.int64), np.zeros(1, np.int64))


def test_max_abs():
    assert max_abs(np.ones((3, 2), np.int8)) == 1.0 and max_abs(np.zeros((0, 4))) == 0.0
    assert max_abs(np.array([[0.2, -1.5]])) == 1.5 and max_abs(np.array([[-128]], np.int8)) == 128.0
    assert math.isnan(max_abs(np.array([[0.5, np.nan]])))


# --------------------------------------------------------------------------- lazy Laplace


@pytest.mark.parametrize("scale", [4.0, 4 / 0.03, 0.37, 1e-3])
def test_laplace_from_uniform_is_numpys_draw(scale):
    """The same values bit for bit and the generator left in the same state."""
    a_rng, b_rng = np.random.default_rng(11), np.random.default_rng(11)
    expected = a_rng.laplace(0.0, scale, size=300_000)
    u = laplace_uniforms(300_000, b_rng)
    got = np.array([laplace_from_uniform(v, scale) for v in u[:2000]])
    np.testing.assert_array_equal(got, expected[:2000])
    assert a_rng.bit_generator.state == b_rng.bit_generator.state
    u2, b = query_uniforms(1.0, 5, rng=np.random.default_rng(0))
    assert b == 4.0 and query_uniforms(math.inf, 5, rng=None)[1] == 0.0


def test_laplace_uniforms_reject_zeros_as_numpy_does():
    """numpy skips a uniform of exactly 0 and uses the next one: so do the uniforms."""

    class Scripted:
        def __init__(self, values):
            self.values = list(values)

        def random(self, size):
            out, self.values = self.values[:size], self.values[size:]
            return np.array(out)

    rng = Scripted([0.3, 0.0, 0.7, 0.0, 0.9, 0.0, 0.25, 0.6])
    np.testing.assert_array_equal(laplace_uniforms(4, rng), [0.3, 0.7, 0.9, 0.25])
    assert rng.values == [0.6]


def _skips_no_firing(cut_of) -> bool:
    """For queries q and thresholds T̂ around the firing point, does every uniform just below
    ``cut_of(q, T̂, b)`` (its 2000 neighbours at steps of 2⁻⁵³) give ``q + ν < T̂``?"""
    rng = np.random.default_rng(5)
    for _ in range(400):
        scale = float(rng.choice([1e-3, 0.5, 4.0, 130.0]))
        q = float(rng.integers(0, 10**6)) if rng.random() < 0.5 else float(rng.integers(0, 30))
        thr = q + float(rng.normal(0, 3 * scale))
        cut = cut_of(q, thr, scale)
        below = cut - np.arange(1, 2001) * 2.0**-53
        for u in below[(below > 0) & (below < 1)]:
            if q + laplace_from_uniform(u, scale) >= thr:
                return False
    return True


def test_uniform_cut_never_skips_a_firing_and_skips_most_rounds():
    """uniform_cut passes; the same inverse CDF without its margins (a cut a hair too high)
    fails; and with the gap of a sparse vector at rest (ten noise scales) more than 99.9% of
    the uniforms fall below the cut (no logarithm taken)."""
    assert _skips_no_firing(uniform_cut)

    def too_high(q, thr, b):
        v = thr - q
        return 0.5 * math.exp(v / b) + 1e-12 if v <= 0 else 1 - 0.5 * math.exp(-v / b) + 1e-12

    assert not _skips_no_firing(too_high)
    assert uniform_cut(0, 10.0, 1.0) > 0.999


def test_zero_scale_is_no_noise():
    assert uniform_cut(3, 3.0, 0.0) == -math.inf and uniform_cut(2, 3.0, 0.0) == math.inf
    assert laplace_from_uniform(0.0, 0.0) == 0.0


# --------------------------------------------------------------------------- stream blocks


def _reference_halfspace_block(target, b, rng):
    """The stream block as numpy computed it before the compiled builders (issue 22)."""
    d = target.d
    if target.domain == "boolean":
        bits = np.unpackbits(rng.integers(0, 256, size=(b, (d + 7) // 8), dtype=np.uint8), axis=1)[:, :d]
        X = (2 * bits.astype(np.int8) - 1).astype(np.int8)
    else:
        X = rng.uniform(-1.0, 1.0, size=(b, d))
    support = np.flatnonzero(target.u)
    Xs, us = X[:, support].astype(np.float64), target.u[support]
    score = Xs @ us
    coin = 2 * rng.integers(0, 2, size=b) - 1
    y = np.where(score > 0, 1, np.where(score < 0, -1, coin)).astype(np.int8)
    enforce_margin(Xs, y.astype(np.float64), us, target.rho, rng)
    X[:, support] = Xs
    if target.order == "adversarial":
        idx = np.argsort(y * (X[:, support] @ target.u[support]), kind="stable")
        X, y = X[idx], y[idx]
    return target._features(X), y


@pytest.mark.parametrize("problem", [
    Halfspace(d=8, s=1, rho=1.0), Halfspace(d=3, s=1, rho=1.0), Halfspace(d=5, s=1, rho=0.4, monotone=False),
    Halfspace(d=13, s=1, rho=0.6, domain="cube", order="adversarial"), Halfspace(d=20, s=4, rho=0.3, order="adversarial"),
    Halfspace(d=9, s=3, rho=0.2, domain="cube", monotone=False)], ids=repr)
def test_halfspace_blocks_equal_the_numpy_reference(problem):
    target = problem.draw_target(rng=np.random.default_rng(3))
    for seed in range(3):
        X, y = target._block(3000, np.random.default_rng(seed))
        X0, y0 = _reference_halfspace_block(target, 3000, np.random.default_rng(seed))
        assert X.dtype == X0.dtype and y.dtype == y0.dtype
        np.testing.assert_array_equal(X, X0)
        np.testing.assert_array_equal(y, y0)


def test_one_coordinate_boolean_target_has_no_adversarial_order():
    """Every margin of a one-coordinate target on boolean inputs is 1, so sorting by margin
    is the identity: the problem refuses ``order='adversarial'`` there (a grid would repeat
    the random order's cells under another name), and a target forced to it gives the
    random order's blocks, the same as the sorted numpy reference."""
    with pytest.raises(ValueError, match="adversarial"):
        Halfspace(d=3, s=1, rho=1.0, order="adversarial")
    target = Halfspace(d=3, s=1, rho=1.0).draw_target(rng=np.random.default_rng(3))
    forced = dataclasses.replace(target, order="adversarial")
    for seed in range(3):
        X, y = forced._block(3000, np.random.default_rng(seed))
        X0, y0 = _reference_halfspace_block(forced, 3000, np.random.default_rng(seed))
        X1, y1 = target._block(3000, np.random.default_rng(seed))
        np.testing.assert_array_equal(X, X0)
        np.testing.assert_array_equal(y, y0)
        np.testing.assert_array_equal(X, X1)


def test_decision_list_block_equals_the_numpy_reference():
    for l in (1, 3, 6):  # noqa: E741
        target = DlAsHalfspace(d=9, l=l, p=0.3).draw_target(rng=np.random.default_rng(l))
        F, y = target._block(4000, np.random.default_rng(7))
        X, y0 = target._draw(4000, np.random.default_rng(7))
        F0 = np.concatenate([np.ones((4000, 1), dtype=np.int8), X], axis=1)
        np.testing.assert_array_equal(F, np.concatenate([F0, -F0], axis=1))
        np.testing.assert_array_equal(y, y0)
        assert F.dtype == np.int8 and y.dtype == np.int8
    with pytest.raises(AssertionError):  # the comparison sees a wrong label rule
        wrong = decision_list_block((np.random.default_rng(7).random((4000, 9)) < 0.3).astype(np.uint8), target.variables[::-1].copy(), target.bits)
        np.testing.assert_array_equal(wrong[1], y0)


@pytest.mark.parametrize("shape", [(2000, 20), (7, 3), (1, 1), (0, 5), (333, 9)])
@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.Philox])
def test_random_below_makes_numpys_draws(shape, bit_generator):
    """``rng.random(shape) < p`` bit for bit, and the generator continues identically (also
    after a 32-bit draw left a half word buffered); other bit generators take numpy's path."""
    a, b = np.random.Generator(bit_generator(4)), np.random.Generator(bit_generator(4))
    a.integers(0, 2, size=3)
    b.integers(0, 2, size=3)
    expected = (a.random(shape) < 0.3).astype(np.uint8)
    got = random_below(b, shape, 0.3)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == np.uint8 and repr(a.bit_generator.state) == repr(b.bit_generator.state)
    assert a.integers(0, 2**40, size=5).tolist() == b.integers(0, 2**40, size=5).tolist()


@pytest.mark.parametrize("before", [0, 1, 2, 3])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 100, 101, 131072, 524287])
def test_skipped_coin_flips_leave_numpys_state(before, n):
    """The whole PCG64 state (LCG and half-word buffer) after skipping n coins equals numpy's
    after drawing them, from a buffered and an empty half word; a skip of n − 1 does not."""
    a, b = np.random.default_rng(n), np.random.default_rng(n)
    a.integers(0, 2, size=before)
    b.integers(0, 2, size=before)
    a.integers(0, 2, size=n)
    skip_coin_flips(b, n)
    assert a.bit_generator.state == b.bit_generator.state
    if n:
        c = np.random.default_rng(n)
        c.integers(0, 2, size=before)
        skip_coin_flips(c, n - 1)
        assert c.bit_generator.state != a.bit_generator.state


def test_compiled_random_is_numpys():
    a, b = np.random.default_rng(9), np.random.default_rng(9)
    a.integers(0, 2, size=1)
    b.integers(0, 2, size=1)
    np.testing.assert_array_equal(pcg64.random(b, 1001), a.random(1001))
    assert a.bit_generator.state == b.bit_generator.state


def test_scalar_path_and_vector_path_give_the_same_bits():
    """The short rows' scalar path of the margin intrinsic against its vector path (built with
    the scalar path off) at N = 0 … 12, int8 and float64 inputs, with ±inf, NaN and huge
    weights: the same values (NaN where NaN), the same signs of zero."""
    from dpbench.kernels.simd_dot import _row_dot_simd, row_dot_intrinsic

    vector = row_dot_intrinsic(0, 0)

    @numba.njit
    def both(w, X):
        a, b = np.empty(X.shape[0]), np.empty(X.shape[0])
        for r in range(X.shape[0]):
            a[r], b[r] = _row_dot_simd(w, X, r), vector(w, X, r)
        return a, b

    rng = np.random.default_rng(3)
    for n in range(13):
        w = rng.random(n) * rng.choice([1e-300, 1.0, 1e300], size=n)
        if n:
            w[rng.integers(0, n)] = rng.choice([np.inf, -np.inf, np.nan, -0.0])
        for X in (rng.integers(-1, 2, size=(50, n)).astype(np.int8), rng.uniform(-1, 1, (50, n)) * rng.choice([1.0, 1e300], (50, n))):
            a, b = both(w, X)
            assert np.array_equal(np.isnan(a), np.isnan(b))
            assert [v.hex() for v in a[~np.isnan(a)].tolist()] == [v.hex() for v in b[~np.isnan(b)].tolist()]


def test_row_dot_intrinsic_refuses_a_scalar_path_past_one_block():
    from dpbench.kernels.simd_dot import row_dot_intrinsic

    with pytest.raises(ValueError, match="at most 8"):
        row_dot_intrinsic(9, 0)
