"""The regularised logistic objective every private-ERM learner minimises ([CMS11, §3];
[BST14]), apart from any privacy machinery: the experiment, the theory and the learners
share it, and importing it costs numpy and ``scipy.special`` only.

Conventions: ``Sample.y`` is in {0, 1}; internally labels are ``s = 2y − 1 ∈ {±1}``.
Features are projected onto the unit ℓ2 ball (rows of norm > 1 are rescaled to norm 1):
a fixed per-example map, so it costs no privacy, and every sensitivity assumes it.
The objective (of the learners, and of the peers through their ``C``) is the λ-regularised
logistic risk

.. math:: J_\\lambda(\\theta; S) = \\frac1n \\sum_{i=1}^n \\ln\\big(1 + e^{-s_i \\langle\\theta, x_i\\rangle}\\big)
          + \\frac{\\lambda}{2}\\|\\theta\\|_2^2,

whose loss is 1-Lipschitz and ¼-smooth in θ for ``‖x‖ ≤ 1`` (so ``J_λ`` is λ-strongly
convex and (¼+λ)-smooth). No intercept: the targets are homogeneous halfspaces. Its exact
minimiser (:func:`minimise`, damped Newton) gives the excess risk every result reports.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.special import expit

#: Smoothness of the logistic loss in θ for ‖x‖ ≤ 1: |ℓ''| ≤ 1/4 ([CMS11]'s constant c).
LOGISTIC_SMOOTHNESS = 0.25
#: Default regularisation strength λ of every private-ERM learner (fixed a priori, public).
DEFAULT_LAM = 0.01


def unit_ball(X: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Rows of ``X`` projected onto the unit ℓ2 ball (norm > 1 rescaled to 1)."""
    return _unit_ball_and_norms(X)[0]


def _unit_ball_and_norms(X: npt.ArrayLike) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``(unit_ball(X), its row norms)``. Where no row is outside the ball, the projection is
    ``X`` itself (as float64; ``X·1`` has the same bits, and is not copied): callers must not
    write into it."""
    X = np.asarray(X, dtype=np.float64)
    norms = np.linalg.norm(X, axis=1)
    outside = norms > 1.0
    if not outside.any():
        return X, norms
    scale = np.where(outside, 1.0 / np.maximum(norms, 1e-300), 1.0)
    projected = X * scale[:, None]
    return projected, np.linalg.norm(projected, axis=1)


def projected(sample) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``(unit_ball(X), signs(y), row norms of unit_ball(X))`` of a sample, cached on it (a
    fixed per-example map of the data: every learner and the metrics of the cells that see
    the sample share one projection). Read-only by convention, like the sample."""

    def compute():
        X, norms = _unit_ball_and_norms(sample.X)
        return X, signs(sample.y), norms

    return sample.cached("logistic_projected", compute)


def signs(y: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """{0,1} labels → {−1,+1}."""
    return 2.0 * np.asarray(y, dtype=np.float64) - 1.0


def objective(theta: npt.NDArray, X: npt.NDArray, s: npt.NDArray, lam: float) -> float:
    """``J_λ(θ; S)`` (see the module docstring)."""
    margins = s * (X @ theta)
    return float(np.mean(np.logaddexp(0.0, -margins)) + 0.5 * lam * theta @ theta)


def minimise(
    X: npt.NDArray,
    s: npt.NDArray,
    lam: float,
    *,
    linear: npt.NDArray | None = None,
    weights: npt.NDArray | None = None,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> npt.NDArray[np.float64]:
    """Exact minimiser of ``J_λ(θ) + ⟨linear, θ⟩`` (strongly convex): damped Newton.

    ``linear`` is one vector ``(d,)`` (result ``(d,)``) or a batch ``(R, d)``: the ``R``
    problems are solved together (result ``(R, d)``). ``weights`` are example multiplicities
    (``J_λ`` averages the losses with weights ``w_i/Σw``; ``None``: all 1), so a sample of
    many identical rows can be passed as its distinct rows. Each problem stops when its
    gradient norm is ≤ ``tol``; the Hessian is ``Xᵀ diag(w σ'(m)) X/Σw + λI``; backtracking
    (Armijo, factor ½) per problem.
    """
    n, d = X.shape
    a = np.full(n, 1.0 / n) if weights is None else np.asarray(weights, dtype=np.float64) / np.sum(weights)
    lin = np.zeros((1, d)) if linear is None else np.atleast_2d(np.asarray(linear, dtype=np.float64))
    R = len(lin)
    theta = np.zeros((R, d))

    def values(t, l):
        return np.logaddexp(0.0, -s * (t @ X.T)) @ a + 0.5 * lam * np.einsum("ij,ij->i", t, t) + np.einsum("ij,ij->i", l, t)

    f = values(theta, lin)
    eye = lam * np.eye(d)
    for _ in range(max_iter):
        p = expit(-s * (theta @ X.T))
        grad = (-s * p * a) @ X + lam * theta + lin
        active = np.linalg.norm(grad, axis=1) > tol
        if not active.any():
            break
        curv = p * (1 - p) * a
        H = ((X.T * curv[0]) @ X + eye)[None] if R == 1 else np.einsum("rn,ni,nj->rij", curv, X, X, optimize=True) + eye
        step = np.linalg.solve(H, grad[..., None])[..., 0]
        step[~active] = 0.0
        decrease = np.einsum("ij,ij->i", grad, step)
        t = np.ones(R)
        cand = theta - step
        fc = values(cand, lin)
        retry = active & (fc > f - 1e-4 * t * decrease)
        while retry.any():
            t[retry] *= 0.5
            cand[retry] = theta[retry] - t[retry, None] * step[retry]
            fc[retry] = values(cand[retry], lin[retry] if R > 1 else lin)
            retry &= (fc > f - 1e-4 * t * decrease) & (t >= 1e-10)
        theta, f = cand, fc
    return theta[0] if linear is None or np.ndim(linear) == 1 else theta


def optimum(sample, lam: float) -> tuple[npt.NDArray, float]:
    """``(θ*, J_λ(θ*))`` of a sample, cached on it (deterministic in the data)."""

    def compute():
        X, s, _ = projected(sample)
        theta = minimise(X, s, lam)
        return theta, objective(theta, X, s, lam)

    return sample.cached(f"logistic_optimum_lam={lam!r}", compute)
