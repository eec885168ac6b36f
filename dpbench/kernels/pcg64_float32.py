"""numpy's PCG64 stream of float32 uniforms, compiled, for fused draws.

``Generator.random(dtype=float32)`` (numpy ≥ 1.17, bit generator ``PCG64``) draws each
value as ``(next_uint32 >> 8) · 2⁻²⁴``, where ``next_uint32`` hands out the low then the
high half of each 64-bit output and keeps the unused half in the bit generator's state
(``has_uint32``/``uinteger``). A 64-bit output is PCG-XSL-RR 128/64 (O'Neill, "PCG: A
Family of Simple Fast Space-Efficient Statistically Good Algorithms for Random Number
Generation", 2014): the 128-bit LCG state steps ``s ← s·M + inc`` (mod 2¹²⁸), then
``rotr64(hi(s) ⊕ lo(s), hi(s) >> 58)``.

:func:`bernoulli_fill` runs exactly that recurrence in a compiled loop and compares each
uniform with its threshold as it is drawn (no float buffer), then writes the state back:
the codes and the generator's state afterwards are those of numpy's
``rng.random(out, dtype=np.float32) < thresholds`` (tests/test_pcg64.py).
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from dpbench.kernels import numba_cache  # noqa: F401 (kernel caches stamped with the compiled code they use)
from dpbench.kernels.pcg64 import is_pcg64

#: PCG's default 128-bit LCG multiplier, high and low words.
MULT_HI = np.uint64(0x2360ED051FC65DA4)
MULT_LO = np.uint64(0x4385DF649FCCF645)
_MASK64 = (1 << 64) - 1


@intrinsic
def _mulhi(typingctx, a, b):  # pragma: no cover - compiled
    """High 64 bits of the 128-bit product of two uint64."""
    if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return types.uint64(types.uint64, types.uint64), codegen


@numba.njit(cache=True, nogil=True)
def _bernoulli_fill(out, thresholds, hi, lo, inc_hi, inc_lo, has, buffered):  # pragma: no cover - compiled
    T, k = out.shape
    scale = np.float32(1.0 / 16777216.0)
    for t in range(T):
        for i in range(k):
            if has:
                r = buffered
                has = False
            else:
                p_lo = lo * MULT_LO
                n_lo = p_lo + inc_lo
                carry = np.uint64(1) if n_lo < p_lo else np.uint64(0)
                hi = _mulhi(lo, MULT_LO) + lo * MULT_HI + hi * MULT_LO + inc_hi + carry
                lo = n_lo
                x = hi ^ lo
                rot = hi >> np.uint64(58)
                v = (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
                r = v & np.uint64(0xFFFFFFFF)
                buffered = v >> np.uint64(32)
                has = True
            out[t, i] = np.float32(r >> np.uint64(8)) * scale < thresholds[i]
    return hi, lo, has, buffered


def bernoulli_fill(out: npt.NDArray[np.uint8], thresholds: npt.NDArray[np.float32], rng: np.random.Generator) -> bool:
    """Fill the (T, k) ``out`` with ``u < thresholds`` for float32 uniforms ``u`` drawn in row
    order from ``rng`` and advance ``rng`` past them; False (``out`` untouched) if ``rng``'s
    bit generator is not PCG64."""
    if not is_pcg64(rng):
        return False
    bit_generator = rng.bit_generator
    state = bit_generator.state
    s, inc = state["state"]["state"], state["state"]["inc"]
    hi, lo, has, buffered = _bernoulli_fill(
        out, np.ascontiguousarray(thresholds, dtype=np.float32), np.uint64(s >> 64), np.uint64(s & _MASK64),
        np.uint64(inc >> 64), np.uint64(inc & _MASK64), bool(state["has_uint32"]), np.uint64(state["uinteger"]),
    )  # fmt: skip
    state["state"]["state"] = (int(hi) << 64) | int(lo)
    state["has_uint32"], state["uinteger"] = int(has), int(buffered)
    bit_generator.state = state
    return True
