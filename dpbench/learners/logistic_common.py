"""Shared pieces of the private-ERM learners (algorithms.md §6; 003 §3–5).

Conventions: ``Sample.y`` is in {0, 1}; internally labels are ``s = 2y − 1 ∈ {±1}``.
Features are projected onto the unit ℓ2 ball (rows of norm > 1 are rescaled to norm 1):
a fixed per-example map, so it costs no privacy, and every sensitivity below assumes it.
The objective of every learner (and of the peers, through their ``C``) is the
λ-regularised logistic risk

.. math:: J_\\lambda(\\theta; S) = \\frac1n \\sum_{i=1}^n \\ln\\big(1 + e^{-s_i \\langle\\theta, x_i\\rangle}\\big)
          + \\frac{\\lambda}{2}\\|\\theta\\|_2^2,

whose loss is 1-Lipschitz and ¼-smooth in θ for ``‖x‖ ≤ 1`` (so ``J_λ`` is λ-strongly
convex and (¼+λ)-smooth). No intercept: the targets are homogeneous halfspaces.

Also here: the exact minimiser (Newton with backtracking), per-example gradient clipping,
the linear predictor, and the noise-multiplier calibrations of ``dp_gd`` (T-fold Gaussian)
and ``dp_sgd`` (T-fold Poisson-subsampled Gaussian) on ``dp-accounting``'s RDP accountant.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import ClassVar

import dp_accounting
import numpy as np
import numpy.typing as npt
from dp_accounting import rdp
from scipy.special import expit

from dpbench.learners.base import Learner
from dpbench.mechanisms.accounting import RDP_ORDERS, largest_per_step
from dpbench.validation import check_delta, check_epsilon, check_positive_int

#: Smoothness of the logistic loss in θ for ‖x‖ ≤ 1: |ℓ''| ≤ 1/4 (CMS11's constant c).
LOGISTIC_SMOOTHNESS = 0.25
#: Default regularisation strength λ of every private-ERM learner (fixed a priori, public).
DEFAULT_LAM = 0.01


@dataclass(frozen=True)
class LinearClassifier:
    """``h(x) = 1[⟨θ, x⟩ > 0]``; ``diagnostics`` are recorded in the results row."""

    theta: npt.NDArray[np.float64]
    diagnostics: dict = field(default_factory=dict, compare=False)

    def predict(self, X: npt.NDArray) -> npt.NDArray[np.uint8]:
        return (np.asarray(X, dtype=np.float64) @ self.theta > 0).astype(np.uint8)


def unit_ball(X: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Rows of ``X`` projected onto the unit ℓ2 ball (norm > 1 rescaled to 1)."""
    X = np.asarray(X, dtype=np.float64)
    norms = np.linalg.norm(X, axis=1)
    scale = np.where(norms > 1.0, 1.0 / np.maximum(norms, 1e-300), 1.0)
    return X * scale[:, None]


