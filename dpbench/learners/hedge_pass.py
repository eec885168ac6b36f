"""The Hedge kernel's passes over a block of eight rounds as vector loops (numba intrinsics
emitting LLVM IR; lane r = round r of the block).

:func:`block_weights`, for expert ``i = 0, 1, …, k−1`` in turn, with ``c_r`` its code in
round r of the block and ``L_i`` its cumulative loss before the block, computes in lane r:

- ``w_r = table[min(L_i + c_0 + … + c_{r−1} − m_r, len(table) − 1)]`` (``m_r``: round r's
  leader, so the lag is ≥ 0; the eight entries read by one gather);
- ``z_r ← z_r + w_r`` (the running sum, stored as ``cum[i, r]``: round r's unnormalised CDF);
- ``d_r ← d_r + w_r · c_r`` (``⟨w, ℓ⟩`` in code units);

then ``L_i ← L_i + c_0 + … + c_7``. Each lane is one round's sums in expert order, each
product and sum rounded on its own (no fused multiply–add), so every number is the one the
scalar round-by-round loop computes, bit for bit — the vector only runs the eight rounds'
chains side by side. The prefix sums of the codes are formed in 16-bit fields (the
expert's eight codes widened to 16 bits are two words; each times ``1 + 2^16 + 2^32 +
2^48``: sums ≤ 8·255 never carry into the next field). Only generic LLVM operations are
used (no x86 intrinsic): a CPU without AVX-512 gets them lowered to what it has. The codes come expert by expert from
:func:`leaders_and_transpose` (pass 1: the leaders' cumulative losses after each round, and
the block transposed 16 experts at a time); :func:`draw_block` runs the eight rounds'
binary searches in lockstep; :func:`add_probabilities` adds ``p_t`` to ``Σ_t p_t``
(``linear_learner``). numba leaves the superword vectoriser off, so written with scalars
the chains ran as scalar streams (issue: Hedge ≥ 1 G entries/s).
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
_VB8 = ir.VectorType(ir.IntType(8), ROUNDS)
_VP = ir.VectorType(_F64.as_pointer(), ROUNDS)
_EXCL = ir.Constant(_I64, 0x0001000100010000)  # word · _EXCL: fields [0, c0, c0 + c1, c0 + c1 + c2]
_INCL = ir.Constant(_I64, 0x0001000100010001)  # word · _INCL: top field c0 + c1 + c2 + c3


def _c_array(a, ndim, dtype) -> bool:
    return isinstance(a, types.Array) and a.ndim == ndim and a.layout == "C" and a.dtype == dtype


@intrinsic
def block_weights(typingctx, bt, L, table, leaders, cum, wbuf, zd):
    """The weights pass of the module docstring over rounds ``row … row + 7`` of the C-order
    (T, k) uint8 ``codes``: ``leaders`` int64[≥ 8] (the rounds' leaders' cumulative losses),
    ``L`` int64[k] (updated in place), ``cum`` float64 (k, 8) (the running sums), ``wbuf``
    float64 (k, 8) (the weights) or ``None``, ``zd`` float64[16] (out: ``z_0…z_7, d_0…d_7``)."""
    checks = (("bt", bt, 2, types.uint8), ("L", L, 1, types.int64), ("table", table, 1, types.float64),
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

        ba, La, ta, ma, cuma, zda = array(0), array(1), array(2), array(3), array(4), array(6)
        wa = array(5) if keep_w else None
        k = builder.extract_value(La.shape, 0)
        words = builder.bitcast(ba.data, _I64.as_pointer())
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
            word = builder.load(builder.gep(words, [i]), align=1)  # the expert's eight codes
            fields = builder.bitcast(builder.zext(builder.bitcast(word, _VB8), ir.VectorType(_I16, ROUNDS)), ir.VectorType(_I64, 2))
            lo, hi = (builder.extract_element(fields, ir.Constant(_I32, h)) for h in (0, 1))
            lo_total = builder.lshr(builder.mul(lo, _INCL), ir.Constant(_I64, 48))
            hi_incl = builder.mul(hi, _INCL)
            total = builder.add(lo_total, builder.lshr(hi_incl, ir.Constant(_I64, 48)))
            prefix_hi = builder.add(builder.mul(hi, _EXCL), builder.mul(lo_total, _INCL))  # fields ≤ 7·255
            prefix = _widen(builder, builder.mul(lo, _EXCL), prefix_hi)
            cv = builder.sitofp(builder.zext(builder.bitcast(word, _VB8), _VL), _VD)  # exact
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

    return types.none(bt, L, table, leaders, cum, wbuf, zd), codegen


@intrinsic
def draw_block(typingctx, cum, targets, actions):
    """Per lane r, the first expert ``i`` with ``cum[i, r] > targets[r]`` (k − 1 if none):
    ``cum`` float64 (k, 8), ``targets`` float64[8], ``actions`` int64[8] (out). The eight
    rounds' branch-free binary searches of :func:`dpbench.learners.experts_common._draw` run
    in lockstep (the same steps, every lane halving the same ``n``), one gather per step, so
    their load latencies overlap; each lane finds the index its own search finds."""
    checks = (("cum", cum, 2, types.float64), ("targets", targets, 1, types.float64), ("actions", actions, 1, types.int64))
    for name, arr, ndim, dtype in checks:
        if not _c_array(arr, ndim, dtype):
            raise TypingError(f"draw_block: {name} must be a C-contiguous {ndim}-d {dtype} array, got {arr}")

    def codegen(context, builder, signature, args):
        cuma, ua, aa = (context.make_array(signature.args[j])(context, builder, args[j]) for j in range(3))
        k = builder.extract_value(cuma.shape, 0)
        gather = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(_VD, [_VP, _I32, _VB, _VD]), f"llvm.masked.gather.v{ROUNDS}f64.v{ROUNDS}p0")
        lane_addr = builder.add(_splat(builder, builder.ptrtoint(cuma.data, _I64), ROUNDS),
                                ir.Constant(_VL, [8 * r for r in range(ROUNDS)]))  # &cum[0, r]
        target = builder.load(builder.bitcast(ua.data, _VD.as_pointer()), align=8)

        def at(row):  # cum[row[r], r] for every lane r
            ptrs = builder.inttoptr(builder.add(lane_addr, builder.shl(row, ir.Constant(_VL, [3 + 3] * ROUNDS))), _VP)
            return builder.call(gather, [ptrs, ir.Constant(_I32, 8), ir.Constant(_VB, [1] * ROUNDS), ir.Constant(_VD, None)])

        base = cgutils.alloca_once_value(builder, ir.Constant(_VL, None))
        n = cgutils.alloca_once_value(builder, k)
        loop = builder.append_basic_block("draw.loop")
        body = builder.append_basic_block("draw.body")
        done = builder.append_basic_block("draw.done")
        builder.branch(loop)
        builder.position_at_end(loop)
        builder.cbranch(builder.icmp_signed(">", builder.load(n), ir.Constant(k.type, 1)), body, done)
        builder.position_at_end(body)
        half = builder.ashr(builder.load(n), ir.Constant(k.type, 1))
        b = builder.load(base)
        below = builder.fcmp_ordered("<=", at(builder.add(b, _splat(builder, builder.sub(half, ir.Constant(k.type, 1)), ROUNDS))), target)
        builder.store(builder.add(b, builder.select(below, _splat(builder, half, ROUNDS), ir.Constant(_VL, None))), base)
        builder.store(builder.sub(builder.load(n), half), n)
        builder.branch(loop)
        builder.position_at_end(done)
        b = builder.load(base)
        b = builder.add(b, builder.zext(builder.fcmp_ordered("<=", at(b), target), _VL))
        top = _splat(builder, builder.sub(k, ir.Constant(k.type, 1)), ROUNDS)
        b = builder.select(builder.icmp_signed("<", b, top), b, top)
        builder.store(b, builder.bitcast(aa.data, _VL.as_pointer()), align=8)
        return context.get_dummy_value()

    return types.none(cum, targets, actions), codegen


@intrinsic
def leaders_and_transpose(typingctx, codes, row, L, leads, bt):
    """Pass (1) of the kernel, 16 experts at a time: ``leads[r + 1] = min_i (L_i + c_0 + … +
    c_r)`` (``c_q = codes[row + q, i]``; the leaders after each round of the block, int64[9])
    and ``bt[i, r] = c_r`` (uint8 (≥ 16⌈k/16⌉, 8), C order: an expert's eight codes are one
    64-bit word), transposed by three rounds of byte, word and dword interleaves. The last
    chunk's loads are masked to the experts < k (nothing past a row is read). ``L``
    (int64[k]) is only read."""
    checks = (("codes", codes, 2, types.uint8), ("L", L, 1, types.int64), ("leads", leads, 1, types.int64), ("bt", bt, 2, types.uint8))
    for name, arr, ndim, dtype in checks:
        if not _c_array(arr, ndim, dtype):
            raise TypingError(f"leaders_and_transpose: {name} must be a C-contiguous {ndim}-d {dtype} array, got {arr}")

    def codegen(context, builder, signature, args):
        ca, La, ma, ba = (context.make_array(signature.args[j])(context, builder, args[j]) for j in (0, 2, 3, 4))
        k = builder.extract_value(ca.shape, 1)
        row = context.cast(builder, args[1], signature.args[1], types.intp)
        base = builder.gep(ca.data, [builder.mul(row, k)])
        v16 = ir.VectorType(ir.IntType(8), 16)
        l16 = ir.VectorType(_I64, 16)
        mins = [cgutils.alloca_once_value(builder, ir.Constant(l16, [2**63 - 1] * 16)) for _ in range(ROUNDS)]
        lanes = ir.Constant(ir.VectorType(_I64, 16), list(range(16)))
        far = ir.Constant(l16, [2**62] * 16)  # the last chunk's lanes past k: never a leader

        def chunk(j, inside):  # experts j … j + 15; inside: the lanes < k (None: all)
            def load(ptr, vec, passthru, align):
                if inside is None:
                    return builder.load(builder.bitcast(ptr, vec.as_pointer()), align=align)
                return _masked_load(builder, ptr, inside, passthru, align)

            x = [load(builder.gep(base, [builder.add(builder.mul(ir.Constant(k.type, r), k), j)]), v16, ir.Constant(v16, None), 1)
                 for r in range(ROUNDS)]
            li = load(builder.gep(La.data, [j]), l16, far, 8)
            for r in range(ROUNDS):
                li = builder.add(li, builder.zext(x[r], l16))
                m = builder.load(mins[r])
                builder.store(builder.select(builder.icmp_signed("<", li, m), li, m), mins[r])
            out = []
            for half in (0, 1):  # experts j … j + 7, then j + 8 … j + 15
                f = [_unpack(builder, x[2 * q], x[2 * q + 1], 8, half) for q in range(4)]
                lo03, hi03 = (_unpack(builder, f[0], f[1], 16, h) for h in (0, 1))  # rounds 0-3
                lo47, hi47 = (_unpack(builder, f[2], f[3], 16, h) for h in (0, 1))  # rounds 4-7
                out += [_unpack(builder, lo03, lo47, 32, 0), _unpack(builder, lo03, lo47, 32, 1),
                        _unpack(builder, hi03, hi47, 32, 0), _unpack(builder, hi03, hi47, 32, 1)]
            dst = builder.gep(ba.data, [builder.shl(j, ir.Constant(k.type, 3))])
            for q, v in enumerate(out):
                builder.store(v, builder.bitcast(builder.gep(dst, [ir.Constant(k.type, 16 * q)]), v16.as_pointer()), align=1)

        full = builder.ashr(k, ir.Constant(k.type, 4))
        with cgutils.for_range(builder, full) as loop:
            chunk(builder.shl(loop.index, ir.Constant(k.type, 4)), None)
        j = builder.shl(full, ir.Constant(k.type, 4))
        with builder.if_then(builder.icmp_signed("<", j, k)):  # the last, partial chunk: masked loads
            chunk(j, builder.icmp_signed("<", lanes, _splat(builder, builder.sub(k, j), 16)))
        smin = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_I64, [l16]), "llvm.vector.reduce.smin.v16i64")
        for r in range(ROUNDS):
            builder.store(builder.call(smin, [builder.load(mins[r])]), builder.gep(ma.data, [ir.Constant(_I64, r + 1)]))
        return context.get_dummy_value()

    return types.none(codes, row, L, leads, bt), codegen


@intrinsic
def add_probabilities(typingctx, wbuf, invs, p_sum):
    """``p_sum[i] ← (…((p_sum[i] + w_{i,0}·inv_0) + w_{i,1}·inv_1) + …) + w_{i,7}·inv_7`` for
    every expert i (``wbuf`` float64 (k, 8), ``invs`` float64[8] = 1/z of the block's rounds,
    ``p_sum`` float64[k]): the eight products of an expert in one vector multiply, then added
    round by round, so each ``p_sum[i]`` is summed in the order of one round at a time."""
    checks = (("wbuf", wbuf, 2), ("invs", invs, 1), ("p_sum", p_sum, 1))
    for name, arr, ndim in checks:
        if not _c_array(arr, ndim, types.float64):
            raise TypingError(f"add_probabilities: {name} must be a C-contiguous {ndim}-d float64 array, got {arr}")

    def codegen(context, builder, signature, args):
        wa, ia, pa = (context.make_array(signature.args[j])(context, builder, args[j]) for j in range(3))
        inv = builder.load(builder.bitcast(ia.data, _VD.as_pointer()), align=8)
        with cgutils.for_range(builder, builder.extract_value(pa.shape, 0)) as loop:
            i = loop.index
            prod = builder.fmul(builder.load(builder.bitcast(builder.gep(wa.data, [builder.mul(i, ir.Constant(i.type, ROUNDS))]), _VD.as_pointer()), align=8), inv)
            ptr = builder.gep(pa.data, [i])
            p = builder.load(ptr)
            for r in range(ROUNDS):
                p = builder.fadd(p, builder.extract_element(prod, ir.Constant(_I32, r)))
            builder.store(p, ptr)
        return context.get_dummy_value()

    return types.none(wbuf, invs, p_sum), codegen


def _masked_load(builder, ptr, mask, passthru, align):
    """``llvm.masked.load``: lanes where ``mask`` is set read ``ptr[q]``, the others are ``passthru``."""
    vec = passthru.type
    name = f"llvm.masked.load.v{vec.count}i{vec.element.width}.p0"
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vec, [ir.PointerType(vec), _I32, mask.type, vec]), name)
    return builder.call(fn, [builder.bitcast(ptr, ir.PointerType(vec)), ir.Constant(_I32, align), mask, passthru])


def _unpack(builder, x, y, bits, high):
    """Interleave the low (``high`` = 0) or high halves of two 16-byte vectors in ``bits``-bit
    elements (punpckl/h{bw, wd, dq})."""
    n = 128 // bits
    vec = ir.VectorType(ir.IntType(bits), n)
    start = n // 2 if high else 0
    mask = [e for m in range(n // 2) for e in (start + m, n + start + m)]
    out = builder.shuffle_vector(builder.bitcast(x, vec), builder.bitcast(y, vec), ir.Constant(ir.VectorType(_I32, n), mask))
    return builder.bitcast(out, ir.VectorType(ir.IntType(8), 16))


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
