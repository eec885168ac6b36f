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
from dpbench.theory.logistic_population import population_optimum

__all__ = [
    "LOGISTIC_SMOOTHNESS",
    "gamma_norm_quantile",
    "excess_output_perturbation",
    "output_noise_second_moment",
    "pop_excess_output_perturbation",
    "pop_excess_objective_perturbation",
    "zcdp_noise_multiplier",
    "pop_excess_noisy_gd",
    "pop_excess_exp_mech_grid",
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


def pop_excess_objective_perturbation(n, epsilon, d, lam: float):
    r"""Objective perturbation's expected excess **population** risk, a bound with its
    constants (derived here), for [CMS11] Algorithm 2 with its calibration ``(ε', Δ)``
    (:func:`objective_perturbation_calibration`):

    .. math:: \mathbb E\,F_\lambda(\hat\theta) - \min F_\lambda \le
              \frac{2}{(\lambda+\Delta)n} + \frac{\mathbb E\|b\|^2}{2n^2(\lambda+\Delta)}
              + \frac{\Delta\ln 2}{\lambda},\qquad \mathbb E\|b\|^2 = d(d+1)\Big(\frac{2}{\varepsilon'}\Big)^2 .

    θ̂ minimises G(θ) = J_λ(θ; S) + ⟨b, θ⟩/n + Δ‖θ‖²/2, (λ+Δ)-strongly convex. Three terms:
    (i) for each fixed b, S ↦ θ̂ is replace-one stable with ‖θ̂(S) − θ̂(S')‖ ≤ 2/((λ+Δ)n) (the
    data term of G is (1/n)Σℓ, 1-Lipschitz for ‖x‖ ≤ 1; S. Shalev-Shwartz and S. Ben-David,
    *Understanding Machine Learning*, 2014, Corollary 13.6 with the data-independent part of G
    as the regulariser), so the expected generalisation gap E[F_λ(θ̂) − J_λ(θ̂; S)] is at most
    2/((λ+Δ)n) (their Theorem 13.2; the regulariser cancels); (ii) G(θ̂) ≤ G(θ*_S) −
    (λ+Δ)‖θ*_S − θ̂‖²/2 gives
    J_λ(θ̂) − J_λ(θ*_S) ≤ ‖b‖u/n − (λ+Δ)u²/2 + Δ‖θ*_S‖²/2 ≤
    ‖b‖²/(2n²(λ+Δ)) + Δ ln 2/λ (u = ‖θ*_S − θ̂‖; λ‖θ*_S‖²/2 ≤ J_λ(0) = ln 2); (iii)
    E[J_λ(θ*_S; S)] ≤ min F_λ. ‖b‖ ~ Gamma(d, 2/ε'), whose second moment is d(d+1)(2/ε')².
    The same law is diffprivlib's ``Vector`` mechanism (its documented objective perturbation,
    same ε' and Δ), so the bound is that peer's too. 0 noise at ε = ∞: 2/(λn)."""
    n, epsilon = np.broadcast_arrays(np.asarray(n, dtype=float), np.asarray(epsilon, dtype=float))
    eps_prime, extra = objective_perturbation_calibration(n, np.where(np.isinf(epsilon), 1.0, epsilon), lam)
    reg = lam + np.where(np.isinf(epsilon), 0.0, extra)
    second = np.where(np.isinf(epsilon), 0.0, d * (d + 1) * (2.0 / eps_prime) ** 2)
    return 2.0 / (reg * n) + second / (2 * n**2 * reg) + np.where(np.isinf(epsilon), 0.0, extra) * math.log(2) / lam


def zcdp_noise_multiplier(epsilon, delta: float, steps: int):
    r"""A noise multiplier z (std ÷ ℓ2-sensitivity) at which ``steps`` Gaussian mechanisms are
    (ε, δ)-DP by the zCDP route, in closed form: each is 1/(2z²)-zCDP, ``steps`` of them
    ρ = steps/(2z²)-zCDP, and ρ-zCDP is (ρ + 2√(ρ ln(1/δ)), δ)-DP (M. Bun and T. Steinke,
    "Concentrated differential privacy: simplifications, extensions, and lower bounds", TCC
    2016, Propositions 1.3 and 1.6), so

    .. math:: z = \sqrt{\frac{\text{steps}}{2\rho}},\qquad
              \sqrt\rho = \sqrt{\ln(1/\delta) + \varepsilon} - \sqrt{\ln(1/\delta)} .

    An RDP or PLD accountant certifies (ε, δ) with a smaller z, so a learner calibrated by one
    adds no more noise than this: a bound at this z holds for it, and is computed without the
    learner's accountant (a calibration that over-noises is not hidden by sharing its code)."""
    epsilon = np.asarray(epsilon, dtype=float)
    L = math.log(1 / delta)
    root_rho = np.sqrt(L + epsilon) - math.sqrt(L)
    with np.errstate(divide="ignore"):
        return np.where(np.isinf(epsilon), 0.0, np.sqrt(steps / 2.0) / root_rho)


def pop_excess_noisy_gd(n, d, lam: float, *, steps: int, step: float, noise_std, q: float = 1.0):
    r"""Expected excess **population** risk of noisy (stochastic) gradient descent on J_λ, with
    the suffix average of :class:`~dpbench.learners.logistic_common.NoisyGradientDescent` (the
    iterates θ_s, s = ⌊T/2⌋+1 … T, from θ₀ = 0), a bound with its constants (derived here):

    .. math:: \frac{2\eta}{n(1-\bar c)} + \frac{\beta}{2}\Big(\frac{2\ln 2}{\lambda}\,
              \overline{\kappa^{2s}} + \frac{\eta^2 V}{1-\kappa^2}\Big),\qquad
              V = \frac{1-q}{qn} + d\,\varsigma^2 .

    β = ¼ + λ is J_λ's smoothness (‖x‖ ≤ 1), η ≤ 1/β the step, κ = 1 − ηλ the contraction of
    the full-gradient step θ ↦ θ − η∇J_λ(θ) (its Jacobian's eigenvalues lie in [1 − ηβ, 1 − ηλ]),
    ς the std per coordinate of the noise on the averaged gradient (``noise_std``; Gaussian,
    independent across steps), q the Poisson sampling rate (1: full batch). The step's gradient
    is the full gradient plus a mean-zero error whose second moment is at most V (the sampling
    part Σᵢ q(1−q)‖∇ℓᵢ‖²/(qn)² ≤ (1−q)/(qn) for ‖∇ℓᵢ‖ ≤ 1: the loss gradients of unit-ball
    examples, which a clipping norm C ≥ 1 leaves unclipped), so e_s = θ_s − θ*_S obeys
    E‖e_s‖² ≤ κ²E‖e_{s−1}‖² + η²V, i.e. E‖e_s‖² ≤ κ^{2s}‖θ*_S‖² + η²V/(1 − κ²) with
    ‖θ*_S‖² ≤ 2 ln 2/λ; by convexity and smoothness (∇J_λ(θ*_S) = 0) the average's excess
    empirical risk is at most β/2 times the mean of these over the averaged s. Generalisation:
    run on S and on S with one example replaced, with the same batches and noise, the iterates
    differ by δ_s ≤ c_s δ_{s−1} + 1[i ∈ B_s]·2η/(qn), where c_s, the Lipschitz constant of the
    sampled step, is 1 − ηλ unless the batch holds more than 2qn examples (then at most
    η(1/(4q) + λ) − 1; probability ≤ (e/4)^{qn} by Chernoff's bound), so E δ ≤ 2η/(n(1 − c̄))
    with c̄ = 1 − ηλ + (e/4)^{qn}(η(1/(4q) + 2λ) − 2)₊ (q = 1: c̄ = 1 − ηλ, the bound 2/(λn);
    where c̄ ≥ 1 — a small expected batch qn — the argument gives nothing and the bound is ∞),
    and the 1-Lipschitz loss turns this into the expected generalisation gap (S. Shalev-Shwartz
    and S. Ben-David, *Understanding Machine Learning*, 2014, Theorem 13.2); E[J_λ(θ*_S; S)] ≤
    min F_λ. The gradient-descent analysis is the textbook one (e.g. R. Bassily, A. Smith and
    A. Thakurta, "Private empirical risk minimization: efficient algorithms and tight error
    bounds", FOCS 2014, §2, who take T ≈ n² steps; here T is the learner's, and the first
    term in the brackets is the optimisation error it leaves)."""
    n = np.asarray(n, dtype=float)
    beta = LOGISTIC_SMOOTHNESS + lam
    if not 0 < step <= 1 / beta:
        raise ValueError(f"step must be in (0, 1/(1/4 + lam)], got {step!r}")
    kappa = 1 - step * lam
    s = np.arange(steps // 2 + 1, steps + 1, dtype=float)
    start = 2 * math.log(2) / lam * float(np.mean(kappa ** (2 * s)))
    variance = np.where(q < 1, (1 - q) / (q * n), 0.0) + d * np.asarray(noise_std, dtype=float) ** 2
    tail = np.where(q < 1, (math.e / 4) ** (q * n), 0.0) * max(step * (1 / (4 * q) + 2 * lam) - 2, 0.0)
    margin = step * lam - tail  # 1 − c̄: the argument needs c̄ < 1 (a small batch qn can break it)
    with np.errstate(divide="ignore"):
        stability = np.where(margin > 0, 2 * step / (n * margin), np.inf)
    return stability + beta / 2 * (start + step**2 * variance / (1 - kappa**2))


def pop_excess_exp_mech_grid(n, epsilon, d, lam: float, *, points: int, radius: float, rho: float, a_star: float):
    r"""The grid exponential mechanism's expected excess **population** risk, a bound with its
    constants (derived here), on the ``logistic`` problem (margin ρ) whose population minimiser
    is θ* = a*·w (``a_star``: :func:`dpbench.theory.logistic_population.population_optimum`):

    .. math:: \Delta u\sqrt{\frac{d\ln g}{2n}} + \frac{2\Delta u\,d\ln g}{\varepsilon n}
              + \frac{\mu}{2}\Big(\big((a^*-R)_+ + \tfrac h2\big)^2 + (d-1)\tfrac{h^2}{4}\Big).

    Δu = ln(1 + e^{R√d}) bounds every candidate's loss (‖θ‖ ≤ R√d, ‖x‖ ≤ 1), g^d = |Θ_g|, h =
    2R/(g − 1) the spacing. Terms: (i) the generalisation gap of any selection from Θ_g is at most
    E max_θ (L_D − L_S)(θ), each a mean of n independent variables in an interval of width Δu,
    sub-Gaussian with variance proxy Δu²/(4n), so at most Δu√(ln|Θ_g|/(2n)) (the maximal
    inequality); (ii) the mechanism samples P(θ) ∝ exp(−εnJ_λ(θ; S)/(2Δu)), a Gibbs law, whose
    mean score is within ln|Θ_g|/(ε/(2Δu)) of the best (ln Z ≥ the best scaled score, and ln Z =
    the mean scaled score + the entropy ≤ ln|Θ_g|), i.e. E[J_λ(θ̂) − min_Θg J_λ] ≤ 2Δu d ln g/(εn)
    — the expected form of F. McSherry and K. Talwar, "Mechanism design via differential
    privacy", FOCS 2007, Theorem 6; (iii) E[min_Θg J_λ(·; S)] ≤ min_Θg F_λ, and the grid point
    nearest the box's projection of θ* is within (|θ*ᵢ| − R)₊ + h/2 of θ* on axis i, so by
    μ-smoothness of F_λ (μ = ¼λ_max(E xxᵀ) + λ, with E xxᵀ = (1−ρ)²I/(d+2) + (2ρ(1−ρ)E|u₁| + ρ²)wwᵀ
    and E|u₁| ≤ 1/√(d+2)) the gap is at most μ/2·Σᵢ((a*|wᵢ| − R)₊ + h/2)², whose maximum over
    unit w is at a coordinate vector (the summand is convex in wᵢ²), the bracket above."""
    n, epsilon = np.broadcast_arrays(np.asarray(n, dtype=float), np.asarray(epsilon, dtype=float))
    sens = float(np.logaddexp(0.0, radius * math.sqrt(d)))
    log_size = d * math.log(points)
    h = 2 * radius / (points - 1)
    second = (1 - rho) ** 2 / (d + 2) + 2 * rho * (1 - rho) / math.sqrt(d + 2) + rho**2
    mu = LOGISTIC_SMOOTHNESS * second + lam
    gap = mu / 2 * ((max(a_star - radius, 0.0) + h / 2) ** 2 + (d - 1) * h**2 / 4)
    with np.errstate(divide="ignore"):
        select = np.where(np.isinf(epsilon), 0.0, 2 * sens * log_size / (epsilon * n))
    return sens * np.sqrt(log_size / (2 * n)) + select + gap


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


#: ``ς(n, ε)``: a learner's noise std per coordinate on its averaged gradient.
NoiseOf = Callable[[npt.ArrayLike, npt.ArrayLike], npt.NDArray]

#: Legend labels (mathtext) of the population bounds.
_POP_LABELS = {
    "output_perturbation": r"bound $\frac{2}{\lambda n} + \frac{1}{2}(\frac{1}{4d}+\lambda)\mathbb{E}\|b\|^2$ (mean)",
    "objective_perturbation": (r"bound $\frac{2}{(\lambda+\Delta)n} + \frac{\mathbb{E}\|b\|^2}{2n^2(\lambda+\Delta)}"
                               r" + \frac{\Delta\ln 2}{\lambda}$ (mean)"),
    "dp_gd": (r"bound $\frac{2}{\lambda n} + \frac{\beta}{2}(\ldots + \frac{\eta^2 d\varsigma^2}{1-\kappa^2})$,"
              r" $\varsigma$ at zCDP's $z(\varepsilon)$ (mean)"),
    "dp_sgd": (r"bound $\frac{2\eta}{n(1-\bar c)} + \frac{\beta}{2}(\ldots + \frac{\eta^2 V}{1-\kappa^2})$"
               r" at its calibrated $\varsigma(\varepsilon)$ (mean)"),
    "exp_mech_grid": r"bound $\Delta u\sqrt{d\ln g/(2n)} + 2\Delta u\,d\ln g/(\varepsilon n)$ + grid gap (mean)",
}


def erm_population_rate_of(learner: str, row, *, sgd_noise: NoiseOf | None = None) -> ErmRate | None:
    """The bound with constants on the expected excess **population** risk of ``learner`` in
    the setting a results row records (``d``, ``delta``, ``rho``, ``noise`` and the learner
    parameters ``lp_*``): :func:`pop_excess_output_perturbation`,
    :func:`pop_excess_objective_perturbation` (also diffprivlib's, the same law),
    :func:`pop_excess_noisy_gd` (dp_gd at :func:`zcdp_noise_multiplier`; dp_sgd at the noise
    ``sgd_noise(n, ε)`` — the std per coordinate on its averaged gradient that its own
    calibration prescribes, which the caller supplies: the accountant is the learner's) and
    :func:`pop_excess_exp_mech_grid`. None where none is derived (a clipping norm below 1 or a
    step above 1/(¼+λ), dp_sgd without ``sgd_noise``, non-private peers)."""
    d, lam = int(row["d"]), float(_lp(row, "lam", DEFAULT_LAM))
    delta = float(row["delta"]) if row["delta"] and row["delta"] > 0 else 0.0
    if learner == "output_perturbation":
        mechanism = str(_lp(row, "mechanism", "l2_laplace"))
        return ErmRate(_POP_LABELS[learner], "bound",
                       lambda n, e: pop_excess_output_perturbation(n, e, d, lam, mechanism, delta))
    if learner in ("objective_perturbation", "diffprivlib_logreg"):
        return ErmRate(_POP_LABELS["objective_perturbation"], "bound",
                       lambda n, e: pop_excess_objective_perturbation(n, e, d, lam))
    if learner in ("dp_gd", "dp_sgd"):
        steps = int(_lp(row, "steps", 200 if learner == "dp_gd" else 300))
        clip, lr = float(_lp(row, "clip", 1.0)), float(_lp(row, "lr", 0.0))
        step = lr if lr > 0 else 1.0 / (LOGISTIC_SMOOTHNESS + lam)
        if clip < 1 or step > 1.0 / (LOGISTIC_SMOOTHNESS + lam) or delta <= 0:
            return None
        if learner == "dp_gd":
            def gd(n, e):
                noise_std = 2 * clip * zcdp_noise_multiplier(e, delta, steps) / np.asarray(n, dtype=float)
                return pop_excess_noisy_gd(n, d, lam, steps=steps, step=step, noise_std=noise_std)

            return ErmRate(_POP_LABELS[learner], "bound", gd)
        if sgd_noise is None:
            return None
        batch = int(_lp(row, "batch_size", 256))

        def sgd(n, e):
            n, e = np.broadcast_arrays(np.asarray(n, dtype=float), np.asarray(e, dtype=float))
            out = [pop_excess_noisy_gd(nn, d, lam, steps=steps, step=step, noise_std=sgd_noise(nn, ee),
                                       q=min(1.0, batch / nn)) for nn, ee in zip(n.ravel(), e.ravel())]
            return np.array(out, dtype=float).reshape(n.shape)

        return ErmRate(_POP_LABELS[learner], "bound", sgd)
    if learner == "exp_mech_grid":
        points, radius = grid_points_of(row), float(_lp(row, "radius", 4.0))
        rho, noise = float(row["rho"]), float(row["noise"])
        a_star = population_optimum(d, rho, noise, lam)[0]
        return ErmRate(_POP_LABELS[learner], "bound",
                       lambda n, e: pop_excess_exp_mech_grid(n, e, d, lam, points=points, radius=radius, rho=rho,
                                                             a_star=a_star))
    return None


def grid_points_of(row) -> int:
    """``exp_mech_grid``'s points per axis ``g`` in the setting a row records (default 7)."""
    return int(_lp(row, "points", 7))


def trivial_excess_of(rows) -> float:
    """Excess risk of the trivial predictor θ = 0: ``ln 2 − J_λ(θ*)``, with ``J_λ(θ*)`` =
    ``loss − excess_loss`` recorded per row (the median over ``rows``: a DataFrame or one row)."""
    jstar = np.asarray(rows["loss"], dtype=float) - np.asarray(rows["excess_loss"], dtype=float)
    jstar = jstar[np.isfinite(jstar)]
    return float(LN2 - np.median(jstar)) if jstar.size else math.nan
