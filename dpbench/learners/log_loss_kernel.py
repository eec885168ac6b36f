"""The logistic loss summed over a sample, for every candidate of a grid, in one compiled pass.

``exp_mech_grid`` scores ``g^d`` candidates θ by ``Σ_i ℓ(θ; x_i, s_i)`` with the logistic
loss ``ℓ = ln(1 + e^{−m})``, ``m = s_i⟨θ, x_i⟩``. ``np.logaddexp(0, −m)`` costs ≈ 20–35 ns
per (example, candidate) (two libm calls per entry and an (n, g^d) temporary). The
identity

.. math:: \\ln(1 + e^{-m}) = \\max(-m, 0) + \\ln\\big(1 + e^{-|m|}\\big)

needs one exponential of a non-positive argument and one ``log1p`` on ``(0, 1]``; both are
evaluated here by short polynomials that the compiler vectorises (no libm call):

- ``e^{−a}``, ``0 ≤ a ≤ 700``: ``a = k ln 2 − r`` with ``|r| ≤ ln2/2`` (Cody–Waite split of
  ln 2), ``e^{r}`` by its Taylor polynomial of degree 13 (truncation ``< 4·10⁻¹⁸``
  relative), times ``2^{−k}`` built from the exponent bits;
- ``ln(1 + e)``, ``0 ≤ e ≤ 1``: ``2 artanh(u)`` with ``u = e/(2 + e) ≤ 1/3``, the odd series
  to ``u^{37}`` (truncation ``< 10⁻¹⁸`` relative).

Every entry agrees with ``np.logaddexp(0, −m)`` to a few ulp (≤ 8e-16 relative, checked by
``tests/test_logistic.py``); ``a`` is capped at 700 (``e^{−700} ≈ 10⁻³⁰⁴``, below any
sum's ulp). Each candidate's total is summed over the examples in order ``i = 0, 1, …``,
whatever the vector width, so the result is reproducible bit for bit. The kernels let the
compiler fuse a multiply and the add after it into one fused multiply–add (numba's
``fastmath={"contract"}``, nothing else: no reassociation), which rounds once instead of
twice: ~1.4× faster (``benchmarks/bench_exp_mech_grid.py``), the last bits differ from
unfused arithmetic, and the results are the same on every x86-64 CPU with FMA (all since
2013), which the build machine and clusters have.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from dpbench.kernels import numba_cache  # noqa: F401 (kernel caches stamped with the compiled code they use)

_LN2_HI = 6.93147180369123816490e-01  # ln 2 = _LN2_HI + _LN2_LO (Cody–Waite)
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.4426950408889634
#: 1.5·2^52: ``x + _ROUND`` rounds x ≥ 0 to an integer k held in the low mantissa bits
_ROUND = 6755399441055744.0
_ROUND_BITS = int(np.float64(_ROUND).view(np.int64))


#: ``e^r``'s Taylor coefficients ``1/k!``, ``k = 13, 12, …, 0`` (highest degree first)
_EXP_COEFFS = tuple(1.0 / math.factorial(k) for k in range(13, -1, -1))
#: ``artanh(u)/u = Σ_k v^k/(2k+1)``, ``v = u²``: the coefficients ``1/(2k+1)``, ``k = 18, …, 1``
#: (highest degree first; the constant term 1 is added separately)
_ARTANH_COEFFS = tuple(1.0 / (2 * k + 1) for k in range(18, 0, -1))


def _horner(coeffs: tuple[float, ...]):
    """The compiled polynomial ``x ↦ Σ_k coeffs[k] x^{K−k}`` (``K = len(coeffs) − 1``, highest
    degree first) by Horner's rule, ``p ← p·x + c`` for each coefficient after the first: one
    inlined function a step, each closing over its coefficient as a compile-time constant, so
    the compiled code is the straight line of multiply–adds that writing them out gives."""
    *rest, last = coeffs
    if not rest:
        return numba.njit(inline="always", error_model="numpy", fastmath={"contract"})(lambda x: last)
    inner = _horner(tuple(rest))
    return numba.njit(inline="always", error_model="numpy", fastmath={"contract"})(lambda x: inner(x) * x + last)


_exp_poly = _horner(_EXP_COEFFS)
_artanh_poly = _horner(_ARTANH_COEFFS)


@numba.njit(inline="always", error_model="numpy", fastmath={"contract"})
def _exp_taylor(r):  # pragma: no cover - compiled
    """``e^r`` for ``|r| ≤ ln2/2``: Taylor polynomial of degree 13 (Horner)."""
    return _exp_poly(r)


@numba.njit(inline="always", error_model="numpy", fastmath={"contract"})
def _log1p_unit(e):  # pragma: no cover - compiled
    """``ln(1 + e)`` for ``0 ≤ e ≤ 1``: ``2 artanh(u)``, ``u = e/(2+e)``, series to ``u^37``."""
    u = e / (2.0 + e)
    v = u * u
    return 2.0 * u + 2.0 * u * (v * _artanh_poly(v))


#: candidates per block: the block's five work arrays (40 B per candidate) stay in L1/L2
_BLOCK = 1024


@numba.njit(inline="always", error_model="numpy", fastmath={"contract"})
def _add_losses(m, b, poly, rounded, scale_bits, acc):  # pragma: no cover - compiled
    """``acc[j] += ln(1 + e^{−m[j]})`` for ``j < b`` (``rounded``/``scale_bits``: work arrays,
    the second a view of another's bits)."""
    rounded_bits = rounded.view(np.int64)
    scale = scale_bits.view(np.float64)
    for j in range(b):  # e^{-a} = e^{r} 2^{-k}: the polynomial and the rounded k
        a = min(abs(m[j]), 700.0)
        t = a * _INV_LN2 + _ROUND
        kf = t - _ROUND
        poly[j] = _exp_taylor((kf * _LN2_HI - a) + kf * _LN2_LO)
        rounded[j] = t
    for j in range(b):  # 2^{-k} from its exponent bits (k ≤ 1010: a normal number)
        scale_bits[j] = (1023 - (rounded_bits[j] - _ROUND_BITS)) << 52
    for j in range(b):
        x = m[j]
        acc[j] += max(-x, 0.0) + _log1p_unit(poly[j] * scale[j])


@numba.njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def _log_loss_sums(Z, Ct):  # pragma: no cover - compiled
    n, d = Z.shape
    c = Ct.shape[1]
    out = np.zeros(c)
    m = np.empty(_BLOCK)
    poly = np.empty(_BLOCK)
    rounded = np.empty(_BLOCK)
    scale_bits = np.empty(_BLOCK, dtype=np.int64)
    acc = np.empty(_BLOCK)
    for j0 in range(0, c, _BLOCK):
        b = min(_BLOCK, c - j0)
        acc[:b] = 0.0
        for i in range(n):
            z = Z[i, 0]
            for j in range(b):
                m[j] = z * Ct[0, j0 + j]
            for k in range(1, d):
                z = Z[i, k]
                for j in range(b):
                    m[j] += z * Ct[k, j0 + j]
            _add_losses(m, b, poly, rounded, scale_bits, acc)
        out[j0 : j0 + b] = acc[:b]
    return out


@numba.njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def _grid_log_loss_sums(Z, axis, tail):  # pragma: no cover - compiled
    n, d = Z.shape
    g = axis.shape[0]
    head = d - tail
    b = g**tail  # one block: every candidate with the same first `head` coordinates
    out = np.empty(g**d)
    levels = np.empty((tail, b))  # margins of the block's prefixes, level t: g^(t+1) of them
    poly = np.empty(b)
    rounded = np.empty(b)
    scale_bits = np.empty(b, dtype=np.int64)
    acc = np.empty(b)
    lead = np.zeros(max(head, 1), dtype=np.int64)  # the block's first `head` axis indices
    for block in range(g**head):
        rest = block
        for k in range(head - 1, -1, -1):
            lead[k] = rest % g
            rest //= g
        acc[:] = 0.0
        for i in range(n):
            base = 0.0
            if head > 0:
                base = Z[i, 0] * axis[lead[0]]
                for k in range(1, head):
                    base += Z[i, k] * axis[lead[k]]
            z = Z[i, head]
            if head > 0:
                for v in range(g):
                    levels[0, v] = base + z * axis[v]
            else:
                for v in range(g):
                    levels[0, v] = z * axis[v]
            width = g
            for t in range(1, tail):
                z = Z[i, head + t]
                for u in range(width):
                    prefix = levels[t - 1, u]
                    for v in range(g):
                        levels[t, u * g + v] = prefix + z * axis[v]
                width *= g
            _add_losses(levels[tail - 1], b, poly, rounded, scale_bits, acc)
        out[block * b : (block + 1) * b] = acc
    return out


def grid_log_loss_sums(Z: npt.NDArray, axis: npt.NDArray) -> npt.NDArray[np.float64]:
    """:func:`log_loss_sums` for the product grid ``axis^d`` (the candidates of
    ``itertools.product(axis, repeat=d)``, last coordinate fastest), the same bits.

    The margins ``⟨z_i, θ⟩`` are built coordinate by coordinate, in the order
    :func:`log_loss_sums` sums them, as prefixes shared by the candidates that agree on their
    first coordinates: ≈ one addition per candidate instead of d multiply–adds."""
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    axis = np.ascontiguousarray(axis, dtype=np.float64)
    n, d = Z.shape
    if d == 0:
        return np.full(1, n * np.log(2.0))
    g = len(axis)
    tail = 1
    while tail < d and g ** (tail + 1) <= _BLOCK:
        tail += 1
    return _grid_log_loss_sums(Z, axis, tail)


def log_loss_sums(Z: npt.NDArray, candidates: npt.NDArray) -> npt.NDArray[np.float64]:
    """``Σ_i ln(1 + e^{−⟨z_i, θ_j⟩})`` for every candidate ``θ_j`` (rows of ``candidates``),
    with ``z_i = s_i x_i`` the rows of ``Z``; shape ``(len(candidates),)``."""
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    candidates = np.asarray(candidates, dtype=np.float64)
    if Z.ndim != 2 or candidates.ndim != 2 or Z.shape[1] != candidates.shape[1]:
        raise ValueError(f"Z {Z.shape} and candidates {candidates.shape} must be (n, d) and (c, d)")
    if Z.shape[1] == 0:
        return np.full(len(candidates), len(Z) * np.log(2.0))
    return _log_loss_sums(Z, np.ascontiguousarray(candidates.T))


def reference_log_loss_sums(Z: npt.NDArray, candidates: npt.NDArray) -> npt.NDArray[np.float64]:
    """The same sums by ``np.logaddexp`` (the reference the tests and the benchmark use)."""
    return np.logaddexp(0.0, -(np.asarray(Z) @ np.asarray(candidates).T)).sum(axis=0)
