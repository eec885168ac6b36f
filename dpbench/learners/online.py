"""Shared machinery of the online halfspace learners ([Lit88]; [BF26, §4]): the result type
:class:`OnlineTrace`, the compiled per-round loops (numba), and the slow step-by-step
reference used only by the tests (river's ``predict_one``/``learn_one`` idea).

Conventions: labels ``y ∈ {−1,+1}``; a round is a *mistake* iff ``y⟨w,x⟩ ≤ 0`` (a tie
counts as a mistake); ``t`` counts rounds from 1; cumulative mistakes and updates are
recorded after round ``t`` for every ``t`` in the stream's checkpoints. Rounds are
inherently sequential, so each block of the stream is consumed by one ``@njit`` loop
(O(N) work per round, O(N) per update); the Python side only touches the rare events
(DP-Winnow's sparse-vector firings), where it draws randomness from the caller's ``rng``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numba
import numpy as np
import numpy.typing as npt

from dpbench.kernels import numba_cache  # noqa: F401 (kernel caches stamped with the compiled code they use)
from dpbench.kernels.simd_dot import row_dot
from dpbench.mechanisms.lazy_laplace import laplace_from_uniform, uniform_cut

PERCEPTRON, WINNOW, CONFIDENT_WINNOW = 0, 1, 2


@dataclass
class OnlineTrace:
    """Cumulative ``mistakes`` and ``updates`` after each round ``t`` of ``checkpoints``;
    ``diagnostics`` holds learner-specific scalars (results columns such as ``eta``)."""

    t: npt.NDArray[np.int64]
    mistakes: npt.NDArray[np.int64]
    updates: npt.NDArray[np.int64]
    diagnostics: dict = field(default_factory=dict)
    first_update: int = -1  # round of the first update (−1: none)


# --------------------------------------------------------------------------- kernels


@numba.njit(cache=True)
def check_shapes(X, y, w):
    """The per-round margin reads ``len(w)`` entries of each row of ``X`` unchecked: refuse a
    block whose shapes disagree."""
    if X.ndim != 2 or X.shape[1] != w.shape[0] or y.shape[0] < X.shape[0]:
        raise ValueError("online block: X must be (rows, len(w)) and y at least as long as X")


@numba.njit(cache=True)
def _multiplicative_update(w, x, y, eta):
    """``w_i ← w_i exp(η y x_i)``, renormalised to sum 1 (max-shifted for stability)."""
    n = w.shape[0]
    total = 0.0
    for i in range(n):
        w[i] = w[i] * np.exp(eta * y * x[i])
        total += w[i]
    for i in range(n):
        w[i] /= total


@numba.njit(cache=True)
def nonprivate_block(X, y, w, kind, eta, gamma, checkpoints, state, out_m, out_u):
    """Run ``kind`` (perceptron / winnow / confident_winnow) over one block.

    ``state = [t, mistakes, updates, next checkpoint index, first update round]`` (int64,
    updated in place); ``w`` is updated in place.
    """
    check_shapes(X, y, w)
    t, mistakes, updates, ck, first = state[0], state[1], state[2], state[3], state[4]
    n_ck = checkpoints.shape[0]
    for r in range(X.shape[0]):
        yr = float(y[r])
        margin = yr * row_dot(w, X, r)
        t += 1
        if margin <= 0.0:
            mistakes += 1
        if kind == PERCEPTRON:
            if margin <= 0.0:
                for i in range(w.shape[0]):
                    w[i] += yr * X[r, i]
                updates += 1
        elif kind == WINNOW:
            if margin <= 0.0:
                _multiplicative_update(w, X[r], yr, eta)
                updates += 1
        else:
            if margin < gamma:
                _multiplicative_update(w, X[r], yr, eta)
                updates += 1
        if first < 0 and updates > 0:
            first = t
        while ck < n_ck and checkpoints[ck] == t:
            out_m[ck] = mistakes
            out_u[ck] = updates
            ck += 1
    state[0], state[1], state[2], state[3], state[4] = t, mistakes, updates, ck, first


@numba.njit(cache=True)
def dp_winnow_block(X, y, start, wt, gamma_tilde, uniforms, scale, noisy_threshold, active, batch, gbuf, state, checkpoints, out_m, out_u):
    """DP-Winnow rounds ``start..`` of one block with released weights ``wt``.

    Per round: mistake iff ``y⟨w̃,x⟩ ≤ 0``; cache the round iff ``y⟨w̃,x⟩ < γ̃``; the first
    ``batch`` cached examples of the epoch are summed into ``gbuf`` (``Σ y·x``, their number
    in ``state[5]``); if the sparse vector is ``active``, query ``|C| + ν_t ≥ T̂``, with
    ``ν_t = laplace_from_uniform(uniforms[t], scale)`` (:mod:`dpbench.mechanisms.lazy_laplace`:
    numpy's ``Lap(scale)`` draw from its uniform, evaluated only above the cut below which it
    cannot fire; ``scale = 0``: no noise). Returns
    the block index of the round at which it fired, or −1 at the end of the block. At a
    firing ``state[7]`` (firings) is incremented, and ``state[2]`` (updates) only if the
    batch is non-empty: the caller performs the shadow update with ``gbuf`` (none when the
    cache is empty), redraws w̃ and starts a new sparse vector. The checkpoint of the firing
    round is recorded with the update already counted.
    ``state = [t, mistakes, updates, ck, first update, |batch|, |C|, firings, first firing]``.
    """
    check_shapes(X, y, wt)
    t, mistakes, updates, ck, first, m, count, fires = state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7]
    n_ck = checkpoints.shape[0]
    fired = -1
    cut_count = count + cut_reach(count, noisy_threshold)
    cut = uniform_cut(cut_count, noisy_threshold, scale)  # valid (conservative) while count ≤ cut_count
    for r in range(start, X.shape[0]):
        yr = y[r]
        margin = yr * row_dot(wt, X, r)
        t += 1
        mistakes += margin <= 0.0  # no branch: while w̃ has not learnt, the outcomes are coin flips
        cached = margin < gamma_tilde
        count += cached
        if cached and m < batch:
            for i in range(X.shape[1]):
                gbuf[i] += yr * X[r, i]
            m += 1
        if count > cut_count:
            cut_count = count + cut_reach(count, noisy_threshold)
            cut = uniform_cut(cut_count, noisy_threshold, scale)
        if active and uniforms[r] >= cut and count + laplace_from_uniform(uniforms[r], scale) >= noisy_threshold:
            fires += 1
            if state[8] < 0:
                state[8] = t
            if m > 0:
                updates += 1
                if first < 0:
                    first = t
            fired = r
        while ck < n_ck and checkpoints[ck] == t:
            out_m[ck] = mistakes
            out_u[ck] = updates
            ck += 1
        if fired >= 0:
            break
    state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7] = t, mistakes, updates, ck, first, m, count, fires
    return fired


@numba.njit(cache=True)
def cut_reach(count, noisy_threshold):
    """How many cached rounds one noise cut covers: the cut is computed for the query
    ``count + reach`` (a lower, still valid cut for every smaller count, as the cut falls
    with the query), a quarter of the way to the threshold — one ``exp`` per many cached
    rounds far from a firing, one per round next to it."""
    return max(0, int((noisy_threshold - count) / 4))


@numba.njit(cache=True)
def max_abs(X):
    """``max |X_ij|`` as a float (0 for an empty array; NaN if X holds a NaN), in one pass
    without numpy's ``|X|`` temporary (a min/max reduction, vectorised for integer X)."""
    flat = X.ravel()
    if flat.size == 0:
        return 0.0
    lo = hi = flat[0]
    nan = False
    for v in flat:
        lo = min(lo, v)
        hi = max(hi, v)
        nan |= v != v
    return math.nan if nan else max(abs(float(lo)), abs(float(hi)))


