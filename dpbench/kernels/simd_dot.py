"""The online learners' margin ``⟨w, x⟩`` in a fixed blocked order, compiled to SIMD code.

Order (the same in :func:`row_dot`, the plain loop :func:`_row_dot_scalar` and the Python
reference :func:`dpbench.learners.online.blocked_dot`): coordinate ``i`` is summed into lane
``i mod 8``, each lane left to right starting from ``0.0``; then
``((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7))``. Every product and sum is one IEEE
rounding, never a fused multiply–add, so the value is the same on every machine and in
every implementation (the references must round identically: DP-Winnow's released weights
are multiples of 1/K and Boolean inputs make exact ties ``⟨w, x⟩ = 0`` common, where one
ulp flips a prediction).

Why a hand-written kernel (LLVM IR through :func:`numba.extending.intrinsic`,
:func:`row_dot_intrinsic`):

- the eight lanes are independent sequential sums, i.e. exactly one
  ``acc ← acc + w[8k:8k+8] · x[8k:8k+8]`` on an 8-wide vector per block, which changes no
  rounding. LLVM's loop vectoriser cannot find this (it would have to reassociate each
  lane's sum) and numba leaves the SLP vectoriser off, so written with scalars the loop runs
  one element at a time with a scalar int→float conversion each (issue 22: 0.52× a
  single-thread float64 ``X @ w``);
- the plain loop, inlined into the per-round kernels, kept a reference-count increment and
  decrement of ``w`` and ``X`` per round while its tail was a run of ``if`` blocks (they
  defeated numba's reference-count pruning: ~10 ns a round whatever N); with the tail's terms
  written as conditional expressions it keeps none, and is still slower than the intrinsic at
  every N of the grids (``benchmarks/bench_intrinsics.py`` prints the ratio). The intrinsic is
  emitted inline with no reference counting;
- short rows (``N ≤`` :data:`SHORT_INT` for integer, :data:`SHORT_FLOAT` for float inputs)
  take a scalar path inside the intrinsic: at N = 2 the vector path's masked tail and eight-lane
  combination cost about three times the two products (``benchmarks/bench_intrinsics.py``
  prints the plain loop, the vector path and the dispatched kernel at the grids' N).

Arrays the intrinsic does not handle (non-contiguous, other dtypes) take the plain loop.
"""

from __future__ import annotations

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


#: rows of at most this many coordinates take the scalar path of :func:`_row_dot_simd`, for
#: integer and for float inputs (``benchmarks/bench_intrinsics.py`` prints the scalar and the
#: vector path's times at N = 1 … 9: on the AMD EPYC (AVX-512) these were the largest N where
#: the scalar path was faster; each int8 input costs a scalar int→float conversion)
SHORT_INT, SHORT_FLOAT = 5, 8


def row_dot_intrinsic(short_int: int, short_float: int):
    """The intrinsic ``⟨w, X[r]⟩`` in the blocked order (``n = len(w)`` columns; the caller
    checks the shapes), emitted inline (no call, no reference counting per round):

    - ``n ≤ short`` (``short_int`` or ``short_float`` by X's dtype, at most 8): scalar, lane ``i < n`` is ``0.0 + w_i x_i`` (one product, one add), the
      others ``+0.0``, then the pairwise combination (constant lanes fold away);
    - otherwise one ``<8 x double>`` accumulator over the ``n // 8`` whole blocks, the tail's
      products added to lanes ``0 … n mod 8 − 1`` (the other lanes add +0.0, which changes
      nothing: a lane that starts at +0.0 is never −0.0; nothing past X is read), then the
      pairwise combination.

    Both give the same bits (the same products and sums in the same order). ``short = 0``:
    the vector path always (the benchmark's baseline)."""
    if not (0 <= short_int <= LANES and 0 <= short_float <= LANES):
        raise ValueError(f"the scalar path covers at most {LANES} coordinates, got {short_int}, {short_float}")

    @intrinsic
    def _row_dot(typingctx, w, X, r):
        if not (_simd_ok(w, X) and isinstance(r, types.Integer)):
            return None
        sig = types.float64(w, X, r)

        def codegen(context, builder, signature, args):
            wa = context.make_array(signature.args[0])(context, builder, args[0])
            xa = context.make_array(signature.args[1])(context, builder, args[1])
            n = builder.extract_value(wa.shape, 0)
            row = context.cast(builder, args[2], signature.args[2], types.intp)
            xrow = builder.gep(xa.data, [builder.mul(row, builder.extract_value(xa.shape, 1))])  # C order: row r starts at r·ncols
            short = short_int if signature.args[1].dtype in _INTS else short_float
            if short <= 0:
                return _vector_dot(context, builder, signature.args[1].dtype, wa, xa, n, row, xrow)
            with builder.if_else(builder.icmp_signed("<=", n, ir.Constant(n.type, short))) as (scalar, vector):
                with scalar:
                    by_lanes = _scalar_dot(context, builder, signature.args[1].dtype, wa.data, xrow, n, short)
                    scalar_block = builder.block
                with vector:
                    by_vector = _vector_dot(context, builder, signature.args[1].dtype, wa, xa, n, row, xrow)
                    vector_block = builder.block
            total = builder.phi(by_lanes.type)
            total.add_incoming(by_lanes, scalar_block)
            total.add_incoming(by_vector, vector_block)
            return total

        return sig, codegen

    return _row_dot


