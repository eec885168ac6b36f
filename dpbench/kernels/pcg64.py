"""numpy's default bit generator, PCG64, run inside a compiled loop: ``rng.random(size) < p``
as bytes, the same draws and the generator left in the same state.

Why: a block of the ``dl_as_halfspace`` stream is ``rng.random((b, d)) < p`` — at T = 10^7
and d = 20, 2·10^8 draws per stream, which numpy makes one indirect call and one serial
128-bit step at a time (≈ 3 ns a draw, most of such a cell's time). :func:`fill_below`
makes them with four interleaved copies of the generator, each jumping four steps at a
time, so four independent multiply chains overlap; the values are the same draws in the
same order (``tests/test_online_kernels.py`` checks them and the state after, bit for bit).

PCG64 as in numpy (O'Neill, "PCG: A family of simple fast space-efficient statistically
good algorithms for random number generation", 2014; numpy's ``pcg64.h``): the 128-bit LCG
``s ← s·M + inc`` (mod 2^128), then the output ``rotr64(hi(s) ⊕ lo(s), s >> 122)``;
``random()`` is ``(out >> 11)·2⁻⁵³`` (numpy's ``next_double``). Four steps at once:
``s ← s·M⁴ + inc·(M³ + M² + M + 1)``.
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from dpbench.kernels import numba_cache  # noqa: F401 (kernel caches stamped with the compiled code they use)

#: numpy's PCG_DEFAULT_MULTIPLIER_128.
MULTIPLIER = (2549297995355413924 << 64) + 4865540595714422341
_MOD = 1 << 128
_MASK64 = (1 << 64) - 1
#: Interleaved copies of the generator.
LANES = 4


def is_pcg64(rng: object) -> bool:
    return isinstance(rng, np.random.Generator) and type(rng.bit_generator) is np.random.PCG64


def load_state(rng: np.random.Generator) -> npt.NDArray[np.uint64]:
    """``[lo(s), hi(s), lo(inc), hi(inc), lo(M⁴), hi(M⁴), lo(c₄), hi(c₄)]`` of a PCG64
    generator, ``c₄ = inc·(M³ + M² + M + 1)`` (the four-step jump)."""
    st = rng.bit_generator.state["state"]
    s, inc = int(st["state"]), int(st["inc"])
    m4 = pow(MULTIPLIER, LANES, _MOD)
    c4 = inc * sum(pow(MULTIPLIER, k, _MOD) for k in range(LANES)) % _MOD
    return np.array([v >> shift & _MASK64 for v in (s, inc, m4, c4) for shift in (0, 64)], dtype=np.uint64)


def store_state(rng: np.random.Generator, words: npt.NDArray[np.uint64]) -> None:
    """Put the stepped state back (the 32-bit half-word buffer, untouched by 64-bit draws, kept)."""
    full = rng.bit_generator.state
    full["state"] = {"state": int(words[0]) | (int(words[1]) << 64), "inc": int(words[2]) | (int(words[3]) << 64)}
    rng.bit_generator.state = full


@intrinsic
def fill_random(typingctx, words, p, out):
    """The next ``out.size`` draws of ``random()``, in order: ``out[j] = U_j`` (float64 out) or
    ``out[j] = 1 if U_j < p else 0`` (uint8 out); ``words`` (:func:`load_state`) is stepped
    past them."""
    if not (isinstance(words, types.Array) and words.dtype == types.uint64 and words.ndim == 1 and words.layout == "C"
            and isinstance(p, types.Float) and isinstance(out, types.Array) and out.dtype in (types.uint8, types.float64) and out.layout == "C"):
        return None

    def codegen(context, builder, signature, args):
        wa = context.make_array(signature.args[0])(context, builder, args[0])
        oa = context.make_array(signature.args[2])(context, builder, args[2])
        p_value = context.cast(builder, args[1], signature.args[1], types.float64)
        i8, i64, i128 = ir.IntType(8), ir.IntType(64), ir.IntType(128)
        word = [builder.load(builder.gep(wa.data, [ir.Constant(i64, k)])) for k in range(8)]

        def wide(lo, hi):
            return builder.or_(builder.zext(lo, i128), builder.shl(builder.zext(hi, i128), ir.Constant(i128, 64)))

        inc, m4, c4 = wide(word[2], word[3]), wide(word[4], word[5]), wide(word[6], word[7])
        mult = ir.Constant(i128, MULTIPLIER)

        def step(s, m, c):
            return builder.add(builder.mul(s, m), c)

        def emit(s, index):
            """out[index] = (random() from state s) < p."""
            lo = builder.trunc(s, i64)
            hi = builder.trunc(builder.lshr(s, ir.Constant(i128, 64)), i64)
            x, rot = builder.xor(hi, lo), builder.lshr(hi, ir.Constant(i64, 58))
            left = builder.and_(builder.sub(ir.Constant(i64, 64), rot), ir.Constant(i64, 63))
            draw = builder.or_(builder.lshr(x, rot), builder.shl(x, left))  # rotate right by rot
            u = builder.fmul(builder.uitofp(builder.lshr(draw, ir.Constant(i64, 11)), ir.DoubleType()), ir.Constant(ir.DoubleType(), 2.0**-53))
            if signature.args[2].dtype == types.float64:
                builder.store(u, builder.gep(oa.data, [index]))
            else:
                builder.store(builder.zext(builder.fcmp_ordered("<", u, p_value), i8), builder.gep(oa.data, [index]))

        n = oa.nitems
        chunks = builder.sdiv(n, ir.Constant(n.type, LANES))
        state = cgutils.alloca_once_value(builder, wide(word[0], word[1]))  # s_j, the last state consumed
        lanes = []  # lane k holds s_{4c + k + 1}
        s = builder.load(state)
        for _ in range(LANES):
            s = step(s, mult, inc)
            lanes.append(cgutils.alloca_once_value(builder, s))
        with cgutils.for_range(builder, chunks) as loop:
            base = builder.mul(loop.index, ir.Constant(n.type, LANES))
            values = [builder.load(lane) for lane in lanes]
            for k, v in enumerate(values):
                emit(v, builder.add(base, ir.Constant(n.type, k)))
            builder.store(values[-1], state)
            for lane, v in zip(lanes, values):
                builder.store(step(v, m4, c4), lane)
        with cgutils.for_range(builder, builder.sub(n, builder.mul(chunks, ir.Constant(n.type, LANES)))) as loop:  # the rest, one step at a time
            s = step(builder.load(state), mult, inc)
            emit(s, builder.add(builder.mul(chunks, ir.Constant(n.type, LANES)), loop.index))
            builder.store(s, state)
        final = builder.load(state)
        builder.store(builder.trunc(final, i64), builder.gep(wa.data, [ir.Constant(i64, 0)]))
        builder.store(builder.trunc(builder.lshr(final, ir.Constant(i128, 64)), i64), builder.gep(wa.data, [ir.Constant(i64, 1)]))
        return context.get_dummy_value()

    return types.none(words, p, out), codegen


def random_below(rng: np.random.Generator, shape: tuple[int, ...], p: float) -> npt.NDArray[np.uint8]:
    """``(rng.random(shape) < p)`` as uint8 — the same draws, the generator left in the same
    state; compiled for PCG64, numpy otherwise."""
    if not is_pcg64(rng):
        return (rng.random(shape) < p).astype(np.uint8)
    return _compiled(rng, p, np.empty(shape, dtype=np.uint8))


def random(rng: np.random.Generator, size: int) -> npt.NDArray[np.float64]:
    """``rng.random(size)`` — the same draws and state; compiled for PCG64, numpy otherwise."""
    if not is_pcg64(rng):
        return rng.random(size)
    return _compiled(rng, 0.0, np.empty(size))


def _compiled(rng: np.random.Generator, p: float, out: np.ndarray) -> np.ndarray:
    words = load_state(rng)
    _fill(words, float(p), out)
    store_state(rng, words)
    return out


@numba.njit(cache=True)
def _fill(words, p, out):
    fill_random(words, p, out)


def skip_coin_flips(rng: np.random.Generator, n: int) -> None:
    """Step ``rng`` exactly as ``rng.integers(0, 2, size=n)`` does, without making the draws.

    numpy makes each fair coin from one 32-bit draw (Lemire's method never rejects for two
    outcomes); a 64-bit output gives two of them, low half first, the high half kept in the
    generator's buffer (``has_uint32``, ``uinteger``; a consumed buffer keeps its stale value).
    So ``n`` coins are a ``PCG64.advance`` over all but the last output they use, that output
    drawn, and the buffer set as numpy leaves it (``tests/test_online_kernels.py`` compares
    the whole state with numpy's). Other bit generators: the draws are made."""
    if not is_pcg64(rng):
        rng.integers(0, 2, size=n)
        return
    bitgen = rng.bit_generator
    state = bitgen.state
    has, stale = state["has_uint32"], state["uinteger"]
    n = int(n)
    if n and has:  # the first coin takes the buffered half word
        n, has = n - 1, 0
    if n:
        outputs = (n + 1) // 2
        bitgen.advance(outputs - 1)
        stale = int(bitgen.random_raw()) >> 32  # the last output's high half: buffered (n odd) or used
        has = n % 2
    state = bitgen.state
    state["has_uint32"], state["uinteger"] = has, stale
    bitgen.state = state
