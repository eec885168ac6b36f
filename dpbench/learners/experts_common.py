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

The kernel is one fused, compiled pass over the (T, k) codes per repetition: no Python
loop per round. The slow river-style reference :func:`reference_hedge` (one round at a
time, numpy) exists only for the tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from dpbench.learners.laws import recorder
from dpbench.problems.losses import ExpertsLosses  # noqa: F401 (re-exported)

#: Largest lookup table of weights (entries); beyond it the kernel calls exp per entry.
MAX_TABLE = 1 << 22
#: exp(−x) is treated as 0 beyond this x (e^{−690} ≈ 1e−300).
EXP_CUTOFF = 690.0


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


@numba.njit(cache=True, nogil=True)
def _hedge_kernel(codes, step, ftl, uniforms, marks, table, track_p, laws):  # pragma: no cover - compiled
    T, k = codes.shape
    L = np.zeros(k, dtype=np.int64)
    w = np.empty(k, dtype=np.float64)
    counts = np.zeros(k, dtype=np.int64)
    p_sum = np.zeros(k if track_p else 1, dtype=np.float64)
    n_marks = marks.shape[0]
    alg = np.zeros(n_marks, dtype=np.float64)
    expd = np.zeros(n_marks, dtype=np.float64)
    best = np.zeros(n_marks, dtype=np.float64)
    n_table = table.shape[0]
    lmin = 0
    real_acc = 0
    exp_acc = 0.0
    m = 0
    for t in range(T):
        row = codes[t]
        z = 0.0
        dot = 0.0
        if ftl:
            for i in range(k):
                wi = 1.0 if L[i] == lmin else 0.0
                w[i] = wi
                z += wi
                dot += wi * row[i]
        else:
            for i in range(k):
                d = L[i] - lmin
                if d < n_table:
                    wi = table[d]
                else:
                    x = step * d
                    wi = math.exp(-x) if x < 690.0 else 0.0
                w[i] = wi
                z += wi
                dot += wi * row[i]
        target = uniforms[t] * z
        a = k - 1
        acc = 0.0
        for i in range(k):
            acc += w[i]
            if acc > target:
                a = i
                break
        while w[a] == 0.0:  # rounding at the top end: take the last positive weight
            a -= 1
        if track_p:
            inv = 1.0 / z
            for i in range(k):
                p_sum[i] += w[i] * inv
        if laws.shape[0]:  # the audit's hook (dpbench.learners.laws): the law a is drawn from
            for i in range(k):
                laws[t, i] = w[i] / z
        counts[a] += 1
        real_acc += row[a]
        exp_acc += dot / z
        new_min = L[0] + row[0]
        for i in range(k):
            v = L[i] + row[i]
            L[i] = v
            if v < new_min:
                new_min = v
        lmin = new_min
        if m < n_marks and t + 1 == marks[m]:
            alg[m] = real_acc
            expd[m] = exp_acc
            best[m] = lmin
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
    action by inverse CDF. Inside :func:`dpbench.learners.laws.recording_laws` the kernel
    also writes the law of every round's action (``w/Z``, what the draw uses), appended to
    the recording as a ``(T, k)`` log-pmf (the privacy audit composes them)."""
    if not eta >= 0:
        raise ValueError(f"eta must be >= 0, got {eta!r}")
    check_losses(losses)
    T = losses.T
    marks = checkpoints(T, n_checkpoints)
    uniforms = rng.random(T)
    ftl = math.isinf(eta)
    step = 0.0 if ftl else float(eta) * losses.scale
    max_code = int(losses.codes.max()) if T else 1
    table = weight_table(step, T, max(max_code, 1)) if step > 0 else np.ones(1)
    recording = recorder()
    laws = np.empty((T if recording is not None else 0, losses.k))
    alg, expd, best, counts, p_sum = _hedge_kernel(losses.codes, step, ftl, uniforms, marks, table, track_p, laws)
    if recording is not None:
        with np.errstate(divide="ignore"):
            recording.append(np.log(laws))
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
    top = float(losses.codes.max()) * losses.scale if losses.T else 0.0
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

    @staticmethod
    def cost(cell) -> float:
        """Seconds per repetition (shard balancing): ~6 ns per loss entry drawn and processed."""
        params = dict(cell.problem_params)
        k = int(params.get("k") or params.get("d") or 10)
        return 6e-9 * cell.size * k + 1e-4

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
