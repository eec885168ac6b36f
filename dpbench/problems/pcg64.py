"""numpy's default bit generator, PCG64, stepped inside compiled loops.

A stream block of ``dl_as_halfspace`` needs ``d`` uniforms per example — at T = 10^7 and
d = 20, 2·10^8 draws, which numpy makes one indirect call at a time into a 1.6 GB of
temporaries per stream. :func:`next_double` makes the very same draw inline (the state in
two 64-bit words, the 128-bit step as one LLVM ``i128`` multiply–add), so a compiled loop
consumes the uniforms as it makes them; :func:`load_state` / :func:`store_state` move the
state out of and back into the ``numpy.random.Generator``, which then continues exactly as
if it had made the draws itself (``tests/test_online_kernels.py`` checks the draws and the
state after, bit for bit).

PCG64 as in numpy (O'Neill, "PCG: A family of simple fast space-efficient statistically
good algorithms for random number generation", 2014; numpy's ``pcg64.h``): the 128-bit LCG
``s ← s·M + inc`` (mod 2^128), then the output ``rotr64(hi(s) ⊕ lo(s), s >> 122)``;
``random()`` is ``(out >> 11)·2⁻⁵³`` (numpy's ``next_double``).
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

#: numpy's PCG_DEFAULT_MULTIPLIER_128 (high, low 64-bit words).
MULTIPLIER = (2549297995355413924 << 64) + 4865540595714422341
_MASK64 = (1 << 64) - 1


def is_pcg64(rng: np.random.Generator) -> bool:
    return isinstance(rng, np.random.Generator) and type(rng.bit_generator) is np.random.PCG64


def load_state(rng: np.random.Generator) -> npt.NDArray[np.uint64]:
    """``[lo(s), hi(s), lo(inc), hi(inc)]`` of a PCG64 generator."""
    st = rng.bit_generator.state["state"]
    s, inc = int(st["state"]), int(st["inc"])
    return np.array([s & _MASK64, s >> 64, inc & _MASK64, inc >> 64], dtype=np.uint64)


def store_state(rng: np.random.Generator, words: npt.NDArray[np.uint64]) -> None:
    """Put the stepped state back (the 32-bit half-word buffer, untouched by 64-bit draws, kept)."""
    full = rng.bit_generator.state
    full["state"] = {"state": int(words[0]) | (int(words[1]) << 64), "inc": int(words[2]) | (int(words[3]) << 64)}
    rng.bit_generator.state = full


@intrinsic
def next_uint64(typingctx, words):
    """One PCG64 step on ``words`` (see :func:`load_state`, updated in place); its 64-bit output."""
    if not (isinstance(words, types.Array) and words.dtype == types.uint64 and words.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        arr = context.make_array(signature.args[0])(context, builder, args[0])
        i64, i128 = ir.IntType(64), ir.IntType(128)
        ptr = [builder.gep(arr.data, [ir.Constant(i64, k)]) for k in range(4)]

        def wide(lo, hi):
            return builder.or_(builder.zext(builder.load(lo), i128), builder.shl(builder.zext(builder.load(hi), i128), ir.Constant(i128, 64)))

        state = builder.add(builder.mul(wide(ptr[0], ptr[1]), ir.Constant(i128, MULTIPLIER)), wide(ptr[2], ptr[3]))
        lo = builder.trunc(state, i64)
        hi = builder.trunc(builder.lshr(state, ir.Constant(i128, 64)), i64)
        builder.store(lo, ptr[0])
        builder.store(hi, ptr[1])
        rot = builder.lshr(hi, ir.Constant(i64, 58))  # s >> 122
        x = builder.xor(hi, lo)
        left = builder.and_(builder.sub(ir.Constant(i64, 64), rot), ir.Constant(i64, 63))
        return builder.or_(builder.lshr(x, rot), builder.shl(x, left))  # rotate right by rot

    return types.uint64(words), codegen


@numba.njit(cache=True, inline="always")
def next_double(words):
    """numpy's ``Generator.random()`` draw: ``(next_uint64 >> 11)·2⁻⁵³``."""
    return (next_uint64(words) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
