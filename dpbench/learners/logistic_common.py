"""Shared pieces of the private-ERM learners ([CMS11]; [BST14]; [ACG16]).

The objective ``J_λ``, its conventions (labels ±1, features in the unit ball) and its exact
minimiser are in :mod:`dpbench.theory.logistic_objective` (imported here for the learners).

Here: per-example gradient clipping, the linear predictor, the noise-multiplier
calibrations of ``dp_gd`` (T-fold Gaussian, ``dp-accounting``'s RDP accountant) and ``dp_sgd`` (T-fold
Poisson-subsampled Gaussian, replace-one, ``dp-accounting``'s PLD accountant), and the noisy
gradient descent loop both run, batched over independent runs (:meth:`NoisyGradientDescent.descend`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import ClassVar

import numba
import numpy as np
import numpy.typing as npt
from scipy.special import expit

from dpbench.foundation.validation import check_delta, check_epsilon, check_positive_int, normalise
from dpbench.kernels import numba_cache  # noqa: F401 (kernel caches stamped with the compiled code they use)
from dpbench.kernels.lane_dot import block_axpy, block_dots
from dpbench.learners.base import Guarantee, Learner
from dpbench.mechanisms.accounting import calibrate_noise_multiplier, compose_gaussian, poisson_gaussian_epsilon
from dpbench.mechanisms.gaussian import analytic_sigma
from dpbench.mechanisms.guarantee import REPLACE_ONE
from dpbench.mechanisms.laws import release_recorder
from dpbench.problems.base import Sample
from dpbench.theory.logistic_objective import (  # noqa: F401 (the learners' imports)
    DEFAULT_LAM,
    LOGISTIC_SMOOTHNESS,
    minimise,
    objective,
    optimum,
    projected,
    signs,
    unit_ball,
)


@dataclass(frozen=True)
class LinearClassifier:
    """``h(x) = 1[⟨θ, x⟩ > 0]``; ``diagnostics`` are recorded in the results row."""

    theta: npt.NDArray[np.float64]
    diagnostics: dict = field(default_factory=dict, compare=False)

    def predict(self, X: npt.NDArray) -> npt.NDArray[np.uint8]:
        return (np.asarray(X, dtype=np.float64) @ self.theta > 0).astype(np.uint8)


def clipped_gradient_sum(
    theta: npt.NDArray,
    X: npt.NDArray,
    s: npt.NDArray,
    x_norms: npt.NDArray,
    clip: float | None,
    mask: npt.NDArray | None = None,
) -> npt.NDArray:
    """``Σ_i m_i clip_C(∇ℓ_i(θ))`` with ``clip_C(g) = g·min(1, C/‖g‖)`` (``clip=None``: no
    clipping) and ``m_i`` the batch indicator (``mask``, all ones if ``None``).

    ``theta`` is one parameter ``(d,)`` or a batch ``(R, d)`` (``mask`` then ``(R, n)``); the
    result has the same shape. The per-example gradient is ``c_i x_i`` with
    ``c_i = −s_i σ(−s_i⟨θ, x_i⟩)``, so its norm is ``|c_i|·‖x_i‖`` and clipping rescales ``c_i``.
    """
    T = np.atleast_2d(theta)
    c = -s * expit(-s * (T @ X.T))
    if clip is not None:
        c = c * np.minimum(1.0, clip / np.maximum(np.abs(c) * x_norms, 1e-300))
    if mask is not None:
        c = c * mask
    out = c @ X
    return out[0] if np.ndim(theta) == 1 else out


#: rows per block of the compiled gradient pass: their margins and coefficients first (the
#: rows stream in from memory), then the running sum over the same rows, now in L1 cache
_ROWS = 16
#: samples smaller than this (rows and features) take the plain loop (:func:`full_batch_clipped_gradient_sum`)
_PLAIN_BELOW_ROWS, _PLAIN_BELOW_FEATURES = 4, 32


@numba.njit(cache=True, nogil=True)
def _full_batch_clipped_sums(theta, X, s, x_norms, clip):  # pragma: no cover - compiled
    runs, d = theta.shape
    n = X.shape[0]
    out = np.zeros((runs, d))
    c = np.empty(_ROWS)
    for i0 in range(0, n, _ROWS):  # the runs in lockstep: each block of rows is read once for all
        b = min(_ROWS, n - i0)
        for r in range(runs):
            block_dots(theta[r], X, i0, b, c)  # the margins, four fixed lanes each
            for j in range(b):
                i = i0 + j
                cj = -s[i] / (1.0 + math.exp(s[i] * c[j]))  # −s_i σ(−s_i m)
                if clip > 0:  # c·min(1, C/v): the factor is 1 exactly when v ≤ C
                    v = max(abs(cj) * x_norms[i], 1e-300)
                    if v > clip:
                        cj *= clip / v
                c[j] = cj
            block_axpy(out[r], c, X, i0, b)  # out[r] += Σ_j c_j X[i0 + j], rows in order
    return out


@numba.njit(cache=True, nogil=True)
def plain_clipped_sums(theta, X, s, x_norms, clip):  # pragma: no cover - compiled
    """:func:`_full_batch_clipped_sums` as a plain numba loop, one row at a time, with the same
    bits: each margin ``⟨θ, x_i⟩`` in the four lanes of :mod:`~.lane_dot` (lane ``l`` sums
    ``θ_k x_ik`` over ``k ≡ l (mod 4)``, ``k < 4⌊d/4⌋``, the last ``d mod 4`` terms into lane 0,
    then ``(l₀ + l₁) + (l₂ + l₃)``), the running sum ``acc_k += c_i x_ik`` in row order. The
    tests' bit-for-bit reference and ``benchmarks/bench_intrinsics.py``'s baseline: the
    intrinsic pass stays only while it is faster than this loop."""
    runs, d = theta.shape
    out = np.zeros((runs, d))
    full = d - d % 4
    for r in range(runs):
        for i in range(X.shape[0]):
            m0 = m1 = m2 = m3 = 0.0
            for k in range(0, full, 4):
                m0 += theta[r, k] * X[i, k]
                m1 += theta[r, k + 1] * X[i, k + 1]
                m2 += theta[r, k + 2] * X[i, k + 2]
                m3 += theta[r, k + 3] * X[i, k + 3]
            for k in range(full, d):
                m0 += theta[r, k] * X[i, k]
            m = (m0 + m1) + (m2 + m3)
            c = -s[i] / (1.0 + math.exp(s[i] * m))
            if clip > 0:
                c *= min(1.0, clip / max(abs(c) * x_norms[i], 1e-300))
            for k in range(d):
                out[r, k] += c * X[i, k]
    return out


def full_batch_clipped_gradient_sum(theta: npt.NDArray, X: npt.NDArray, s: npt.NDArray, x_norms: npt.NDArray, clip: float | None) -> npt.NDArray:
    """:func:`clipped_gradient_sum` without a batch mask, in one compiled pass over X for all
    runs together (per block of :data:`_ROWS` rows, for each run in turn: the margins by
    :func:`~.lane_dot.block_dots`, the clipped coefficients, then the run's running sum of
    ``c_i x_i`` by :func:`~.lane_dot.block_axpy`, while the rows are in L1 cache; the numpy
    form reads X twice and allocates ~8 (runs, n) temporaries). Each run's operations are
    those of a pass of its own (the runs in lockstep change only which run's sum advances
    when), so a run's bits do not depend on the other runs:
    :meth:`dpbench.learners.dp_gd.DPGD.fit_epsilons` fits several ε with one read of X a step. Equal to it up to rounding (the sums are taken in example order); the same
    bits as the scalar pass it replaced (``tests/test_gradient_kernel.py`` checks). The
    compiled pass trusts its shapes, so they are checked here (``ValueError``), and so is
    ``clip`` (> 0, or ``None`` for no clipping). Samples of fewer than
    :data:`_PLAIN_BELOW_ROWS` rows and :data:`_PLAIN_BELOW_FEATURES` features (the privacy
    audit's two-example canary pairs, 10⁶ runs) take :func:`plain_clipped_sums`, the same bits
    (up to a NaN's sign bit), whose per-run set-up is cheaper: ``benchmarks/bench_intrinsics.py``
    prints both passes at the audit's shape and at the grids'."""
    T = np.ascontiguousarray(np.atleast_2d(np.asarray(theta, dtype=np.float64)))
    X = np.ascontiguousarray(X, dtype=np.float64)
    s, x_norms = np.ascontiguousarray(s, dtype=np.float64), np.ascontiguousarray(x_norms, dtype=np.float64)
    if T.ndim != 2 or X.ndim != 2 or T.shape[1] != X.shape[1] or s.shape != (X.shape[0],) or x_norms.shape != (X.shape[0],):
        raise ValueError(f"shapes do not match: theta {np.shape(theta)}, X {X.shape}, s {s.shape}, x_norms {x_norms.shape}")
    if clip is not None and not clip > 0:
        raise ValueError(f"clip must be > 0 (or None: no clipping), got {clip!r}")
    tiny = X.shape[0] < _PLAIN_BELOW_ROWS and X.shape[1] < _PLAIN_BELOW_FEATURES  # the privacy audit's canary pairs
    out = (plain_clipped_sums if tiny else _full_batch_clipped_sums)(T, X, s, x_norms, -1.0 if clip is None else float(clip))
    return out[0] if np.ndim(theta) == 1 else out


def geometric_gaps(q: float, size: tuple[int, int], rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """Independent Geometric(q) variables on {1, 2, …} (``P(G > k) = (1 − q)^k``), by
    inversion: ``G = 1 + ⌊ln(1 − U)/ln(1 − q)⌋`` with U uniform on [0, 1) — one uniform a
    draw whatever q (numpy's ``geometric`` searches for q ≥ 1/3: ~90× slower at q = ½)."""
    return 1 + np.floor(np.log1p(-rng.random(size)) / math.log1p(-q)).astype(np.int64)


def poisson_mask(runs: int, n: int, q: float, rng: np.random.Generator) -> npt.NDArray[np.bool_]:
    """``(runs, n)``: one Poisson sample of rate ``q`` (``0 < q < 1``) of ``range(n)`` per row,
    every index independently with probability ``q``.

    Drawn as the gaps between successive selections: in a sequence of independent
    Bernoulli(q) trials they are independent Geometric(q) variables on {1, 2, …}
    (:func:`geometric_gaps`), so a row's selected indices are ``cumsum(G) − 1`` below n —
    the same law as ``rng.random((runs, n)) < q``, from about ``nq`` draws per row instead of n
    (``dp_sgd`` at n = 10⁵, B = 256: ≈ 300 instead of 10⁵; never more than n, since n gaps
    of at least 1 pass n). Rows whose block of gaps ends below n draw further blocks, from
    their last position, until every row has passed n."""
    k = min(n, int(n * q + 6.0 * math.sqrt(n * q * (1.0 - q)) + 8.0))
    positions = np.cumsum(geometric_gaps(q, (runs, k), rng), axis=1) - 1
    mask = np.zeros((runs, n + 1), dtype=bool)  # column n: every position past the end
    flat = mask.reshape(-1)  # a view: row r, column c is r·(n + 1) + c
    rows = np.arange(runs)  # the rows ``positions`` belongs to
    while True:
        flat[(rows[:, None] * (n + 1) + np.minimum(positions, n)).ravel()] = True
        short = np.flatnonzero(positions[:, -1] < n)  # rare: rows not yet past n
        if len(short) == 0:
            return mask[:, :n]
        rows = rows[short]
        positions = positions[short, -1:] + np.cumsum(geometric_gaps(q, (len(short), k), rng), axis=1)


def uniform_direction(d: int, *, rng: np.random.Generator, runs: int | None = None) -> npt.NDArray:
    """A uniform unit vector ``(d,)`` (or ``runs`` of them, ``(runs, d)``)."""
    z = rng.standard_normal(d if runs is None else (runs, d))
    return z / np.linalg.norm(z, axis=-1, keepdims=True)


def l2_laplace_noise(d: int, scale: float, *, rng: np.random.Generator, runs: int | None = None) -> npt.NDArray:
    """``b`` with density ``∝ exp(−‖b‖/scale)``: ``‖b‖ ~ Γ(d, scale)``, direction uniform
    (``(d,)``, or ``(runs, d)`` independent draws)."""
    norms = rng.gamma(d, scale, size=None if runs is None else (runs, 1))
    return norms * uniform_direction(d, rng=rng, runs=runs)


# ----------------------------------------------------------------------- accounting


def gd_epsilon(noise_multiplier: float, steps: int, delta: float) -> float:
    """ε at δ of ``steps`` Gaussian mechanisms with noise multiplier σ/Δ₂ (replace-one), by
    ``dp-accounting``'s RDP accountant on :data:`~dpbench.mechanisms.accounting.RDP_ORDERS`
    (orders up to 10⁶: valid down to ε ≈ 10⁻³ at δ = 10⁻⁶): :func:`~dpbench.mechanisms.accounting.compose_gaussian`."""
    return compose_gaussian(noise_multiplier, steps, delta)


def sgd_epsilon(noise_multiplier: float, q: float, steps: int, delta: float) -> float:
    """ε at δ of ``steps`` Poisson-subsampled (rate q) Gaussian mechanisms, **replace-one**
    (n public), noise ``z·C`` on a sum of per-example terms of norm ≤ C: the PLD accountant
    (:func:`dpbench.mechanisms.accounting.poisson_gaussian_epsilon`)."""
    return poisson_gaussian_epsilon(noise_multiplier, q, steps, delta, neighbours=REPLACE_ONE)


@functools.lru_cache(maxsize=4096)
def calibrate_gd(epsilon: float, delta: float, steps: int) -> tuple[float, float]:
    """``(z, ε_achieved)``: smallest noise multiplier (to 0.1%) with ``gd_epsilon ≤ ε``;
    a degenerate accountant answer raises ``ValueError`` (:func:`.calibrate_noise_multiplier`)."""
    return calibrate_noise_multiplier(lambda z: gd_epsilon(z, steps, delta), epsilon=epsilon, delta=delta)


@functools.lru_cache(maxsize=4096)
def calibrate_sgd(epsilon: float, delta: float, q: float, steps: int) -> tuple[float, float]:
    """``(z, ε_achieved)``: smallest noise multiplier (to 0.1%) with ``sgd_epsilon ≤ ε``;
    a degenerate accountant answer raises ``ValueError`` (:func:`.calibrate_noise_multiplier`).

    Two stages, for speed: a 1% search with a coarse PLD (resolution ε/50, still a valid
    upper bound, so its answer is ≥ the fine one), started from the q = 1 multiplier
    ``2√T·σ_analytic(ε, δ)`` scaled by q; then the 0.1% search with :func:`sgd_epsilon`
    started from the coarse answer.
    """
    full = 2 * math.sqrt(steps) * analytic_sigma(epsilon=epsilon, delta=delta, sensitivity=1.0)
    coarse, _ = calibrate_noise_multiplier(
        lambda z: poisson_gaussian_epsilon(z, q, steps, delta, neighbours=REPLACE_ONE, resolution=epsilon / 50),
        epsilon=epsilon, delta=delta, rtol=1e-2, guess=max(1e-2, full * min(1.0, 2 * q)),
    )
    return calibrate_noise_multiplier(lambda z: sgd_epsilon(z, q, steps, delta), epsilon=epsilon, delta=delta, guess=coarse)


def check_lam(lam: float) -> float:
    if isinstance(lam, bool) or not isinstance(lam, (int, float)) or not (lam > 0 and math.isfinite(lam)):
        raise ValueError(f"lam must be a finite number > 0, got {lam!r}")
    return float(lam)


def check_clip(clip: float) -> float:
    if isinstance(clip, bool) or not isinstance(clip, (int, float)) or not (clip > 0 and math.isfinite(clip)):
        raise ValueError(f"clip must be a finite number > 0, got {clip!r}")
    return float(clip)


@dataclass(frozen=True, kw_only=True)
class PureDPLogistic(Learner):
    """Parameters, checks and guarantee shared by the ε-DP learners of the logistic problems
    (``objective_perturbation``, ``exp_mech_grid``, the peer ``diffprivlib_logreg``): ε and
    the ridge ``lam`` of the regularised logistic objective; the guarantee is ε-DP (δ = 0)
    under replace-one neighbours, each learner's module proving it for its mechanism."""

    family: ClassVar[str] = "batch"
    private: ClassVar[bool] = True
    problems: ClassVar[tuple[str, ...]] = ("logistic", "halfspace")
    epsilon: float
    lam: float = DEFAULT_LAM

    def __post_init__(self) -> None:
        normalise(self, epsilon=check_epsilon(self.epsilon), lam=check_lam(self.lam))

    def guarantee(self) -> Guarantee:
        return Guarantee(epsilon=self.epsilon, delta=0.0)


def gaussian_step_noise(rng: np.random.Generator, std: float, runs: int, d: int):
    """The noise ``ξ_t ~ N(0, std² I_d)`` of one step of ``runs`` runs (a ``(runs, d)`` draw
    from ``rng``; 0 when ``std = 0``, ε = ∞), as a function called once per step: the one
    noise draw of every noisy descent — :meth:`NoisyGradientDescent.descend`, which ``fit``
    and the privacy audit run, and :meth:`dpbench.learners.dp_gd.DPGD.fit_epsilons`, the
    lockstep fits of the shard loop, one call per ε with ``runs = 1``."""
    return (lambda: rng.standard_normal((runs, d)) * std) if std > 0 else (lambda: 0.0)


@dataclass(frozen=True, kw_only=True)
class NoisyGradientDescent(Learner):
    """Parameters and checks shared by ``dp_gd`` and ``dp_sgd``: (ε, δ) with δ > 0 at finite
    ε, regularisation ``lam``, ``steps``, clipping norm ``clip`` and step size ``lr``
    (0: 1/(¼ + λ), the inverse smoothness of the regularised logistic loss)."""

    family: ClassVar[str] = "batch"
    private: ClassVar[bool] = True
    problems: ClassVar[tuple[str, ...]] = ("logistic", "halfspace")
    epsilon: float
    delta: float
    lam: float = DEFAULT_LAM
    steps: int = 200
    clip: float = 1.0
    lr: float = 0.0

    def __post_init__(self) -> None:
        normalise(self, epsilon=check_epsilon(self.epsilon), delta=check_delta(self.delta))
        if not math.isinf(self.epsilon) and self.delta == 0:
            raise ValueError(f"delta must be > 0 for {self.name} at finite epsilon, got 0.0")
        normalise(
            self,
            lam=check_lam(self.lam),
            steps=check_positive_int(self.steps, name="steps"),
            clip=check_clip(self.clip),
        )
        if isinstance(self.lr, bool) or not isinstance(self.lr, (int, float)) or not (self.lr >= 0 and math.isfinite(self.lr)):
            raise ValueError(f"lr must be a finite number >= 0, got {self.lr!r}")

    @property
    def step_size(self) -> float:
        return self.lr if self.lr > 0 else 1.0 / (LOGISTIC_SMOOTHNESS + self.lam)

    def step_parameters(self, n: int) -> tuple[float, float, float]:
        """``(q, normaliser, noise_std)`` of one step on ``n`` examples (see :meth:`descend`)."""
        raise NotImplementedError

    def descend(self, X: npt.NDArray, s: npt.NDArray, *, runs: int, rng: np.random.Generator, x_norms: npt.NDArray | None = None) -> npt.NDArray[np.float64]:
        """``runs`` independent runs of the noisy descent on ``(X, s)``: ``(runs, d)`` outputs.

        From ``θ₀ = 0``, for ``t = 1..T``, with ``B_t`` a Poisson sample of rate ``q``
        (all examples when ``q = 1``), per run,

        .. math:: \\theta_t = \\theta_{t-1} - \\eta\\Big(\\frac{1}{N}\\Big(\\sum_{i\\in B_t}
                  \\mathrm{clip}_C(\\nabla\\ell_i(\\theta_{t-1})) + \\xi_t\\Big) + \\lambda\\theta_{t-1}\\Big),
                  \\qquad \\xi_t \\sim N(0, \\varsigma^2 I_d),

        with ``(q, N, ς)`` from :meth:`step_parameters` (``B_t`` by :func:`poisson_mask`);
        the output is the average of the
        last ⌈T/2⌉ iterates. ``fit`` is one run; the privacy audit uses many (vectorised).
        ``x_norms``: the row norms of ``X`` if known (:func:`projected` keeps them).
        """
        n, d = X.shape
        q, normaliser, std = self.step_parameters(n)
        self._record(q, std, n)
        x_norms = np.linalg.norm(X, axis=1) if x_norms is None else x_norms
        noise = gaussian_step_noise(rng, std, runs, d)
        if q >= 1:
            full = lambda theta: full_batch_clipped_gradient_sum(theta, X, s, x_norms, self.clip)  # noqa: E731
            return self._iterate(full, noise, normaliser, (runs, d))

        def gradient(theta):
            mask = poisson_mask(runs, n, q, rng)
            used = np.flatnonzero(mask[0] if runs == 1 else mask.any(axis=0))  # examples in some run's batch
            batch = None if runs == 1 else mask[:, used]
            return clipped_gradient_sum(theta, X[used], s[used], x_norms[used], self.clip, batch)

        return self._iterate(gradient, noise, normaliser, (runs, d))

    def _record(self, q: float, std: float, n: int) -> None:
        recording = release_recorder()
        if recording is not None:  # the per-step accounting check: the noise the steps draw with
            entry = {"mechanism": "noisy_descent", "std": std, "q": q, "steps": self.steps, "clip": self.clip, "n": n}
            recording.append(entry)

    def _iterate(self, gradient, noise, normaliser: float, shape: tuple[int, int]) -> npt.NDArray[np.float64]:
        """The steps of :meth:`descend` from ``θ₀ = 0`` (shape ``(runs, d)``): ``gradient(θ)``
        the clipped sum, ``noise()`` the step's noise ``ξ_t``; the suffix average."""
        eta = self.step_size
        theta = np.zeros(shape)
        average = np.zeros(shape)
        start = self.steps // 2
        for t in range(self.steps):
            g = gradient(theta)
            theta = theta - eta * ((g + noise()) / normaliser + self.lam * theta)
            if t >= start:
                average += theta
        return average / (self.steps - start)

    def release(self, sample: Sample, *, rng: np.random.Generator, runs: int | None = None) -> np.ndarray:
        """θ (what :meth:`fit` outputs), or ``(runs, d)`` independent θ at once (the privacy
        audit's batch: one code path with ``fit``): :meth:`descend` on the sample projected
        into the unit ball."""
        X, s, norms = projected(sample)
        thetas = self.descend(X, s, runs=1 if runs is None else runs, rng=rng, x_norms=norms)
        return thetas[0] if runs is None else thetas

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> LinearClassifier:
        """One release; its diagnostic ``sigma`` is the noise std on the averaged gradient, ``ς/N``."""
        q, normaliser, std = self.step_parameters(len(sample))
        theta = self.release(sample, rng=rng)
        return LinearClassifier(theta, {"sigma": std / normaliser})

