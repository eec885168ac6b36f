"""Shared pieces of the experts learners ([LW94]; [FS97]; [DR14, §11.2]): loss sequences, traces, and the
compiled Hedge kernel behind ``rwm``, ``private_rwm``, ``private_rwm_tight``,
``private_mw_001``, ``ftl`` and ``linear_learner``.

Oblivious losses make Hedge a function of cumulative losses only:
``p_t(i) ∝ exp(−η Σ_{s<t} ℓ^s_i)``. Losses are stored as small integer codes
(``uint8``; a loss is ``code · scale``), so cumulative losses are exact integers and the
weights are ``exp(−η·scale·(L_i − min_j L_j))`` of an integer difference: the kernel
looks them up in a precomputed table of ``exp(−η·scale·D)`` (D = 0, 1, …) instead of
calling ``exp`` per entry — the same numbers numpy's ``exp`` gives, without its cost.
Weights below ``1e-300`` of the leader's are exactly 0 (they cannot change Z at double
precision, nor be drawn by a 53-bit uniform).

The kernel is compiled and processes eight rounds per pass over the experts, one vector
lane per round (:mod:`dpbench.learners.hedge_pass`): the rounds' weight sums are
independent chains (a round-by-round loop is bound by the latency of its one running sum),
each summed in the round-by-round order, so the draws and sums are those of one round at a
time; the action is found by binary search on the running sums. The slow river-style
reference :func:`reference_hedge` (one round at a time, numpy) exists only for the tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from dpbench.kernels import numba_cache  # noqa: F401 (kernel caches stamped with the compiled code they use)
from dpbench.learners.hedge_pass import ROUNDS, add_probabilities, block_weights, draw_block, leaders_and_transpose
from dpbench.mechanisms.laws import recorder
from dpbench.problems.losses import ExpertsLosses  # noqa: F401 (re-exported)

#: Largest lookup table of weights (entries); beyond it the kernel calls exp per entry.
MAX_TABLE = 1 << 22
#: exp(−x) is treated as 0 beyond this x (e^{−690} ≈ 1e−300).
EXP_CUTOFF = 690.0
#: The kernel's uniforms are drawn on [0, UNIFORM_TOP) (:func:`draw_uniforms`); the law it
#: records (:func:`inverse_cdf_law`) is computed with the same value, so a sampler drawing on
#: a shorter range records, and is audited at, the law it actually draws from.
UNIFORM_TOP = 1.0


def draw_uniforms(rng: np.random.Generator, T: int) -> npt.NDArray[np.float64]:
    """The T uniforms on ``[0, UNIFORM_TOP)`` the kernel turns into actions by inverse CDF
    (``rng.random(T)`` times ``UNIFORM_TOP = 1``: bit for bit ``rng.random(T)``)."""
    return rng.random(T) * UNIFORM_TOP


def inverse_cdf_law(cdf: npt.NDArray[np.float64], top: float) -> npt.NDArray[np.float64]:
    """The log-law of the action the kernel draws from one round's inverse-CDF table.

    Round t's action is the first i with ``u·z < C_i`` (``C_i``: the running weight sums,
    ``cdf[t, i] = C_i / z``; :func:`_draw`), so for ``u ~ U[0, top)``

    .. math:: P(a = i) = \\frac{\\min(F_i, \\tau) - \\min(F_{i-1}, \\tau)}{\\tau},
              \\quad F_i = C_i / z,\\ F_{-1} = 0,\\ \\tau = \\text{top},

    and the last action also takes ``u ≥ F_{k−1}`` (the search's fall-through). At
    ``top = 1`` this is ``w_i / z`` up to rounding: Hedge's law. ``(T, k)`` in, ``(T, k)``
    log-probabilities out (−∞ for an action the draw cannot reach)."""
    F = np.minimum(np.asarray(cdf, dtype=np.float64), top)
    F[:, -1] = top  # the fall-through: every u beyond the table draws the last action
    p = np.diff(F, axis=1, prepend=0.0) / top
    with np.errstate(divide="ignore"):
        return np.log(np.maximum(p, 0.0))


@dataclass
class ExpertsTrace:
    """What an experts learner did, at checkpoints ``t`` (1-based round counts).

    ``alg_loss``: realized cumulative loss of the played actions; ``expected_loss``:
    cumulative ``<p_t, ℓ^t>`` of the played distributions; ``best_loss``: cumulative loss
    of the best fixed expert in hindsight up to t. ``counts``: how often each expert was
    played; ``p_sum``: Σ_t p_t (None unless requested). ``diagnostics``: results columns
    (e.g. ``eta``).
    """

    t: npt.NDArray[np.int64]
    alg_loss: npt.NDArray[np.float64]
    expected_loss: npt.NDArray[np.float64]
    best_loss: npt.NDArray[np.float64]
    counts: npt.NDArray[np.int64]
    p_sum: npt.NDArray[np.float64] | None = None
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def regret(self) -> npt.NDArray[np.float64]:
        """Average realized regret at each checkpoint."""
        return (self.alg_loss - self.best_loss) / self.t

    @property
    def expected_regret(self) -> npt.NDArray[np.float64]:
        """Average expected regret (from the played distributions) at each checkpoint."""
        return (self.expected_loss - self.best_loss) / self.t


def checkpoints(T: int, n: int = 1) -> npt.NDArray[np.int64]:
    """``n`` log-spaced checkpoints ending at T (just ``[T]`` for n = 1)."""
    if n <= 1:
        return np.array([T], dtype=np.int64)
    pts = np.unique(np.geomspace(min(10, T), T, n).round().astype(np.int64))
    pts[-1] = T
    return np.unique(pts)


#: Rounds processed together by :func:`_hedge_kernel` (independent summation chains: the
#: lanes of :func:`dpbench.learners.hedge_pass.block_weights`).
BLOCK_ROUNDS = ROUNDS


@numba.njit(cache=True, nogil=True, inline="always")
def _draw(cum, target):  # pragma: no cover - compiled
    """The first index whose running weight sum exceeds ``target``, k − 1 if none (a
    branch-free binary search on the non-decreasing ``cum``: the index a linear scan finds)."""
    base = 0
    n = cum.shape[0]
    while n > 1:
        half = n >> 1
        if cum[base + half - 1] <= target:
            base += half
        n -= half
    if cum[base] <= target:
        base += 1
    return min(base, cum.shape[0] - 1)


@numba.njit(cache=True, nogil=True, inline="always")
def _block_weight(L, bt, r, i, lmin, table):  # pragma: no cover - compiled
    """Expert i's weight in round r of a block (``bt[i, q]``: its code in round q), from
    ``L`` after the block (its losses in rounds r… taken back off) and that round's leader ``lmin``."""
    li = L[i]
    for q in range(r, BLOCK_ROUNDS):
        li -= bt[i, q]
    return table[min(np.uint64(li - lmin), np.uint64(table.shape[0] - 1))]


@numba.njit(cache=True, nogil=True)
def _hedge_kernel(codes, uniforms, marks, table, wbuf, track_p, laws):  # pragma: no cover - compiled
    """Hedge over the C-order (T, k) codes, :data:`BLOCK_ROUNDS` rounds at a time.

    The rounds of a block are independent given the cumulative losses (oblivious losses:
    ``L`` after round t does not depend on the action drawn), so their weight sums run as
    independent chains in one pass over the experts — each chain summed in the order of
    one round at a time (``z = ((w_0 + w_1) + w_2) + …``), so every number is the one a
    round-by-round loop computes. Per block: (1) the leaders' cumulative losses after each
    round (integers) and the block's codes transposed expert by expert
    (:func:`~dpbench.learners.hedge_pass.leaders_and_transpose`); (2) one pass computing per
    round the weights, their running sums (the unnormalised CDF), ``z`` and ``<w, ℓ>``
    (:func:`~dpbench.learners.hedge_pass.block_weights`, one vector lane per round); (3) the
    actions (:func:`~dpbench.learners.hedge_pass.draw_block`: :func:`_draw` at ``u_t·z``,
    the rounds' searches in lockstep) and the bookkeeping, round by round. A last partial
    block is padded with zero-loss rounds that are not drawn."""
    R = BLOCK_ROUNDS
    T, k = codes.shape
    L = np.zeros(k, dtype=np.int64)
    bt = np.empty((k + 15 - (k + 15) % 16, R), dtype=codes.dtype)  # the block's codes, expert by expert
    cum = np.empty((k, R), dtype=np.float64)  # running weight sums of the block's rounds
    pad = np.zeros((R, k), dtype=codes.dtype)
    leads = np.empty(R + 1, dtype=np.int64)  # the leader's cumulative loss before each round
    zd = np.empty(2 * R, dtype=np.float64)  # z and <w, ℓ> of each round
    targets = np.empty(R, dtype=np.float64)  # u_t · z of each round
    invs = np.empty(R, dtype=np.float64)  # 1 / z of each round
    actions = np.empty(R, dtype=np.int64)
    counts = np.zeros(k, dtype=np.int64)
    p_sum = np.zeros(k if track_p else 1, dtype=np.float64)
    n_marks = marks.shape[0]
    alg = np.zeros(n_marks, dtype=np.float64)
    expd = np.zeros(n_marks, dtype=np.float64)
    best = np.zeros(n_marks, dtype=np.float64)
    real_acc = 0
    exp_acc = 0.0
    m = 0
    leads[R] = 0
    for t0 in range(0, T, R):
        nr = min(R, T - t0)
        src, row = codes, t0
        if nr < R:
            pad[:nr] = codes[t0:]
            src, row = pad, 0
        # (1) leaders' cumulative losses after each round of the block; the codes transposed
        leads[0] = leads[R]
        leaders_and_transpose(src, row, L, leads, bt)
        # (2) weights, running sums and <w, ℓ> of the block's rounds, one vector lane per round
        block_weights(bt, L, table, leads, cum, wbuf, zd)
        if wbuf is not None and track_p:  # Σ_t p_t (linear_learner): each expert's rounds in order
            for r in range(nr):
                invs[r] = 1.0 / zd[r]
            if nr == R:
                add_probabilities(wbuf, invs, p_sum)
            else:
                for i in range(k):
                    p = p_sum[i]
                    for r in range(nr):
                        p += wbuf[i, r] * invs[r]
                    p_sum[i] = p
        # (3) draws (the rounds' searches in lockstep) and bookkeeping, round by round
        for r in range(R):
            targets[r] = uniforms[t0 + r] * zd[r] if r < nr else 0.0
        draw_block(cum, targets, actions)
        for r in range(nr):
            t = t0 + r
            zr = zd[r]
            a = actions[r]
            if cum[a, r] <= (cum[a - 1, r] if a > 0 else 0.0):  # else w_a > 0 (it moved the sum)
                while _block_weight(L, bt, r, a, leads[r], table) == 0.0:
                    a -= 1  # rounding at the top end: take the last positive weight
            if laws.shape[0]:  # dpbench.mechanisms.laws: the inverse-CDF table the draw searches
                for i in range(k):
                    laws[t, i] = cum[i, r] / zr
            counts[a] += 1
            real_acc += bt[a, r]
            exp_acc += zd[R + r] / zr
            if m < n_marks and t + 1 == marks[m]:
                alg[m] = real_acc
                expd[m] = exp_acc
                best[m] = leads[r + 1]
                m += 1
    return alg, expd, best, counts, p_sum


def weight_table(step: float, T: int, scale_max: int) -> npt.NDArray[np.float64]:
    """``exp(−step·D)`` for the integer differences D the kernel can meet (capped)."""
    if math.isinf(step) or step <= 0:
        return np.ones(1)
    n = int(min(T * scale_max + 1, EXP_CUTOFF / step + 2, MAX_TABLE))
    table = np.exp(-step * np.arange(n, dtype=np.float64))
    table[step * np.arange(n) >= EXP_CUTOFF] = 0.0
    return table


@numba.njit(cache=True, nogil=True)
def _largest_lag(codes):  # pragma: no cover - compiled
    """``max_t (max_i L_i − min_i L_i)`` over the rounds (cumulative integer losses)."""
    T, k = codes.shape
    L = np.zeros(k, dtype=np.int64)
    lag = 0
    for t in range(T):
        lo = hi = L[0] + codes[t, 0]
        for i in range(k):
            v = L[i] + codes[t, i]
            L[i] = v
            lo = min(lo, v)
            hi = max(hi, v)
        lag = max(lag, hi - lo)
    return lag


def complete_weight_table(losses: ExpertsLosses, eta: float) -> npt.NDArray[np.float64]:
    """The weight of every lag ``D = L_i − min_j L_j`` the kernel meets on ``losses``, as
    :func:`weight_table`, indexed ``table[min(D, len − 1)]`` (no ``exp`` in the kernel):
    the table ends with a 0 (the cutoff) or covers every D. FTL (η = ∞): ``[1, 0]``
    (leaders only); η = 0: ``[1]``. Where :data:`MAX_TABLE` would truncate it (T·max code
    > 4M and a tiny η), it is extended to the largest lag of this sequence, the entries
    beyond it computed as before by the compiled ``exp`` (at most T·max code + 1 entries:
    8·max code/k times the codes' bytes)."""
    if math.isinf(eta):
        return np.array([1.0, 0.0])
    step = eta * losses.scale
    T = losses.T
    top = max(losses.top if T else 1, 1)
    table = weight_table(step, T, top)
    if len(table) == 1 or table[-1] == 0.0 or len(table) >= T * top + 1:
        return table
    n = int(min(_largest_lag(losses.codes) + 1, EXP_CUTOFF / step + 2))
    return np.concatenate([table, _exp_entries(step, len(table), n)])


@numba.njit(cache=True, nogil=True)
def _exp_entries(step, start, stop):  # pragma: no cover - compiled
    """``exp(−step·D)`` for D in [start, stop) with the compiled ``exp`` (0 from the cutoff)."""
    out = np.empty(max(stop - start, 0), dtype=np.float64)
    for j in range(out.shape[0]):
        x = step * (start + j)
        out[j] = math.exp(-x) if x < 690.0 else 0.0
    return out


def run_hedge(
    losses: ExpertsLosses,
    eta: float,
    *,
    rng: np.random.Generator,
    n_checkpoints: int = 1,
    track_p: bool = False,
) -> ExpertsTrace:
    """Hedge / RWM with learning rate ``eta`` (``inf`` = follow the leader, uniform among
    leaders) on an oblivious loss sequence; one uniform per round from ``rng`` draws the
    action by inverse CDF. Inside :func:`dpbench.mechanisms.laws.recording_laws` the kernel
    also writes every round's inverse-CDF table (the running sums ``C_i/z`` its search
    uses), and the law of the action that table and the uniforms' range give
    (:func:`inverse_cdf_law`: what the draw uses, not a value computed beside it) is
    appended to the recording as a ``(T, k)`` log-pmf (the privacy audit composes them)."""
    if not eta >= 0:
        raise ValueError(f"eta must be >= 0, got {eta!r}")
    check_losses(losses)
    T = losses.T
    marks = checkpoints(T, n_checkpoints)
    uniforms = draw_uniforms(rng, T)
    table = complete_weight_table(losses, float(eta))
    recording = recorder()
    laws = np.empty((T if recording is not None else 0, losses.k))
    wbuf = np.empty((losses.k, BLOCK_ROUNDS)) if track_p else None  # the block's weights (Σ_t p_t)
    alg, expd, best, counts, p_sum = _hedge_kernel(np.ascontiguousarray(losses.codes), uniforms, marks, table, wbuf, track_p, laws)
    if recording is not None:
        recording.append(inverse_cdf_law(laws, UNIFORM_TOP))
    s = losses.scale
    return ExpertsTrace(
        t=marks,
        alg_loss=alg * s,
        expected_loss=expd * s,
        best_loss=best * s,
        counts=counts,
        p_sum=p_sum if track_p else None,
        diagnostics={"eta": float(eta)},
    )


def check_losses(losses: ExpertsLosses) -> None:
    """The privacy of every experts learner assumes losses in [0, 1] (sensitivity 1 of the
    cumulative loss): reject a sequence with ``code · scale > 1`` (one line)."""
    top = float(losses.top) * losses.scale if losses.T else 0.0
    if top > 1.0:
        raise ValueError(f"expert losses must lie in [0, 1], got a loss of {top:g}")


def reference_steps(losses: ExpertsLosses, eta: float, uniforms: npt.NDArray[np.float64]) -> Iterator[tuple[int, npt.NDArray, float]]:
    """River-style reference: one round at a time, ``(action, p_t, loss of action)``.

    ``predict_one``: p_t from cumulative losses; ``learn_one``: add ℓ^t. Used by tests only.
    """
    L = np.zeros(losses.k)
    dense = losses.losses()
    for t in range(losses.T):
        if math.isinf(eta):
            w = (L == L.min()).astype(float)
        else:
            x = eta * (L - L.min())
            w = np.where(x < EXP_CUTOFF, np.exp(-x), 0.0)
        cw = np.cumsum(w)  # sequential sums, as the kernel
        p = w / cw[-1]
        a = int(np.searchsorted(cw, uniforms[t] * cw[-1], side="right"))
        a = min(a, losses.k - 1)
        while w[a] == 0:
            a -= 1
        yield a, p, float(dense[t, a])
        L += dense[t]


def reference_hedge(losses: ExpertsLosses, eta: float, *, rng: np.random.Generator) -> tuple[float, float, float]:
    """(realized, expected, best) total losses of the step-by-step reference."""
    uniforms = rng.random(losses.T)
    real = expd = 0.0
    dense = losses.losses()
    for t, (a, p, loss) in enumerate(reference_steps(losses, eta, uniforms)):
        real += loss
        expd += float(p @ dense[t])
    return real, expd, float(dense.sum(axis=0).min())


class HedgeLearner:
    """Mixin of the Hedge-family learners: ``eta(T, k)`` picks the learning rate,
    ``run(losses, *, rng)`` runs the compiled kernel. Subclasses may override
    ``diagnostics(T, k)`` to report more (results columns only)."""

    track_p: bool = False

    #: Cost model (seconds, one CPU). The kernel: measured 2026-11-26 on the 2-core shared
    #: build machine (Xeon, AVX-512; loaded, load average 4-5) by process CPU time of
    #: ``run`` at T = 10⁶, k = 10 and 100 (stochastic; rwm, ftl, private_rwm,
    #: private_rwm_tight, private_mw_001: 0.05-0.07 s and 0.12-0.14 s), after the
    #: eight-lane kernel: ≈ 0.8 ns per loss entry + 52 ns per round (run_hedge's uniforms
    #: and table included) + 0.5 ms per run. Drawing the losses (compiled PCG64 stream,
    #: measured 2026-11-24) ≈ 1.7 ns per entry + 3 ns per round.
    KERNEL_ENTRY_SECONDS = 8e-10
    KERNEL_ROUND_SECONDS = 5.2e-8
    RUN_SECONDS = 5e-4
    LOSS_ENTRY_SECONDS = 1.7e-9
    LOSS_ROUND_SECONDS = 3e-9

    @staticmethod
    def _shape(cell) -> tuple[int, int]:
        params = dict(cell.problem_params)
        return int(cell.size), int(params.get("k") or params.get("d") or 10)

    @classmethod
    def _losses_shared(cls, cell) -> bool:
        """The cell's sequences fit the experiments' loss cache, so the cells of a shard with
        the same problem and T draw them once (else every cell redraws them)."""
        from dpbench.experiments.experts import CACHE_ENTRIES

        T, k = cls._shape(cell)
        return T * k * cell.repetitions <= CACHE_ENTRIES

    @classmethod
    def _loss_seconds(cls, cell) -> float:
        T, k = cls._shape(cell)
        return cls.LOSS_ENTRY_SECONDS * T * k + cls.LOSS_ROUND_SECONDS * T

    @classmethod
    def cost(cls, cell) -> float:
        """Own seconds per repetition (shard balancing): the kernel, plus drawing the losses
        where the cache cannot share them (:meth:`shared_cost` otherwise)."""
        T, k = cls._shape(cell)
        own = cls.KERNEL_ENTRY_SECONDS * T * k + cls.KERNEL_ROUND_SECONDS * T + cls.RUN_SECONDS
        return own + (0.0 if cls._losses_shared(cell) else cls._loss_seconds(cell))

    @classmethod
    def shared_cost(cls, cell) -> dict:
        """Drawing the loss sequences, once per shard for the cells of one problem and T."""
        if not cls._losses_shared(cell):
            return {}
        return {("losses", cell.problem_id, cell.size): cls._loss_seconds(cell)}

    def eta(self, T: int, k: int) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def supports_horizon(self, T: int, k: int) -> str | None:
        """``None`` if the learner can run with horizon T and k experts, else why not."""
        return None

    def run(self, losses: ExpertsLosses, *, rng: np.random.Generator, n_checkpoints: int = 1) -> ExpertsTrace:
        eta = self.eta(losses.T, losses.k)
        trace = run_hedge(losses, eta, rng=rng, n_checkpoints=n_checkpoints, track_p=self.track_p)
        return trace


def rwm_eta(T: int, k: int) -> float:
    """The non-private rate of [DR14, Thm 11.1]: ``η = sqrt(ln k / T)``."""
    return math.sqrt(math.log(k) / T)
