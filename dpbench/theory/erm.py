"""Excess-risk rates of private empirical risk minimisation ([CMS11]; [BST14]).

All rates are for the λ-regularised logistic objective ``J_λ`` of
:mod:`dpbench.learners.logistic_common` (loss 1-Lipschitz and ¼-smooth for ``‖x‖ ≤ 1``,
``J_λ`` λ-strongly convex and ``(¼+λ)``-smooth), and bound the *excess empirical risk*
``J_λ(θ̂; S) − J_λ(θ*; S)``. ``excess_output_perturbation`` and
``excess_objective_perturbation`` are proven high-probability bounds (failure probability
``beta``) derived here from the mechanisms' noise laws; ``excess_dp_gd``/``excess_dp_sgd``
are the optimal-rate shapes of Bassily–Smith–Thakurta (unit constants) and
``excess_exp_mech_grid`` is the exponential-mechanism utility theorem relative to the best
grid point. ``Γ⁻¹_d(1−β)`` is the (1−β)-quantile of a Gamma(d, 1) variable (the norm of the
ℓ2-Laplace noise ``p(b) ∝ e^{−‖b‖}`` in ``R^d``).

References
----------
.. [CMS11] Chaudhuri, Monteleoni & Sarwate, JMLR 2011 (output and objective perturbation).
.. [BST14] Bassily, Smith & Thakurta, FOCS 2014 (tight rates; noisy GD; exponential mechanism).
.. [MT07] McSherry & Talwar, FOCS 2007 (exponential-mechanism utility).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.special import gammaincinv

from dpbench.mechanisms.gaussian import GaussianMechanism
from dpbench.theory.logistic_objective import DEFAULT_LAM, LOGISTIC_SMOOTHNESS

__all__ = [
    "LOGISTIC_SMOOTHNESS",
    "gamma_norm_quantile",
    "excess_output_perturbation",
    "output_noise_second_moment",
    "pop_excess_output_perturbation",
    "objective_perturbation_calibration",
    "excess_objective_perturbation",
    "excess_dp_gd",
    "excess_dp_sgd",
    "excess_exp_mech_grid",
    "runtime_linear",
    "ERM_BETA",
    "TRIVIAL_TEST_ERROR",
    "ErmRate",
    "erm_rate_of",
    "erm_population_rate_of",
    "grid_points_of",
    "trivial_excess_of",
]


def gamma_norm_quantile(d, beta: float):
    """``Γ⁻¹_d(1−β)``: ``‖b‖ ≤ scale·Γ⁻¹_d(1−β)`` w.p. ``1−β`` when ``p(b) ∝ e^{−‖b‖/scale}`` in ``R^d``
    (the Gamma(d, 1) quantile, i.e. the inverse of the regularised lower incomplete gamma
    function: scipy.special, which the planner imports anyway, not scipy.stats)."""
    return gammaincinv(np.asarray(d, dtype=float), 1 - beta)


def excess_output_perturbation(n, epsilon, d, lam: float, beta: float = 0.1):
    """Output perturbation [CMS11, Alg. 1], w.p. ``1 − β``:

    .. math:: J_\\lambda(\\theta^*+b) - J_\\lambda(\\theta^*) \\le \\frac{1/4+\\lambda}{2}\\,
              \\Big(\\frac{2}{n\\lambda\\varepsilon}\\,\\Gamma^{-1}_d(1-\\beta)\\Big)^2
              = O\\Big(\\frac{d^2}{n^2\\lambda^2\\varepsilon^2}\\Big),

    from smoothness at the minimiser (``∇J_λ(θ*) = 0``) and ``‖b‖ ~ Γ(d, 2/(nλε))``.
    Exponents: −2 in n, −2 in ε.
    """
    n, epsilon = np.asarray(n, dtype=float), np.asarray(epsilon, dtype=float)
    radius = 2.0 / (n * lam * epsilon) * gamma_norm_quantile(d, beta)
    return (LOGISTIC_SMOOTHNESS + lam) / 2 * radius**2


def output_noise_second_moment(n, epsilon, d, lam: float, mechanism: str = "l2_laplace", delta: float = 0.0):
    r""":math:`\mathbb E\|b\|^2` of output perturbation's noise at sensitivity Δ = 2/(nλ):
    :math:`d(d+1)(\Delta/\varepsilon)^2` for the ℓ2-Laplace law (‖b‖ ~ Γ(d, Δ/ε), whose second
    moment is d(d+1) scale²), :math:`d\sigma^2` for the Gaussian mechanism (σ from
    :class:`~dpbench.mechanisms.gaussian.GaussianMechanism`, the learner's own calibration);
    0 at ε = ∞."""
    n, epsilon = np.broadcast_arrays(np.asarray(n, dtype=float), np.asarray(epsilon, dtype=float))
    sens = 2.0 / (n * lam)
    if mechanism == "gaussian":
        sigma = np.array([GaussianMechanism(epsilon=float(e), delta=delta, sensitivity=float(s)).sigma
                          for e, s in zip(epsilon.ravel(), sens.ravel())]).reshape(n.shape)
        return d * sigma**2
    with np.errstate(divide="ignore"):
        return np.where(np.isinf(epsilon), 0.0, d * (d + 1) * (sens / epsilon) ** 2)


def pop_excess_output_perturbation(n, epsilon, d, lam: float, mechanism: str = "l2_laplace", delta: float = 0.0):
    r"""Output perturbation's expected excess **population** risk, a bound with its
    constants (derived here):

    .. math:: \mathbb E\,F_\lambda(\theta^*_S + b) - \min F_\lambda
              \le \frac{2}{\lambda n} + \frac12\Big(\frac{1}{4d} + \lambda\Big)\,\mathbb E\|b\|^2 .

    F_λ is the population value of J_λ (λ-strongly convex; ‖x‖ ≤ 1). Its Hessian is
    E[σ'(·) x xᵀ] + λI ⪯ M = ¼E[x xᵀ] + λI (σ' ≤ ¼) everywhere, so by Taylor's theorem
    F_λ(θ*_S + b) ≤ F_λ(θ*_S) + ⟨∇F_λ(θ*_S), b⟩ + ½ bᵀMb. The middle term has expectation 0
    (b is drawn independently of S with mean 0), and b's direction is uniform and independent
    of its norm (ℓ2-Laplace and isotropic Gaussian), so E[bᵀMb] = E‖b‖²·tr(M)/d ≤
    E‖b‖²(1/(4d) + λ) (tr E[x xᵀ] = E‖x‖² ≤ 1). The non-private minimiser's excess is at most
    2/(λn): replacing one example moves θ*_S by at most 2/(λn) (the sensitivity the mechanism
    is calibrated to; K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially private
    empirical risk minimization", JMLR 12, 2011, Corollary 8), so for the 1-Lipschitz loss the
    expected generalisation gap E[F_λ(θ*_S) − J_λ(θ*_S; S)] is at most 2/(λn) (replace-one
    stability: S. Shalev-Shwartz and S. Ben-David, *Understanding Machine Learning*, 2014,
    Theorem 13.2), while E[J_λ(θ*_S; S)] ≤ E[J_λ(θ*_F; S)] = min F_λ. E‖b‖²:
    :func:`output_noise_second_moment`. A bound on the **mean** over samples and noise,
    checked on the mean over repetitions."""
    n = np.asarray(n, dtype=float)
    curvature = 1.0 / (4 * d) + lam
    return 2.0 / (lam * n) + curvature / 2 * output_noise_second_moment(n, epsilon, d, lam, mechanism, delta)


def objective_perturbation_calibration(n, epsilon, lam: float, c: float = LOGISTIC_SMOOTHNESS):
    """``(ε', Δ)`` of [CMS11] Algorithm 2, vectorised (see ``objective_perturbation``)."""
    n, epsilon = np.broadcast_arrays(np.asarray(n, dtype=float), np.asarray(epsilon, dtype=float))
    eps_prime = epsilon - np.log1p(2 * c / (n * lam) + c**2 / (n * lam) ** 2)
    extra = np.where(eps_prime > 0, 0.0, np.maximum(0.0, c / (n * np.expm1(epsilon / 4)) - lam))
    return np.where(eps_prime > 0, eps_prime, epsilon / 2), extra


def excess_objective_perturbation(n, epsilon, d, lam: float, beta: float = 0.1):
    """Objective perturbation [CMS11, Alg. 2], w.p. ``1 − β``:

    .. math:: J_\\lambda(\\hat\\theta) - J_\\lambda(\\theta^*) \\le
              \\frac{\\|b\\|^2}{n^2(\\lambda+\\Delta)} + \\frac{\\Delta \\ln 2}{\\lambda},\\qquad
              \\|b\\| \\le \\frac{2}{\\varepsilon'}\\Gamma^{-1}_d(1-\\beta),

    (first-order optimality and (λ+Δ)-strong convexity of the perturbed objective;
    ``λ‖θ*‖²/2 ≤ J_λ(0) = ln 2``). Once ``Δ = 0`` (``ε' > 0``): ``O(d²/(n²λε²))``, exponents
    −2 in n and ε.
    """
    n, epsilon = np.asarray(n, dtype=float), np.asarray(epsilon, dtype=float)
    eps_prime, extra = objective_perturbation_calibration(n, epsilon, lam)
    b = 2.0 / eps_prime * gamma_norm_quantile(d, beta)
    return b**2 / (n**2 * (lam + extra)) + extra * math.log(2) / lam


def excess_dp_gd(n, epsilon, d, lam: float, delta: float):
    """Noisy gradient descent, strongly convex case [BST14, Thm 2.4(2)] (shape, unit constant):

    .. math:: \\frac{d\\,\\ln(1/\\delta)}{\\lambda\\, n^2 \\varepsilon^2}

    (up to log n factors; exponents −2 in n and ε). Attained with T ≈ n² steps; the fixed
    T of the benchmark adds an optimisation error that does not shrink with n.
    """
    n, epsilon = np.asarray(n, dtype=float), np.asarray(epsilon, dtype=float)
    return d * math.log(1 / delta) / (lam * n**2 * epsilon**2)


def excess_dp_sgd(n, epsilon, d, lam: float, delta: float):
    """DP-SGD: the same optimal shape as :func:`excess_dp_gd` [BST14, Thm 2.4, with sampling];
    with a fixed number of steps and batch size the SGD variance adds a floor."""
    return excess_dp_gd(n, epsilon, d, lam, delta)


def excess_exp_mech_grid(n, epsilon, d, points: int, radius: float, beta: float = 0.1):
    """Exponential mechanism over the grid ``{−R..R}^d`` (``g = points`` per axis) [MT07]:
    w.p. ``1 − β`` (relative to the best grid point)

    .. math:: J_\\lambda(\\hat\\theta) - \\min_{\\Theta_g} J_\\lambda \\le
              \\frac{2\\,\\ln(1+e^{R\\sqrt d})\\,(d\\ln g + \\ln(1/\\beta))}{\\varepsilon n},

    exponents −1 in n and ε (not −2: the mechanism does not use strong convexity).
    """
    n, epsilon = np.asarray(n, dtype=float), np.asarray(epsilon, dtype=float)
    sens = float(np.logaddexp(0.0, radius * math.sqrt(d)))
    return 2 * sens * (d * math.log(points) + math.log(1 / beta)) / (epsilon * n)


def runtime_linear(n, d, *, steps: int = 1, points: int | None = None, seconds_per_flop: float = 1e-9):
    """Cost model (shape): ``n·d·steps`` for gradient methods; ``n·g^d`` for the grid
    exponential mechanism (exponential in d). Exponent 1 in n."""
    n = np.asarray(n, dtype=float)
    d = np.asarray(d, dtype=float)
    if points is not None:
        return seconds_per_flop * n * float(points) ** d * d
    return seconds_per_flop * n * d * steps


# --------------------------------------------------------------------------- per results row

#: Failure probability of the high-probability bounds drawn and checked for ``private_erm``.
ERM_BETA = 0.1
#: Test error of the best constant predictor on ``logistic``: the target halfspace passes
#: through the origin and the input law is symmetric, so each label has probability ½.
TRIVIAL_TEST_ERROR = 0.5
#: ``J_λ(0) = ln 2``: the excess risk of the trivial predictor θ = 0 is ``ln 2 − J_λ(θ*)``.
LN2 = math.log(2.0)


@dataclass(frozen=True)
class ErmRate:
    """The theory curve of one private-ERM learner in one setting: ``excess(n, ε)``, its
    ``kind`` (``bound``: proven, checked against the data; ``shape``: unit constants, drawn
    only) and a legend ``label`` (mathtext)."""

    label: str
    kind: str
    excess: Callable[[npt.ArrayLike, npt.ArrayLike], npt.NDArray]


def _lp(row, name: str, default):
    """A learner parameter recorded as ``lp_<name>`` (:func:`dpbench.theory_check.analysis.with_learner_params`)."""
    value = row.get(f"lp_{name}") if hasattr(row, "get") else None
    return default if value is None or (isinstance(value, float) and math.isnan(value)) else value


def erm_rate_of(learner: str, row) -> ErmRate | None:
    """The excess-risk rate of ``learner`` in the setting a results row records (``d``,
    ``delta`` and the learner parameters ``lp_lam``, ``lp_mechanism``, ``lp_points``,
    ``lp_radius``), β = :data:`ERM_BETA`; None for learners without one (non-private peers,
    output perturbation with Gaussian noise)."""
    d = int(row["d"])
    lam = float(_lp(row, "lam", DEFAULT_LAM))
    delta = float(row["delta"]) if row["delta"] and row["delta"] > 0 else 1e-5
    if learner == "output_perturbation" and _lp(row, "mechanism", "l2_laplace") != "gaussian":
        return ErmRate(r"bound $\frac{1/4+\lambda}{2}(2\Gamma^{-1}_d(1-\beta)/(n\lambda\varepsilon))^2$", "bound",
                       lambda n, e: excess_output_perturbation(n, e, d, lam, ERM_BETA))
    if learner == "objective_perturbation":
        return ErmRate(r"bound $\|b\|^2/(n^2(\lambda+\Delta)) + \Delta\ln 2/\lambda$", "bound",
                       lambda n, e: excess_objective_perturbation(n, e, d, lam, ERM_BETA))
    if learner == "diffprivlib_logreg":  # objective perturbation too, but not our implementation
        return ErmRate(r"bound $\|b\|^2/(n^2(\lambda+\Delta)) + \Delta\ln 2/\lambda$ (shape: not our implementation)", "shape",
                       lambda n, e: excess_objective_perturbation(n, e, d, lam, ERM_BETA))
    if learner in ("dp_gd", "dp_sgd"):
        return ErmRate(r"shape $d\ln(1/\delta)/(\lambda n^2\varepsilon^2)$", "shape",
                       lambda n, e: excess_dp_gd(n, e, d, lam, delta))
    if learner == "exp_mech_grid":
        points, radius = grid_points_of(row), float(_lp(row, "radius", 4.0))
        return ErmRate(r"shape $2\ln(1+e^{R\sqrt{d}})(d\ln g+\ln(1/\beta))/(\varepsilon n)$", "shape",
                       lambda n, e: excess_exp_mech_grid(n, e, d, points, radius, ERM_BETA))
    return None


def erm_population_rate_of(learner: str, row) -> ErmRate | None:
    """The bound with constants on the expected excess **population** risk of ``learner`` in
    the setting a results row records (:func:`pop_excess_output_perturbation`); None where
    none is derived (the other learners' population rows stay sanity checks against their
    training rates' shapes)."""
    if learner != "output_perturbation":
        return None
    d, lam = int(row["d"]), float(_lp(row, "lam", DEFAULT_LAM))
    mechanism = str(_lp(row, "mechanism", "l2_laplace"))
    delta = float(row["delta"]) if row["delta"] and row["delta"] > 0 else 0.0
    return ErmRate(r"bound $\frac{2}{\lambda n} + \frac{1}{2}(\frac{1}{4d}+\lambda)\mathbb{E}\|b\|^2$ (mean)", "bound",
                   lambda n, e: pop_excess_output_perturbation(n, e, d, lam, mechanism, delta))


def grid_points_of(row) -> int:
    """``exp_mech_grid``'s points per axis ``g`` in the setting a row records (default 7)."""
    return int(_lp(row, "points", 7))


def trivial_excess_of(rows) -> float:
    """Excess risk of the trivial predictor θ = 0: ``ln 2 − J_λ(θ*)``, with ``J_λ(θ*)`` =
    ``loss − excess_loss`` recorded per row (the median over ``rows``: a DataFrame or one row)."""
    jstar = np.asarray(rows["loss"], dtype=float) - np.asarray(rows["excess_loss"], dtype=float)
    jstar = jstar[np.isfinite(jstar)]
    return float(LN2 - np.median(jstar)) if jstar.size else math.nan
