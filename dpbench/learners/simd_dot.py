"""The online learners' margin ``⟨w, x⟩`` in a fixed blocked order, compiled to SIMD code.

Order (the same in :func:`dot`, the fallback loop and the Python reference
:func:`dpbench.learners.online.blocked_dot`): coordinate ``i`` is summed into lane ``i mod 8``,
each lane left to right starting from ``0.0``; then
``((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7))``. Every product and sum is one IEEE
rounding, never a fused multiply–add, so the value is the same on every machine and in
every implementation (the references must round identically: DP-Winnow's released weights
are multiples of 1/K and Boolean inputs make exact ties ``⟨w, x⟩ = 0`` common, where one
ulp flips a prediction).

Why a hand-written vector loop: the eight lanes are independent sequential sums, i.e.
exactly one ``acc ← acc + w[8k:8k+8] · x[8k:8k+8]`` on an 8-wide vector per block, which
changes no rounding. LLVM's loop vectoriser cannot find this (it would have to reassociate
each lane's sum) and numba leaves the SLP vectoriser off, so written with scalars the
loop runs one element at a time with a scalar int→float conversion each (issue 22: 0.52×
a single-thread float64 ``X @ w``). :func:`_lane_sums_simd` emits the vector loop directly
(LLVM IR through :func:`numba.extending.intrinsic`): ``<8 x double>`` loads/multiplies/adds,
the int8 inputs widened eight at a time. Arrays it does not handle (non-contiguous, other
dtypes) take :func:`_lane_sums_scalar`, the same order one element at a time.
"""

from __future__ import annotations

import numba
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

LANES = 8
_INTS = (types.int8, types.int16, types.int32, types.int64)
_FLOATS = (types.float32, types.float64)


def _simd_ok(w, X) -> bool:
    """Contiguous 1-d float64 ``w`` and contiguous 2-d ``X`` of a signed-integer or float dtype."""
    return (isinstance(w, types.Array) and w.ndim == 1 and w.layout == "C" and w.dtype == types.float64
            and isinstance(X, types.Array) and X.ndim == 2 and X.layout == "C" and X.dtype in _INTS + _FLOATS)


@intrinsic
def _lane_sums_simd(typingctx, w, X, r):
    """The eight lane sums of ``w`` and row ``r`` of ``X`` over the ``n // 8`` whole blocks,
    as one ``<8 x double>`` loop (``n = len(w)``; the caller checks the shapes)."""
    if not (_simd_ok(w, X) and isinstance(r, types.Integer)):
        return None
    sig = types.UniTuple(types.float64, LANES)(w, X, r)

    def codegen(context, builder, signature, args):
        wa = context.make_array(signature.args[0])(context, builder, args[0])
        xa = context.make_array(signature.args[1])(context, builder, args[1])
        xdtype = signature.args[1].dtype
        n = builder.extract_value(wa.shape, 0)
        row = context.cast(builder, args[2], signature.args[2], types.intp)
        xrow = builder.gep(xa.data, [builder.mul(row, builder.extract_value(xa.shape, 1))])  # C order: row r starts at r·ncols
        blocks = builder.ashr(n, ir.Constant(n.type, 3))
        dvec = ir.VectorType(ir.DoubleType(), LANES)
        xvec = ir.VectorType(context.get_data_type(xdtype), LANES)
        acc = cgutils.alloca_once_value(builder, ir.Constant(dvec, None))  # +0.0 in every lane
        with cgutils.for_range(builder, blocks) as loop:
            start = builder.mul(loop.index, ir.Constant(n.type, LANES))
            wv = builder.load(builder.bitcast(builder.gep(wa.data, [start]), dvec.as_pointer()), align=8)
            xv = builder.load(builder.bitcast(builder.gep(xrow, [start]), xvec.as_pointer()), align=1)
            if xdtype in _INTS:
                xv = builder.sitofp(xv, dvec)  # exact: |x| < 2^53
            elif xdtype == types.float32:
                xv = builder.fpext(xv, dvec)  # exact
            builder.store(builder.fadd(builder.load(acc), builder.fmul(wv, xv)), acc)  # no contraction flags: no FMA
        total = builder.load(acc)
        lanes = [builder.extract_element(total, ir.Constant(ir.IntType(32), j)) for j in range(LANES)]
        return context.make_tuple(builder, signature.return_type, lanes)

    return sig, codegen


def _lane_sums_scalar(w, X, r):
    """The eight lane sums of ``w`` and row ``r`` of ``X`` over the whole blocks, one element at
    a time (any array)."""
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    for k in range(w.shape[0] // LANES):
        i = k * LANES
        s0 += w[i] * X[r, i]
        s1 += w[i + 1] * X[r, i + 1]
        s2 += w[i + 2] * X[r, i + 2]
        s3 += w[i + 3] * X[r, i + 3]
        s4 += w[i + 4] * X[r, i + 4]
        s5 += w[i + 5] * X[r, i + 5]
        s6 += w[i + 6] * X[r, i + 6]
        s7 += w[i + 7] * X[r, i + 7]
    return s0, s1, s2, s3, s4, s5, s6, s7


def lane_sums(w, X, r):
    """Lane sums ``l_j = Σ_k w[8k+j]·X[r, 8k+j]`` over the whole blocks ``8k + 8 ≤ len(w)``."""
    return _lane_sums_scalar(w, X, r)


@overload(lane_sums)
def _lane_sums_overload(w, X, r):
    if _simd_ok(w, X):
        return lambda w, X, r: _lane_sums_simd(w, X, r)
    return _lane_sums_scalar


@numba.njit(cache=True, inline="always")
def row_dot(w, X, r):
    """``⟨w, X[r]⟩`` in the fixed blocked order of the module docstring (``len(w)`` columns).
    Takes the matrix and a row index, not the row: no array view (and no reference count)
    is made per round, and it is inlined into the per-round loops."""
    n = w.shape[0]
    s0, s1, s2, s3, s4, s5, s6, s7 = lane_sums(w, X, r)
    i = n - n % LANES
    m = n - i  # the tail: one more term in lanes 0 … m−1
    if m > 0:
        s0 += w[i] * X[r, i]
    if m > 1:
        s1 += w[i + 1] * X[r, i + 1]
    if m > 2:
        s2 += w[i + 2] * X[r, i + 2]
    if m > 3:
        s3 += w[i + 3] * X[r, i + 3]
    if m > 4:
        s4 += w[i + 4] * X[r, i + 4]
    if m > 5:
        s5 += w[i + 5] * X[r, i + 5]
    if m > 6:
        s6 += w[i + 6] * X[r, i + 6]
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