def _widen(builder, xdtype, v, to):
    """``v`` (X's dtype, scalar or vector) as float64 (``to``): exact for every dtype handled."""
    if xdtype in _INTS:
        return builder.sitofp(v, to)  # exact: |x| < 2^53
    if xdtype == types.float32:
        return builder.fpext(v, to)  # exact
    return v


def _combine(builder, lane):
    """``((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7))``."""
    add = builder.fadd
    return add(add(add(lane[0], lane[1]), add(lane[2], lane[3])), add(add(lane[4], lane[5]), add(lane[6], lane[7])))


def _scalar_dot(context, builder, xdtype, wdata, xrow, n, short):
    """Lanes ``i < min(n, short)`` hold ``0.0 + w_i x_i``, the rest ``+0.0`` (``n ≤ short ≤ 8``)."""
    f64 = ir.DoubleType()
    zero = ir.Constant(f64, 0.0)
    lane = [zero] * LANES
    for i in range(short):
        slot = cgutils.alloca_once_value(builder, zero)
        with builder.if_then(builder.icmp_signed(">", n, ir.Constant(n.type, i)), likely=True):
            idx = ir.Constant(n.type, i)
            x = _widen(builder, xdtype, builder.load(builder.gep(xrow, [idx])), f64)
            builder.store(builder.fadd(zero, builder.fmul(builder.load(builder.gep(wdata, [idx])), x)), slot)
        lane[i] = builder.load(slot)
    return _combine(builder, lane)


