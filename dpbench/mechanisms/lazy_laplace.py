"""Laplace noise of a sparse vector's queries, evaluated only where it can decide a firing.

``rng.laplace(0, b, size)`` (numpy's ``random_laplace``) turns one uniform ``U`` per draw
into ``0 − b·log(2 − U − U)`` for ``U ≥ ½`` and ``0 + b·log(U + U)`` otherwise, rejecting
``U = 0`` (the next uniform is used). :func:`laplace_uniforms` draws exactly those uniforms
(same generator calls, same state after), :func:`laplace_from_uniform` maps one to the very
value numpy returns (the same formula, the same libm ``log``; ``tests/test_lazy_laplace.py``
checks equality bit for bit), so a compiled loop can keep the uniforms and take the
logarithm only in the rounds where the noise could matter.

A sparse-vector query fires iff ``q + ν ≥ T̂``. :func:`uniform_cut` gives a uniform ``u₀``
such that every ``U < u₀`` has ``q + ν(U) < T̂`` in floating point — a conservative bound
(below it the noise is at least ``10⁻⁹(1 + |T̂| + |q|)`` short of the gap, far more than
the roundings of the formula), so skipping those rounds changes no firing. With the
threshold gap of a sparse vector (several noise scales) almost every round is skipped:
one uniform draw instead of a uniform and a logarithm.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from dpbench.kernels import (
    numba_cache,  # noqa: F401 (kernel caches stamped with the compiled code they use)
    pcg64,
)

#: Absolute slack in the uniform (a few of its 2⁻⁵³ steps, and the roundings of ``2 − U − U``).
_U_SLACK = 2.0**-50


def laplace_uniforms(size: int, rng: np.random.Generator) -> npt.NDArray[np.float64]:
    """The ``size`` uniforms ``rng.laplace(0, b, size)`` would use, consuming the same draws
    (zeros rejected, each replaced by the next draw, as numpy does)."""
    u = pcg64.random(rng, size)  # rng.random(size), compiled
    zeros = int(np.count_nonzero(u == 0.0))
    while zeros:
        u = np.concatenate([u[u != 0.0], rng.random(zeros)])
        zeros = int(np.count_nonzero(u == 0.0))
    return u


def query_uniforms(epsilon: float, size: int, *, rng: np.random.Generator) -> tuple[npt.NDArray[np.float64], float]:
    """``(U, b)`` standing for :func:`dpbench.mechanisms.sparse_vector.query_noise`'s ``size``
    draws of ``Lap(b = 4/ε)``: ``laplace_from_uniform(U[i], b)`` is its i-th value; ε = ∞
    draws nothing (``b = 0``: zero noise)."""
    if math.isinf(epsilon):
        return np.zeros(size), 0.0
    return laplace_uniforms(size, rng), 4.0 / epsilon


@numba.njit(cache=True, inline="always")
def laplace_from_uniform(u, scale):
    """numpy's ``Lap(0, scale)`` value from its uniform ``u ∈ (0, 1)`` (0 when ``scale = 0``)."""
    if scale == 0.0:
        return 0.0
    if u >= 0.5:
        return 0.0 - scale * np.log(2.0 - u - u)
    return 0.0 + scale * np.log(u + u)


@numba.njit(cache=True)
def uniform_cut(query, threshold, scale):
    """A uniform ``u₀`` with ``query + laplace_from_uniform(U, scale) < threshold`` for every
    ``U < u₀`` (module docstring): the inverse CDF at ``v = T̂ − q − δ``, moved down by
    relative 1e-12 and absolute :data:`_U_SLACK` margins."""
    gap = threshold - query
    if scale == 0.0:  # the noise is exactly 0
        return -np.inf if gap <= 0.0 else np.inf
    v = gap - 1e-9 * (1.0 + abs(threshold) + abs(query))
    if v <= 0.0:  # only negative noise (U < ½) can stay below v ≤ 0: U < exp(v/b)/2
        return 0.5 * np.exp(v / scale * (1.0 + 1e-12)) * (1.0 - 1e-12) - _U_SLACK
    # every U < ½ (negative noise) qualifies; above, ν = −b log(2 − 2U) < v iff 2 − 2U > exp(−v/b)
    e = np.exp(-v / scale * (1.0 - 1e-12)) * (1.0 + 1e-12)
    return max(0.5, 1.0 - 0.5 * (e + _U_SLACK) - _U_SLACK)