# --------------------------------------------------------------------------- drivers


def blocked_dot(w: npt.NDArray, x: npt.NDArray) -> float:
    """``⟨w, x⟩`` in the compiled loops' fixed order (:mod:`dpbench.kernels.simd_dot`):
    coordinate i summed into lane i mod 8, left to right, then
    ``((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7))`` (the references must round
    identically: released weights are multiples of 1/K, so exact ties are common)."""
    lanes = [0.0] * 8
    for i, (a, b) in enumerate(zip(w.tolist(), x.tolist())):
        lanes[i % 8] += a * b
    return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))



def initial_weights(kind: int, n_features: int) -> npt.NDArray[np.float64]:
    """Zero for the perceptron, uniform ``1/N`` for the multiplicative learners."""
    return np.zeros(n_features) if kind == PERCEPTRON else np.full(n_features, 1.0 / n_features)


def run_nonprivate(stream, kind: int, eta: float, gamma: float) -> OnlineTrace:
    """Compiled run of a deterministic learner over a whole stream."""
    cps = np.asarray(stream.checkpoints, dtype=np.int64)
    out_m = np.zeros(len(cps), dtype=np.int64)
    out_u = np.zeros(len(cps), dtype=np.int64)
    state = np.array([0, 0, 0, 0, -1], dtype=np.int64)
    w = initial_weights(kind, stream.n_features)
    for X, y in stream.blocks():
        nonprivate_block(X, y, w, kind, float(eta), float(gamma), cps, state, out_m, out_u)
    return OnlineTrace(t=cps, mistakes=out_m, updates=out_u, diagnostics={"eta": float(eta)}, first_update=int(state[4]))


def sequential_multiplicative_update(w: npt.NDArray, x: npt.NDArray, y: float, eta: float) -> npt.NDArray:
    """``w_i exp(η y x_i)`` renormalised by their sum taken left to right, as
    :func:`_multiplicative_update` does (numpy's pairwise ``sum`` rounds differently, and on
    the decision-list streams, whose ``(f, −f)`` features make ``⟨w, x⟩ = 0`` ties common, one
    ulp flips a prediction)."""
    w = np.array([a * math.exp(eta * y * b) for a, b in zip(w.tolist(), x.tolist())])
    return w / np.cumsum(w)[-1]


def reference_nonprivate(stream, kind: int, eta: float, gamma: float) -> OnlineTrace:
    """Slow step-by-step reference of :func:`run_nonprivate` (tests only)."""
    X, y = stream.materialise()
    w = initial_weights(kind, stream.n_features)
    mistakes = updates = 0
    first = -1
    per_t_m, per_t_u = [], []
    for t in range(len(y)):
        x, yt = X[t].astype(np.float64), float(y[t])
        margin = yt * blocked_dot(w, x)
        mistakes += margin <= 0
        update = margin <= 0 if kind in (PERCEPTRON, WINNOW) else margin < gamma
        if update:
            if kind == PERCEPTRON:
                w = w + yt * x
            else:
                w = sequential_multiplicative_update(w, x, yt, eta)
            updates += 1
            if first < 0:
                first = t + 1
        per_t_m.append(mistakes)
        per_t_u.append(updates)
    cps = np.asarray(stream.checkpoints, dtype=np.int64)
    return OnlineTrace(
        t=cps, mistakes=np.array(per_t_m, dtype=np.int64)[cps - 1], updates=np.array(per_t_u, dtype=np.int64)[cps - 1],
        diagnostics={"eta": float(eta)}, first_update=first,
    )