def _vector_dot(context, builder, xdtype, wa, xa, n, row, xrow):
    """The ``<8 x double>`` loop and masked tail (see :func:`row_dot_intrinsic`)."""
    i32 = ir.IntType(32)
    dvec = ir.VectorType(ir.DoubleType(), LANES)
    xvec = ir.VectorType(context.get_data_type(xdtype), LANES)
    acc = cgutils.alloca_once_value(builder, ir.Constant(dvec, None))  # +0.0 in every lane
    blocks = builder.ashr(n, ir.Constant(n.type, 3))
    with cgutils.for_range(builder, blocks) as loop:
        start = builder.mul(loop.index, ir.Constant(n.type, LANES))
        wv = builder.load(builder.bitcast(builder.gep(wa.data, [start]), dvec.as_pointer()), align=8)
        xv = builder.load(builder.bitcast(builder.gep(xrow, [start]), xvec.as_pointer()), align=1)
        builder.store(builder.fadd(builder.load(acc), builder.fmul(wv, _widen(builder, xdtype, xv, dvec))), acc)  # no contraction flags: no FMA
    # the tail: lanes j < n mod 8 get one more product
    tail_start = builder.mul(blocks, ir.Constant(n.type, LANES))
    m = builder.trunc(builder.sub(n, tail_start), i32)
    mask = builder.icmp_signed("<", ir.Constant(ir.VectorType(i32, LANES), list(range(LANES))), _splat(builder, m, LANES))
    wt = _masked_load(builder, builder.gep(wa.data, [tail_start]), dvec, mask, 8)
    # x's tail: a plain 8-wide load with the lanes ≥ n mod 8 zeroed while it stays inside
    # X (every row but the last: AVX2 has no masked byte load), else a masked load
    xptr = builder.gep(xrow, [tail_start])
    xsize = builder.mul(builder.extract_value(xa.shape, 0), builder.extract_value(xa.shape, 1))
    xend = builder.add(builder.mul(row, builder.extract_value(xa.shape, 1)), builder.add(tail_start, ir.Constant(n.type, LANES)))
    with builder.if_else(builder.icmp_signed("<=", xend, xsize), likely=True) as (inside, edge):
        with inside:
            plain = builder.select(mask, builder.load(builder.bitcast(xptr, xvec.as_pointer()), align=1), ir.Constant(xvec, None))
            inside_block = builder.block
        with edge:
            masked = _masked_load(builder, xptr, xvec, mask, max(1, xdtype.bitwidth // 8))
            edge_block = builder.block
    xt = builder.phi(xvec)
    xt.add_incoming(plain, inside_block)
    xt.add_incoming(masked, edge_block)
    total = builder.fadd(builder.load(acc), builder.fmul(wt, _widen(builder, xdtype, xt, dvec)))
    return _combine(builder, [builder.extract_element(total, ir.Constant(i32, j)) for j in range(LANES)])


_row_dot_simd = row_dot_intrinsic(SHORT_INT, SHORT_FLOAT)


def _splat(builder, value, lanes):
    """``<lanes x T>`` with every lane ``value``."""
    vec = ir.VectorType(value.type, lanes)
    first = builder.insert_element(ir.Constant(vec, None), value, ir.Constant(ir.IntType(32), 0))
    return builder.shuffle_vector(first, ir.Constant(vec, None), ir.Constant(ir.VectorType(ir.IntType(32), lanes), [0] * lanes))


def _masked_load(builder, ptr, vec, mask, align):
    """``llvm.masked.load``: lanes where ``mask`` is set read ``ptr[j]``, the others are 0
    (nothing is read past the row)."""
    fnty = ir.FunctionType(vec, [ir.PointerType(vec), ir.IntType(32), mask.type, vec])
    name = f"llvm.masked.load.v{vec.count}{'f64' if isinstance(vec.element, ir.DoubleType) else ('f32' if isinstance(vec.element, ir.FloatType) else 'i' + str(vec.element.width))}.p0"
    fn = cgutils.get_or_insert_function(builder.module, fnty, name)
    return builder.call(fn, [builder.bitcast(ptr, ir.PointerType(vec)), ir.Constant(ir.IntType(32), align), mask, ir.Constant(vec, None)])


def _row_dot_scalar(w, X, r):
    """``⟨w, X[r]⟩`` in the blocked order, one element at a time (any array)."""
    n = w.shape[0]
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    for k in range(n // LANES):
        i = k * LANES
        s0 += w[i] * X[r, i]
        s1 += w[i + 1] * X[r, i + 1]
        s2 += w[i + 2] * X[r, i + 2]
        s3 += w[i + 3] * X[r, i + 3]
        s4 += w[i + 4] * X[r, i + 4]
        s5 += w[i + 5] * X[r, i + 5]
        s6 += w[i + 6] * X[r, i + 6]
        s7 += w[i + 7] * X[r, i + 7]
    i = n - n % LANES
    m = n - i  # the tail: one more term in lanes 0 … m−1 (+0.0 in the others: no lane is ever −0.0)
    s0 += w[i] * X[r, i] if m > 0 else 0.0
    s1 += w[i + 1] * X[r, i + 1] if m > 1 else 0.0
    s2 += w[i + 2] * X[r, i + 2] if m > 2 else 0.0
    s3 += w[i + 3] * X[r, i + 3] if m > 3 else 0.0
    s4 += w[i + 4] * X[r, i + 4] if m > 4 else 0.0
    s5 += w[i + 5] * X[r, i + 5] if m > 5 else 0.0
    s6 += w[i + 6] * X[r, i + 6] if m > 6 else 0.0
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


def row_dot(w, X, r):
    """``⟨w, X[r]⟩`` in the fixed blocked order of the module docstring (``len(w)`` columns).
    Takes the matrix and a row index, not the row: no array view is made per round."""
    return _row_dot_scalar(w, X, r)


@overload(row_dot, inline="always")
def _row_dot_overload(w, X, r):
    if _simd_ok(w, X):
        return lambda w, X, r: _row_dot_simd(w, X, r)
    return _row_dot_scalar
