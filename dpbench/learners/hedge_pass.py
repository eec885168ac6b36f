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

_I16, _I32, _I64 = ir.IntType(16), ir.IntType(32), ir.IntType(64)
_F64 = ir.DoubleType()
_V4D = ir.VectorType(_F64, 4)
_V4L = ir.VectorType(_I64, 4)
_V4S = ir.VectorType(_I16, 4)


def _c_array(a, ndim, dtype) -> bool:
    return isinstance(a, types.Array) and a.ndim == ndim and a.layout == "C" and a.dtype == dtype


@intrinsic
def block_weights(typingctx, codes, row, L, table, leaders, cum, wbuf, zd):
    """The weights pass of the module docstring over rounds ``row … row + 3`` of the C-order
    (T, k) uint8 ``codes``: ``leaders`` int64[4] (the rounds' leaders' cumulative losses),
    ``L`` int64[k] (updated in place), ``cum`` float64 (k, 4) (the running sums), ``wbuf``
    float64 (k, 4) (the weights) or ``None``, ``zd`` float64[8] (out: ``z_0…z_3, d_0…d_3``)."""
    checks = (("codes", codes, 2, types.uint8), ("L", L, 1, types.int64), ("table", table, 1, types.float64),
              ("leaders", leaders, 1, types.int64), ("cum", cum, 2, types.float64), ("zd", zd, 1, types.float64))
    for name, arr, ndim, dtype in checks:
        if not _c_array(arr, ndim, dtype):
            raise TypingError(f"block_weights: {name} must be a C-contiguous {ndim}-d {dtype} array, got {arr}")
    keep_w = not isinstance(wbuf, (types.NoneType, types.Omitted))
    if keep_w and not _c_array(wbuf, 2, types.float64):
        raise TypingError(f"block_weights: wbuf must be None or a C-contiguous 2-d float64 array, got {wbuf}")

    def codegen(context, builder, signature, args):
        arr = [context.make_array(signature.args[j])(context, builder, args[j]) if j not in (1, 6) or (j == 6 and keep_w) else None
               for j in range(8)]
        ca, La, ta, ma, cuma, wa, zda = arr[0], arr[2], arr[3], arr[4], arr[5], arr[6], arr[7]
        k = builder.extract_value(ca.shape, 1)
        row = context.cast(builder, args[1], signature.args[1], types.intp)
        base = builder.gep(ca.data, [builder.mul(row, k)])
        rows = [builder.gep(base, [builder.mul(ir.Constant(k.type, r), k)]) for r in range(4)]
        last = builder.sub(builder.extract_value(ta.shape, 0), ir.Constant(k.type, 1))
        leads = [builder.load(builder.gep(ma.data, [ir.Constant(_I64, r)])) for r in range(4)]
        z = cgutils.alloca_once_value(builder, ir.Constant(_V4D, None))
        d = cgutils.alloca_once_value(builder, ir.Constant(_V4D, None))
        with cgutils.for_range(builder, k) as loop:
            i = loop.index
            Lp = builder.gep(La.data, [i])
            Li = builder.load(Lp)
            word = ir.Constant(_I64, 0)
            w = ir.Constant(_V4D, None)
            li = Li
            for r in range(4):
                byte = builder.zext(builder.load(builder.gep(rows[r], [i])), _I64)
                word = builder.or_(word, builder.shl(byte, ir.Constant(_I64, 16 * r)) if r else byte)
                lag = builder.sub(li, leads[r])  # ≥ 0
                j = builder.select(builder.icmp_unsigned("<", lag, last), lag, last)
                w = builder.insert_element(w, builder.load(builder.gep(ta.data, [j])), ir.Constant(_I32, r))
                li = builder.add(li, byte)
            cv = builder.sitofp(builder.zext(builder.bitcast(word, _V4S), _V4L), _V4D)  # exact
            zv = builder.fadd(builder.load(z), w)  # no contraction flags: no FMA
            builder.store(zv, z)
            builder.store(builder.fadd(builder.load(d), builder.fmul(w, cv)), d)
            at = builder.mul(i, ir.Constant(i.type, 4))
            builder.store(zv, builder.bitcast(builder.gep(cuma.data, [at]), _V4D.as_pointer()), align=8)
            if keep_w:
                builder.store(w, builder.bitcast(builder.gep(wa.data, [at]), _V4D.as_pointer()), align=8)
            builder.store(li, Lp)
        builder.store(builder.load(z), builder.bitcast(zda.data, _V4D.as_pointer()), align=8)
        builder.store(builder.load(d), builder.bitcast(builder.gep(zda.data, [ir.Constant(_I64, 4)]), _V4D.as_pointer()), align=8)
        return context.get_dummy_value()

    return types.none(codes, row, L, table, leaders, cum, wbuf, zd), codegen


def _splat(builder, value, lanes):
    """``<lanes x T>`` with every lane ``value``."""
    vec = ir.VectorType(value.type, lanes)
    first = builder.insert_element(ir.Constant(vec, None), value, ir.Constant(_I32, 0))
    return builder.shuffle_vector(first, ir.Constant(vec, None), ir.Constant(ir.VectorType(_I32, lanes), [0] * lanes))
