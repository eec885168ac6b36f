"""The blocked dot products and running sums of dp_gd's gradient pass, as 4-wide vector
operations (numba intrinsics written in LLVM IR).

The four-lane dot ``lane_dot(a, b, d)`` — ``Σ_{k<d} a_k b_k`` summed in this order, whatever
the machine:

- lane ``l ∈ {0, 1, 2, 3}`` accumulates ``a_k b_k`` for ``k ≡ l (mod 4)``, ``k < 4⌊d/4⌋``,
  from 0.0 in increasing ``k``;
- the remaining ``k`` (``d mod 4`` of them) are added to lane 0 in increasing ``k``;
- the total is ``(lane₀ + lane₁) + (lane₂ + lane₃)``.

Each product and each sum is rounded separately (no fused multiply-add), so the result is
the same bit for bit as the scalar loop with four interleaved partial sums that
:func:`dpbench.learners.logistic_common.full_batch_clipped_gradient_sum` used before. numba
compiles such a loop to scalar instructions (its LLVM superword vectoriser is off by default
and the four partial sums are not a loop it vectorises); here the four lanes are one
``<4 x double>`` multiply and add per step.

The blocked forms work on ``b`` consecutive rows of a C-contiguous ``(n, d)`` matrix ``X``
from row ``i0`` and keep each row's, each coordinate's order of operations, so their results
are the same bits as the row-at-a-time loops they replace; they only change which independent
chains of additions run side by side (one chain of 4-wide additions waits ~4 cycles per
step; four chains keep the adder busy):

- ``block_dots(a, X, i0, b, m)``: ``m[j] = lane_dot(a, X[i0 + j], d)`` for ``j < b``, four
  rows at a time (``a`` loaded once per step for the four);
- ``block_axpy(acc, c, X, i0, b)``: ``acc[k] ← (…((acc[k] + c₀X[i0, k]) + c₁X[i0+1, k]) …)
  + c_{b−1}X[i0+b−1, k]`` for every ``k < d``: the running sum over rows in row order, with
  sixteen coordinates (four vectors) held in registers across the ``b`` rows.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

_F64 = ir.DoubleType()
_V4 = ir.VectorType(_F64, 4)
_I32 = ir.IntType(32)
_ZERO4 = ir.Constant(_V4, [0.0] * 4)
#: rows whose dots :func:`block_dots` computes side by side
_DOT_ROWS = 4
#: 4-wide vectors of coordinates :func:`block_axpy` keeps in registers across the rows
_AXPY_VECTORS = 4


def _check_vector(who, name, arr):
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.dtype == types.float64 and arr.layout == "C"):
        raise TypingError(f"{who}: {name} must be a contiguous 1-D float64 array, got {arr}")


def _check_matrix(who, arr):
    if not (isinstance(arr, types.Array) and arr.ndim == 2 and arr.dtype == types.float64 and arr.layout == "C"):
        raise TypingError(f"{who}: X must be a C-contiguous 2-D float64 array, got {arr}")


def _check_integers(who, **ints):
    for name, value in ints.items():
        if not isinstance(value, types.Integer):
            raise TypingError(f"{who}: {name} must be an integer, got {value}")


def _vload(builder, ptr, offset):
    return builder.load(builder.bitcast(builder.gep(ptr, [offset]), _V4.as_pointer()), align=8)


def _vstore(builder, value, ptr, offset):
    builder.store(value, builder.bitcast(builder.gep(ptr, [offset]), _V4.as_pointer()), align=8)


def _const(intp, value):
    return ir.Constant(intp, value)


def _lane_dots(builder, pa, row_pointers, n):
    """The four-lane dots of ``a`` (``pa``) with each row (its first element's pointer) over
    ``n`` coordinates, the rows' lanes advanced together: a list of float64 values."""
    intp = n.type
    full = builder.and_(n, _const(intp, -4))  # 4⌊d/4⌋
    lanes = [cgutils.alloca_once_value(builder, _ZERO4) for _ in row_pointers]
    with cgutils.for_range_slice(builder, _const(intp, 0), full, _const(intp, 4), intp=intp) as (k, _):
        va = _vload(builder, pa, k)
        for acc, px in zip(lanes, row_pointers):
            builder.store(builder.fadd(builder.load(acc), builder.fmul(va, _vload(builder, px, k))), acc)
    totals = []
    for acc, px in zip(lanes, row_pointers):
        total = builder.load(acc)
        lane = [builder.extract_element(total, ir.Constant(_I32, j)) for j in range(4)]
        first = cgutils.alloca_once_value(builder, lane[0])
        with cgutils.for_range_slice(builder, full, n, _const(intp, 1), intp=intp) as (k, _):
            product = builder.fmul(builder.load(builder.gep(pa, [k])), builder.load(builder.gep(px, [k])))
            builder.store(builder.fadd(builder.load(first), product), first)
        totals.append(builder.fadd(builder.fadd(builder.load(first), lane[1]), builder.fadd(lane[2], lane[3])))
    return totals


def _rows(context, builder, X_ty, X):
    """``(data pointer, d)`` of a C-contiguous 2-D array."""
    arr = context.make_array(X_ty)(context, builder, X)
    return arr.data, cgutils.unpack_tuple(builder, arr.shape, 2)[1]


@intrinsic
def block_dots(typingctx, a, X, i0, b, m):
    """``m[j] = lane_dot(a, X[i0 + j], d)`` for ``j < b`` (``X`` is ``(n, d)``, C-contiguous,
    rows ``i0 … i0 + b − 1`` exist, ``a`` has ``d`` and ``m`` at least ``b`` elements: not
    checked), four rows side by side."""
    _check_vector("block_dots", "a", a)
    _check_matrix("block_dots", X)
    _check_vector("block_dots", "m", m)
    _check_integers("block_dots", i0=i0, b=b)

    def codegen(context, builder, signature, args):
        a_ty, X_ty, i0_ty, b_ty, m_ty = signature.args
        pa = context.make_array(a_ty)(context, builder, args[0]).data
        px, d = _rows(context, builder, X_ty, args[1])
        pm = context.make_array(m_ty)(context, builder, args[4]).data
        intp = d.type
        i0 = context.cast(builder, args[2], i0_ty, types.intp)
        b = context.cast(builder, args[3], b_ty, types.intp)

        def rows(j0, count):
            pointers = [builder.gep(px, [builder.mul(builder.add(i0, builder.add(j0, _const(intp, r))), d)]) for r in range(count)]
            for r, value in enumerate(_lane_dots(builder, pa, pointers, d)):
                builder.store(value, builder.gep(pm, [builder.add(j0, _const(intp, r))]))

        groups = builder.and_(b, _const(intp, -_DOT_ROWS))
        with cgutils.for_range_slice(builder, _const(intp, 0), groups, _const(intp, _DOT_ROWS), intp=intp) as (j0, _):
            rows(j0, _DOT_ROWS)
        with cgutils.for_range_slice(builder, groups, b, _const(intp, 1), intp=intp) as (j0, _):
            rows(j0, 1)
        return context.get_dummy_value()

    return types.void(a, X, i0, b, m), codegen


@intrinsic
def block_axpy(typingctx, acc, c, X, i0, b):
    """``acc[k] += c[j]·X[i0 + j, k]`` for ``j = 0, 1, …, b − 1`` in this order, every
    ``k < d`` (``X`` is ``(n, d)``, C-contiguous; ``acc`` has ``d`` and ``c`` at least ``b``
    elements: not checked); sixteen coordinates in registers across the rows."""
    _check_vector("block_axpy", "acc", acc)
    _check_vector("block_axpy", "c", c)
    _check_matrix("block_axpy", X)
    _check_integers("block_axpy", i0=i0, b=b)

    def codegen(context, builder, signature, args):
        acc_ty, c_ty, X_ty, i0_ty, b_ty = signature.args
        pacc = context.make_array(acc_ty)(context, builder, args[0]).data
        pc = context.make_array(c_ty)(context, builder, args[1]).data
        px, d = _rows(context, builder, X_ty, args[2])
        intp = d.type
        i0 = context.cast(builder, args[3], i0_ty, types.intp)
        b = context.cast(builder, args[4], b_ty, types.intp)
        base = builder.mul(i0, d)

        def coordinates(k0, vectors, scalar=False):
            # acc[k0 : k0 + 4·vectors] (or acc[k0] alone), summed over the b rows
            offsets = [builder.add(k0, _const(intp, 4 * q)) for q in range(vectors)]
            if scalar:
                sums = [cgutils.alloca_once_value(builder, builder.load(builder.gep(pacc, [k0])))]
            else:
                sums = [cgutils.alloca_once_value(builder, _vload(builder, pacc, off)) for off in offsets]
            with cgutils.for_range(builder, b, intp=intp) as loop:
                cj = builder.load(builder.gep(pc, [loop.index]))
                row = builder.add(base, builder.mul(loop.index, d))
                if scalar:
                    x = builder.load(builder.gep(px, [builder.add(row, k0)]))
                    builder.store(builder.fadd(builder.load(sums[0]), builder.fmul(cj, x)), sums[0])
                else:
                    cv = builder.insert_element(ir.Constant(_V4, ir.Undefined), cj, ir.Constant(_I32, 0))
                    cv = builder.shuffle_vector(cv, ir.Constant(_V4, ir.Undefined), ir.Constant(ir.VectorType(_I32, 4), [0] * 4))
                    for total, off in zip(sums, offsets):
                        builder.store(builder.fadd(builder.load(total), builder.fmul(cv, _vload(builder, px, builder.add(row, off)))), total)
            if scalar:
                builder.store(builder.load(sums[0]), builder.gep(pacc, [k0]))
            else:
                for total, off in zip(sums, offsets):
                    _vstore(builder, builder.load(total), pacc, off)

        wide = 4 * _AXPY_VECTORS
        big = builder.mul(builder.udiv(d, _const(intp, wide)), _const(intp, wide))
        full = builder.and_(d, _const(intp, -4))
        with cgutils.for_range_slice(builder, _const(intp, 0), big, _const(intp, wide), intp=intp) as (k0, _):
            coordinates(k0, _AXPY_VECTORS)
        with cgutils.for_range_slice(builder, big, full, _const(intp, 4), intp=intp) as (k0, _):
            coordinates(k0, 1)
        with cgutils.for_range_slice(builder, full, d, _const(intp, 1), intp=intp) as (k0, _):
            coordinates(k0, 1, scalar=True)
        return context.get_dummy_value()

    return types.void(acc, c, X, i0, b), codegen