def signs(y: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """{0,1} labels → {−1,+1}."""
    return 2.0 * np.asarray(y, dtype=np.float64) - 1.0


def objective(theta: npt.NDArray, X: npt.NDArray, s: npt.NDArray, lam: float) -> float:
    """``J_λ(θ; S)`` (see the module docstring)."""
    margins = s * (X @ theta)
    return float(np.mean(np.logaddexp(0.0, -margins)) + 0.5 * lam * theta @ theta)


def loss_coefficients(theta: npt.NDArray, X: npt.NDArray, s: npt.NDArray) -> npt.NDArray:
    """``c_i`` with ``∇ℓ_i(θ) = c_i x_i``: ``c_i = −s_i σ(−s_i⟨θ, x_i⟩)``."""
    return -s * expit(-s * (X @ theta))


def clipped_gradient_sum(theta: npt.NDArray, X: npt.NDArray, s: npt.NDArray, x_norms: npt.NDArray, clip: float | None) -> npt.NDArray:
    """``Σ_i clip_C(∇ℓ_i(θ))`` with ``clip_C(g) = g·min(1, C/‖g‖)`` (``clip=None``: no clipping).

    The per-example gradient is ``c_i x_i``, so its norm is ``|c_i|·‖x_i‖`` and clipping is
    a per-example rescaling of ``c_i``: two matrix–vector products per call.
    """
    c = loss_coefficients(theta, X, s)
    if clip is not None:
        norms = np.abs(c) * x_norms
        c = c * np.minimum(1.0, clip / np.maximum(norms, 1e-300))
    return X.T @ c


def minimise(
    X: npt.NDArray,
    s: npt.NDArray,
    lam: float,
    *,
    linear: npt.NDArray | None = None,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> npt.NDArray[np.float64]:
    """Exact minimiser of ``J_λ(θ) + ⟨linear, θ⟩`` (strongly convex): damped Newton.

    Stops when the gradient norm is ≤ ``tol``; the Hessian is ``XᵀDX/n + λI``.
    """
    n, d = X.shape
    lin = np.zeros(d) if linear is None else np.asarray(linear, dtype=np.float64)
    theta = np.zeros(d)

    def value(t):
        return objective(t, X, s, lam) + lin @ t

    f = value(theta)
    for _ in range(max_iter):
        m = s * (X @ theta)
        p = expit(-m)
        grad = X.T @ (-s * p) / n + lam * theta + lin
        if np.linalg.norm(grad) <= tol:
            break
        w = p * (1 - p)
        H = (X.T * w) @ X / n + lam * np.eye(d)
        step = np.linalg.solve(H, grad)
        t = 1.0
        while True:
            cand = theta - t * step
            fc = value(cand)
            if fc <= f - 1e-4 * t * grad @ step or t < 1e-10:
                break
            t *= 0.5
        theta, f = cand, fc
    return theta


def optimum(sample, lam: float) -> tuple[npt.NDArray, float]:
    """``(θ*, J_λ(θ*))`` of a sample, cached on it (deterministic in the data)."""

    def compute():
        X, s = unit_ball(sample.X), signs(sample.y)
        theta = minimise(X, s, lam)
        return theta, objective(theta, X, s, lam)

    return sample.cached(f"logistic_optimum_lam={lam!r}", compute)


def uniform_direction(d: int, *, rng: np.random.Generator) -> npt.NDArray:
    z = rng.standard_normal(d)
    return z / np.linalg.norm(z)


def l2_laplace_noise(d: int, scale: float, *, rng: np.random.Generator) -> npt.NDArray:
    """``b`` with density ``∝ exp(−‖b‖/scale)``: ``‖b‖ ~ Γ(d, scale)``, direction uniform."""
    return rng.gamma(d, scale) * uniform_direction(d, rng=rng)


# ----------------------------------------------------------------------- accounting


#: RDP orders for the subsampled Gaussian: its RDP at fractional/huge orders is costly to
#: evaluate (~0.3 s per call with dp-accounting's default orders); these integer orders
#: cost ~3 ms per call and give the same ε as the defaults at (q = 0.0256, T = 300,
#: δ = 1e-5) for noise multipliers 0.5–20 (measured). Fewer orders can only make ε larger
#: (an upper bound on the minimum over a superset), never invalid.
SGD_ORDERS: tuple[float, ...] = (2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 48, 64, 96, 128)


def _rdp_epsilon(event: dp_accounting.DpEvent, delta: float, relation, orders=RDP_ORDERS) -> float:
    acc = rdp.RdpAccountant(orders=list(orders), neighboring_relation=relation)
    acc.compose(event)
    return float(acc.get_epsilon(delta))


def gd_epsilon(noise_multiplier: float, steps: int, delta: float) -> float:
    """ε at δ of ``steps`` Gaussian mechanisms with noise multiplier σ/Δ₂ (replace-one)."""
    event = dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(noise_multiplier), steps)
    return _rdp_epsilon(event, delta, dp_accounting.NeighboringRelation.REPLACE_ONE)


def sgd_epsilon(noise_multiplier: float, q: float, steps: int, delta: float) -> float:
    """ε at δ of ``steps`` Poisson-subsampled (rate q) Gaussian mechanisms (add/remove-one)."""
    inner = dp_accounting.GaussianDpEvent(noise_multiplier)
    event = inner if q >= 1 else dp_accounting.PoissonSampledDpEvent(q, inner)
    return _rdp_epsilon(dp_accounting.SelfComposedDpEvent(event, steps), delta, dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE, SGD_ORDERS)


@functools.lru_cache(maxsize=4096)
def calibrate_gd(epsilon: float, delta: float, steps: int) -> tuple[float, float]:
    """``(z, ε_achieved)``: smallest noise multiplier (to 0.1%) with ``gd_epsilon ≤ ε``."""
    cal = largest_per_step(lambda inv_z: gd_epsilon(1 / inv_z, steps, delta), epsilon=epsilon, delta=delta, upper=1e2, rtol=1e-3)
    z = 1 / cal.per_step
    achieved = gd_epsilon(z, steps, delta)
    assert achieved <= epsilon, (achieved, epsilon)
    return z, achieved


@functools.lru_cache(maxsize=4096)
def calibrate_sgd(epsilon: float, delta: float, q: float, steps: int) -> tuple[float, float]:
    """``(z, ε_achieved)``: smallest noise multiplier (to 0.1%) with ``sgd_epsilon ≤ ε``."""
    cal = largest_per_step(lambda inv_z: sgd_epsilon(1 / inv_z, q, steps, delta), epsilon=epsilon, delta=delta, upper=1e2, rtol=1e-3)
    z = 1 / cal.per_step
    achieved = sgd_epsilon(z, q, steps, delta)
    assert achieved <= epsilon, (achieved, epsilon)
    return z, achieved


def check_lam(lam: float) -> float:
    if isinstance(lam, bool) or not isinstance(lam, (int, float)) or not (lam > 0 and math.isfinite(lam)):
        raise ValueError(f"lam must be a finite number > 0, got {lam!r}")
    return float(lam)


def check_clip(clip: float) -> float:
    if isinstance(clip, bool) or not isinstance(clip, (int, float)) or not (clip > 0 and math.isfinite(clip)):
        raise ValueError(f"clip must be a finite number > 0, got {clip!r}")
    return float(clip)


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
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))
        if not math.isinf(self.epsilon) and self.delta == 0:
            raise ValueError(f"delta must be > 0 for {self.name} at finite epsilon, got 0.0")
        object.__setattr__(self, "lam", check_lam(self.lam))
        object.__setattr__(self, "steps", check_positive_int(self.steps, name="steps"))
        object.__setattr__(self, "clip", check_clip(self.clip))
        if isinstance(self.lr, bool) or not isinstance(self.lr, (int, float)) or not (self.lr >= 0 and math.isfinite(self.lr)):
            raise ValueError(f"lr must be a finite number >= 0, got {self.lr!r}")

    @property
    def step_size(self) -> float:
        return self.lr if self.lr > 0 else 1.0 / (LOGISTIC_SMOOTHNESS + self.lam)

