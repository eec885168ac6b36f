"""The population value of the regularised logistic objective on the ``logistic`` problem's
distribution, by quadrature (no sampling error): the excess population risk of private ERM.

The ``logistic`` problem (:mod:`dpbench.problems.logistic`) draws ``u`` uniform in the unit
ball of :math:`\\mathbb R^d`, sets :math:`x = (1-\\rho)u + \\rho\\,\\mathrm{sign}(u_1)\\,w`
(``u_1 = ⟨w, u⟩``) and labels :math:`y = 1[\\langle w, x\\rangle > 0]` flipped with
probability η. The law of ``x`` is invariant under rotations that fix ``w``, so for
:math:`\\theta = a w + b v` (``v ⊥ w`` a unit vector, ``b = ‖θ − a w‖ ≥ 0``) the margin
:math:`\\langle\\theta, x\\rangle = a((1-\\rho)u_1 + \\rho\\,\\mathrm{sign}\\,u_1) + b(1-\\rho)u_2`
depends only on the first two coordinates of ``u``, whose joint density on the unit disk is
:math:`\\frac{d}{2\\pi}(1-r^2)^{(d-2)/2}` (the marginal of the uniform law on the ball; for
d = 1, ``u_1`` is uniform on [−1, 1]). With :math:`\\ell(m) = \\ln(1+e^{-m})` and
:math:`s = \\mathrm{sign}\\,u_1` (the reflection ``u → −u`` leaves ``s·⟨θ,x⟩`` unchanged, so
the half-disk ``u_1 > 0`` counts twice):

.. math:: F_\\lambda(\\theta) = \\frac{d}{\\pi}\\int_0^1 r(1-r^2)^{(d-2)/2}
          \\int_{-\\pi/2}^{\\pi/2} \\big[(1-\\eta)\\,\\ell(m) + \\eta\\,\\ell(-m)\\big]\\,d\\varphi\\,dr
          + \\frac{\\lambda}{2}(a^2 + b^2),
          \\qquad m = a((1-\\rho)r\\cos\\varphi + \\rho) + b(1-\\rho)r\\sin\\varphi,

computed with Gauss–Jacobi nodes in ``r`` (weight :math:`(1-r)^{(d-2)/2}`, the rest of the
weight smooth) and Gauss–Legendre nodes in φ. ``x`` lies in the unit ball, so the learners'
projection onto it is the identity. By the symmetry ``u_2 → −u_2``, F is even in ``b`` and
convex, so its minimiser is :math:`a^* w` with ``a*`` the minimiser of the one-dimensional
``F(a, 0)``.

This is the objective ``J_λ`` of :mod:`dpbench.theory.logistic_objective` with the sample
average replaced by the expectation over the problem's law: its excess
:math:`F_\\lambda(\\hat\\theta) - \\min F_\\lambda` is the excess population risk that the
population statements for private ERM bound (Chaudhuri, Monteleoni & Sarwate,
Differentially Private Empirical Risk Minimization, JMLR 12, 2011, §5; Bassily, Smith &
Thakurta, Private Empirical Risk Minimization: Efficient Algorithms and Tight Error Bounds,
FOCS 2014, §5).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize_scalar
from scipy.special import roots_jacobi, roots_legendre

__all__ = ["QUADRATURE_NODES", "population_objective", "population_optimum", "excess_population_risk"]

#: Gauss nodes per axis (r and φ; 96² points, ~0.3 ms an evaluation): the excess of a θ
#: within 60 of θ* agrees with 768 nodes per axis to a relative 10⁻⁸ (measured at d = 10,
#: ρ = 0.01; tests/test_logistic_population.py checks against Monte Carlo and more nodes)
QUADRATURE_NODES = 96


@functools.lru_cache(maxsize=16)
def _nodes(d: int, rho: float, nodes: int) -> tuple[npt.NDArray, npt.NDArray, npt.NDArray]:
    """``(z1, z2, weights)``: the quadrature's points of ``(⟨w,x⟩, ⟨v,x⟩)`` on the half-disk
    ``u_1 > 0`` and weights summing to 1 (the probability of the half-disk, doubled)."""
    if d == 1:
        t, wt = roots_legendre(nodes)
        u1 = (t + 1) / 2
        return (1 - rho) * u1 + rho, np.zeros_like(u1), wt / 2
    alpha = (d - 2) / 2
    x, wx = roots_jacobi(nodes, alpha, 0.0)  # weight (1−x)^α on [−1, 1]
    r = (x + 1) / 2
    wr = wx / 2 ** (alpha + 1) * r * (1 + r) ** alpha  # ∫₀¹ f(r) r (1−r²)^α dr = Σ wr f(r)
    p, wp = roots_legendre(nodes)
    phi = p * math.pi / 2
    wphi = wp * math.pi / 2
    R, PHI = np.meshgrid(r, phi, indexing="ij")
    W = (wr[:, None] * wphi[None, :]) * d / math.pi
    z1 = (1 - rho) * R * np.cos(PHI) + rho
    z2 = (1 - rho) * R * np.sin(PHI)
    return z1.ravel(), z2.ravel(), W.ravel()


def _loss(a: float, b: float, d: int, rho: float, noise: float, nodes: int) -> float:
    z1, z2, w = _nodes(int(d), float(rho), int(nodes))
    m = a * z1 + b * z2
    return float(w @ ((1 - noise) * np.logaddexp(0.0, -m) + noise * np.logaddexp(0.0, m)))


def population_objective(theta: npt.ArrayLike, w: npt.ArrayLike, *, rho: float, noise: float, lam: float,
                         nodes: int = QUADRATURE_NODES) -> float:
    """:math:`F_\\lambda(\\theta)` on the ``logistic`` problem with target ``w`` (module doc)."""
    theta, w = np.asarray(theta, dtype=float), np.asarray(w, dtype=float)
    w = w / np.linalg.norm(w)
    a = float(theta @ w)
    b = float(np.linalg.norm(theta - a * w))
    return _loss(a, b, len(w), rho, noise, nodes) + 0.5 * lam * (a * a + b * b)


@functools.lru_cache(maxsize=64)
def population_optimum(d: int, rho: float, noise: float, lam: float, nodes: int = QUADRATURE_NODES) -> tuple[float, float]:
    """``(a*, min F_λ)``: the minimiser ``a* w`` of the population objective (module doc) and
    its value, by Brent's method on the convex ``a ↦ F_λ(a w)`` to 10⁻¹² in ``a``."""
    f = lambda a: _loss(a, 0.0, d, rho, noise, nodes) + 0.5 * lam * a * a  # noqa: E731
    hi = math.sqrt(2 * math.log(2) / lam)  # F(0) = ln 2 ≥ λa*²/2
    res = minimize_scalar(f, bounds=(0.0, hi), method="bounded", options={"xatol": 1e-12, "maxiter": 500})
    return float(res.x), float(res.fun)


def excess_population_risk(theta: npt.ArrayLike, w: npt.ArrayLike, *, rho: float, noise: float, lam: float,
                           nodes: int = QUADRATURE_NODES) -> float:
    """:math:`F_\\lambda(\\theta) - \\min F_\\lambda` (≥ 0 up to rounding, clipped at 0)."""
    _, best = population_optimum(len(np.atleast_1d(w)), float(rho), float(noise), float(lam), nodes)
    return max(population_objective(theta, w, rho=rho, noise=noise, lam=lam, nodes=nodes) - best, 0.0)
