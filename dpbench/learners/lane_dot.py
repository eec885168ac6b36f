"""A dot product in four fixed lanes, as one 4-wide vector operation per step (numba intrinsic).

``lane_dot(a, b, d)`` returns ``Σ_{k<d} a_k b_k`` summed in this order, whatever the machine:

- lane ``l ∈ {0, 1, 2, 3}`` accumulates ``a_k b_k`` for ``k ≡ l (mod 4)``, ``k < 4⌊d/4⌋``,
  from 0.0 in increasing ``k``;
- the remaining ``k`` (``d mod 4`` of them) are added to lane 0 in increasing ``k``;
- the total is ``(lane₀ + lane₁) + (lane₂ + lane₃)``.

Each product and each sum is rounded separately (no fused multiply-add), so the result is
the same bit for bit as the scalar loop with four interleaved partial sums that
:func:`dpbench.learners.logistic_common.full_batch_clipped_gradient_sum` used before. numba
compiles such a loop to scalar instructions (its LLVM superword vectoriser is off by default
and the four partial sums are not a loop it vectorises); here the four lanes are one
``<4 x double>`` multiply and add per step, written in LLVM IR.
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


@intrinsic
def lane_dot(typingctx, a, b, d):
    """``Σ_{k<d} a[k] b[k]`` in the fixed four-lane order of the module docstring; ``a`` and
    ``b`` are contiguous 1-D float64 arrays with at least ``d`` elements (not checked)."""
    for name, arr in (("a", a), ("b", b)):
        if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.dtype == types.float64 and arr.layout == "C"):
            raise TypingError(f"lane_dot: {name} must be a contiguous 1-D float64 array, got {arr}")
    if not isinstance(d, types.Integer):
        raise TypingError(f"lane_dot: d must be an integer, got {d}")

    def codegen(context, builder, signature, args):
        a_ty, b_ty, d_ty = signature.args
        pa = context.make_array(a_ty)(context, builder, args[0]).data
        pb = context.make_array(b_ty)(context, builder, args[1]).data
        n = context.cast(builder, args[2], d_ty, types.intp)
        intp = n.type
        full = builder.and_(n, ir.Constant(intp, -4))  # 4⌊d/4⌋
        lanes = cgutils.alloca_once_value(builder, ir.Constant(_V4, [0.0] * 4))
        with cgutils.for_range_slice(builder, ir.Constant(intp, 0), full, ir.Constant(intp, 4), intp=intp) as (k, _):
            va = builder.load(builder.bitcast(builder.gep(pa, [k]), _V4.as_pointer()), align=8)
            vb = builder.load(builder.bitcast(builder.gep(pb, [k]), _V4.as_pointer()), align=8)
            builder.store(builder.fadd(builder.load(lanes), builder.fmul(va, vb)), lanes)
        total = builder.load(lanes)
        lane = [builder.extract_element(total, ir.Constant(_I32, j)) for j in range(4)]
        first = cgutils.alloca_once_value(builder, lane[0])
        with cgutils.for_range_slice(builder, full, n, ir.Constant(intp, 1), intp=intp) as (k, _):
            product = builder.fmul(builder.load(builder.gep(pa, [k])), builder.load(builder.gep(pb, [k])))
            builder.store(builder.fadd(builder.load(first), product), first)
        return builder.fadd(builder.fadd(builder.load(first), lane[1]), builder.fadd(lane[2], lane[3]))

    return types.float64(a, b, d), codegen
