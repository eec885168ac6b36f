"""The Hedge kernel's weights pass over a block of four rounds, as one ``<4 x double>`` loop
(numba intrinsic; lane r = round r of the block).

For expert ``i = 0, 1, …, k−1`` in turn, with ``c_r = codes[row + r, i]`` and ``L_i`` the
cumulative loss before the block, lane r computes round r's weight and running sums:

- ``w_r = table[min(L_i + c_0 + … + c_{r−1} − m_r, len(table) − 1)]`` (``m_r``: round r's
  leader, so the lag is ≥ 0);
- ``z_r ← z_r + w_r`` (the running sum, stored as ``cum[i, r]``: round r's unnormalised CDF);
- ``d_r ← d_r + w_r · c_r`` (``⟨w, ℓ⟩`` in code units);

then ``L_i ← L_i + c_0 + c_1 + c_2 + c_3``. Each lane is one round's sums in expert order,
each product and sum rounded on its own (no fused multiply–add), so every number is the one
the scalar round-by-round loop computes, bit for bit — the vector only runs the four
rounds' chains side by side. The codes' prefix sums are formed in 16-bit fields of one
64-bit word (``c_0 | c_1 << 16 | c_2 << 32 | c_3 << 48`` times ``1 + 2^16 + 2^32 + 2^48``:
sums ≤ 4·255 never carry into the next field), widened to four 64-bit lanes in one step.
numba leaves the superword vectoriser off, so written with scalars the four chains ran as
twelve scalar streams (issue: Hedge ≥ 1 G entries/s).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

#: Rounds per block: the vector's lanes.
ROUNDS = 8
_I16, _I32, _I64 = ir.IntType(16), ir.IntType(32), ir.IntType(64)
_F64 = ir.DoubleType()
_VD = ir.VectorType(_F64, ROUNDS)
_VL = ir.VectorType(_I64, ROUNDS)
_VB = ir.VectorType(ir.IntType(1), ROUNDS)
_VP = ir.VectorType(_F64.as_pointer(), ROUNDS)
_EXCL = ir.Constant(_I64, 0x0001000100010000)  # word · _EXCL: fields [0, c0, c0 + c1, c0 + c1 + c2]
_INCL = ir.Constant(_I64, 0x0001000100010001)  # word · _INCL: top field c0 + c1 + c2 + c3


def _c_array(a, ndim, dtype) -> bool:
    return isinstance(a, types.Array) and a.ndim == ndim and a.layout == "C" and a.dtype == dtype


@intrinsic
def block_weights(typingctx, codes, row, L, table, leaders, cum, wbuf, zd):
    """The weights pass of the module docstring over rounds ``row … row + 7`` of the C-order
    (T, k) uint8 ``codes``: ``leaders`` int64[≥ 8] (the rounds' leaders' cumulative losses),
    ``L`` int64[k] (updated in place), ``cum`` float64 (k, 8) (the running sums), ``wbuf``
    float64 (k, 8) (the weights) or ``None``, ``zd`` float64[16] (out: ``z_0…z_7, d_0…d_7``)."""
    checks = (("codes", codes, 2, types.uint8), ("L", L, 1, types.int64), ("table", table, 1, types.float64),
              ("leaders", leaders, 1, types.int64), ("cum", cum, 2, types.float64), ("zd", zd, 1, types.float64))
    for name, arr, ndim, dtype in checks:
        if not _c_array(arr, ndim, dtype):
            raise TypingError(f"block_weights: {name} must be a C-contiguous {ndim}-d {dtype} array, got {arr}")
    keep_w = not isinstance(wbuf, (types.NoneType, types.Omitted))
    if keep_w and not _c_array(wbuf, 2, types.float64):
        raise TypingError(f"block_weights: wbuf must be None or a C-contiguous 2-d float64 array, got {wbuf}")

    def codegen(context, builder, signature, args):
        def array(j):
            return context.make_array(signature.args[j])(context, builder, args[j])

        ca, La, ta, ma, cuma, zda = array(0), array(2), array(3), array(4), array(5), array(7)
        wa = array(6) if keep_w else None
        k = builder.extract_value(ca.shape, 1)
        row = context.cast(builder, args[1], signature.args[1], types.intp)
        base = builder.gep(ca.data, [builder.mul(row, k)])
        rows = [builder.gep(base, [builder.mul(ir.Constant(k.type, r), k)]) for r in range(ROUNDS)]
        last = _splat(builder, builder.sub(builder.extract_value(ta.shape, 0), ir.Constant(k.type, 1)), ROUNDS)
        lead = builder.load(builder.bitcast(ma.data, _VL.as_pointer()), align=8)
        tbase = _splat(builder, builder.ptrtoint(ta.data, _I64), ROUNDS)
        gather = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(_VD, [_VP, _I32, _VB, _VD]), f"llvm.masked.gather.v{ROUNDS}f64.v{ROUNDS}p0")
        z = cgutils.alloca_once_value(builder, ir.Constant(_VD, None))  # +0.0 in every lane
        d = cgutils.alloca_once_value(builder, ir.Constant(_VD, None))
        with cgutils.for_range(builder, k) as loop:
            i = loop.index
            Lp = builder.gep(La.data, [i])
            Li = builder.load(Lp)
            # rounds 0-3 and 4-7 as 16-bit fields of two words
            lo, hi = (_pack(builder, [builder.load(builder.gep(rows[r], [i])) for r in range(h, h + 4)]) for h in (0, 4))
            lo_total = builder.lshr(builder.mul(lo, _INCL), ir.Constant(_I64, 48))
            hi_incl = builder.mul(hi, _INCL)
            total = builder.add(lo_total, builder.lshr(hi_incl, ir.Constant(_I64, 48)))
            prefix_hi = builder.add(builder.mul(hi, _EXCL), builder.mul(lo_total, _INCL))  # fields ≤ 7·255
            prefix = _widen(builder, builder.mul(lo, _EXCL), prefix_hi)
            cv = builder.sitofp(_widen(builder, lo, hi), _VD)  # exact
            lag = builder.sub(builder.add(_splat(builder, Li, ROUNDS), prefix), lead)  # ≥ 0
            idx = builder.select(builder.icmp_unsigned("<", lag, last), lag, last)
            ptrs = builder.inttoptr(builder.add(tbase, builder.shl(idx, ir.Constant(_VL, [3] * ROUNDS))), _VP)
            w = builder.call(gather, [ptrs, ir.Constant(_I32, 8), ir.Constant(_VB, [1] * ROUNDS), ir.Constant(_VD, None)])
            zv = builder.fadd(builder.load(z), w)  # no contraction flags: no FMA
            builder.store(zv, z)
            builder.store(builder.fadd(builder.load(d), builder.fmul(w, cv)), d)
            at = builder.mul(i, ir.Constant(i.type, ROUNDS))
            builder.store(zv, builder.bitcast(builder.gep(cuma.data, [at]), _VD.as_pointer()), align=8)
            if keep_w:
                builder.store(w, builder.bitcast(builder.gep(wa.data, [at]), _VD.as_pointer()), align=8)
            builder.store(builder.add(Li, total), Lp)
        builder.store(builder.load(z), builder.bitcast(zda.data, _VD.as_pointer()), align=8)
        builder.store(builder.load(d), builder.bitcast(builder.gep(zda.data, [ir.Constant(_I64, ROUNDS)]), _VD.as_pointer()), align=8)
        return context.get_dummy_value()

    return types.none(codes, row, L, table, leaders, cum, wbuf, zd), codegen


def _pack(builder, bytes4):
    """Four uint8 values as the 16-bit fields of one 64-bit word (the first lowest)."""
    word = builder.zext(bytes4[0], _I64)
    for r in range(1, 4):
        word = builder.or_(word, builder.shl(builder.zext(bytes4[r], _I64), ir.Constant(_I64, 16 * r)))
    return word


def _widen(builder, lo, hi):
    """The eight 16-bit fields of the words ``lo``, ``hi`` as ``<8 x i64>``."""
    pair = builder.insert_element(builder.insert_element(ir.Constant(ir.VectorType(_I64, 2), None), lo, ir.Constant(_I32, 0)),
                                  hi, ir.Constant(_I32, 1))
    return builder.zext(builder.bitcast(pair, ir.VectorType(_I16, ROUNDS)), _VL)


def _splat(builder, value, lanes):
    """``<lanes x T>`` with every lane ``value``."""
    vec = ir.VectorType(value.type, lanes)
    first = builder.insert_element(ir.Constant(vec, None), value, ir.Constant(_I32, 0))
    return builder.shuffle_vector(first, ir.Constant(vec, None), ir.Constant(ir.VectorType(_I32, lanes), [0] * lanes))
