"""Theoretical regret and excess-loss bounds for the experts family ([DR14, §11.2–11.3]; [AFKT23]).

All regrets are *average* (per-round) regrets, ``(1/T)(Σ_t ℓ^t_{a_t} − min_i Σ_t ℓ^t_i)``,
with losses in [0, 1]. Functions are vectorised in ``T`` and ``epsilon``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpbench.mechanisms.accounting import compose_pure_dp, largest_per_step

__all__ = [
    "regret_hedge",
    "regret_rwm",
    "regret_private_rwm",
    "regret_private_rwm_hp",
    "regret_private_mw_001",
    "regret_sv_experts",
    "sv_switches",
    "sv_epsilon_step",
    "sv_threshold",
    "sv_regret_bound",
    "sv_failure_probability",
    "rate_linear_learner",
    "excess_linear_learner_bound",
    "eta_linear_learner",
    "excess_linear_learner_bound_eps",
    "regret_lower_bound_coin",
    "trivial_regret",
    "trivial_regret_of",
    "eta_at",
    "ExpertsRate",
    "experts_rate_of",
    "linear_learner_rate_of",
    "linear_learner_eps_rate_of",
    "EXPERTS_BETA",
]

#: failure probability of the high-probability bounds of the experts family.
EXPERTS_BETA = 0.1


def regret_hedge(T: npt.ArrayLike, eta: npt.ArrayLike, k: int) -> npt.NDArray:
    """Expected regret of RWM with rate η on any oblivious sequence ([DR14, Thm 11.1]).

    .. math:: \\mathbb{E}[\\mathrm{Regret}] \\le \\eta + \\frac{\\ln k}{\\eta T}

    Valid for every η > 0 (so also for the private calibrations); it bounds the
    ``expected_regret`` column exactly (no sampling error).
    """
    T, eta = np.asarray(T, dtype=float), np.asarray(eta, dtype=float)
    return eta + math.log(k) / (eta * T)


def regret_rwm(T: npt.ArrayLike, k: int) -> npt.NDArray:
    """[DR14, Thm 11.1] at ``η = sqrt(ln k/T)``: :math:`2\\sqrt{\\ln k / T}` (exponent −½ in T)."""
    return 2 * np.sqrt(math.log(k) / np.asarray(T, dtype=float))


def regret_private_rwm(T: npt.ArrayLike, epsilon: npt.ArrayLike, delta: float, k: int) -> npt.NDArray:
    """[DR14, Thm 11.3]: :math:`\\sqrt{128\\ln(1/\\delta)}\\,\\ln k/(\\varepsilon\\sqrt T)` for
    ``η = ε/sqrt(32 T ln(1/δ))`` (exponent −½ in T, −1 in ε)."""
    T, epsilon = np.asarray(T, dtype=float), np.asarray(epsilon, dtype=float)
    return math.sqrt(128 * math.log(1 / delta)) * math.log(k) / (epsilon * np.sqrt(T))


def regret_private_rwm_hp(T: npt.ArrayLike, epsilon: npt.ArrayLike, delta: float, k: int, beta: float) -> npt.NDArray:
    """[DR14, Thm 11.4] (w.p. 1−β): Thm 11.3's bound plus :math:`\\sqrt{\\ln(k/\\beta)/T}`."""
    return regret_private_rwm(T, epsilon, delta, k) + np.sqrt(math.log(k / beta) / np.asarray(T, dtype=float))


def regret_private_mw_001(T: npt.ArrayLike, epsilon: npt.ArrayLike, k: int) -> npt.NDArray:
    """[NotesPAC, Thms 2–3]: MW with :math:`\\alpha = \\sqrt{\\varepsilon/(12T)}` has average regret
    :math:`\\le \\alpha + \\ln K/(\\alpha T) = O(\\ln K/\\sqrt{\\varepsilon T})`."""
    T, epsilon = np.asarray(T, dtype=float), np.asarray(epsilon, dtype=float)
    alpha = np.sqrt(epsilon / (12 * T))
    return alpha + math.log(k) / (alpha * T)


def regret_sv_experts(T: npt.ArrayLike, epsilon: npt.ArrayLike, k: int, beta: float = 0.1) -> npt.NDArray:
    """**[reconstructed]** the O(·) shape of ``sv_experts`` on realizable sequences
    (δ = 0 calibration ε_s = ε/(2K), K = ⌈log₂ k⌉ + 1, Λ = 1 + (6/ε_s) ln(2T/β)):

    .. math:: \\mathrm{Regret} \\le \\frac{(K+1)\\,(\\Lambda + (4/\\varepsilon_s)\\ln(2T/\\beta))}{T}
        = \\tilde O\\Big(\\frac{\\log^2 k \\,\\log T}{\\varepsilon T}\\Big)

    (exponent ≈ −1 in T). Asi et al. (COLT 2023) prove total regret
    :math:`\\tilde O(\\log^{1.5} k/\\varepsilon)` for their algorithm. The bound with constants
    that the theory check uses on the realizable instance is :func:`sv_regret_bound`.
    """
    T, epsilon = np.asarray(T, dtype=float), np.asarray(epsilon, dtype=float)
    K = sv_switches(k)
    eps_s = epsilon / (2 * K)
    lam = 1 + 6 / eps_s * np.log(2 * T / beta)
    return (K + 1) * (lam + 4 / eps_s * np.log(2 * T / beta)) / T


# --------------------------------------------------------------------------- sv_experts' calibration and bound


def sv_switches(k: int) -> int:
    """``sv_experts``' switch budget :math:`K = \\lceil\\log_2 k\\rceil + 1` (K sparse-vector
    instances and K exponential-mechanism switches)."""
    return math.ceil(math.log2(k)) + 1


@functools.lru_cache(maxsize=1024)
def sv_epsilon_step(epsilon: float, delta: float, k: int) -> tuple[float, float]:
    """``(ε_s, composed ε)``: the per-mechanism budget of ``sv_experts``' 2K ε_s-DP mechanisms
    (:func:`sv_switches`): ε/(2K) by basic composition, or for δ > 0 the larger ε_s that
    :func:`~dpbench.mechanisms.accounting.compose_pure_dp` (min of basic, advanced composition
    [DRV10] and the zCDP route) certifies at (ε, δ). ε = ∞: (∞, ∞). Kept per (ε, δ, k) in
    the process: the theory check, the figures and the learner ask for the same few ε, each a
    search over the RDP accountant."""
    if math.isinf(epsilon):
        return math.inf, math.inf
    steps = 2 * sv_switches(k)
    eps_s = epsilon / steps
    composed = steps * eps_s
    if delta > 0:
        cal = largest_per_step(lambda e: compose_pure_dp(e, steps, delta), epsilon=epsilon, delta=delta,
                               upper=epsilon, rtol=1e-9)
        if cal.per_step > eps_s:
            eps_s, composed = cal.per_step, cal.epsilon
    return eps_s, composed


def sv_threshold(epsilon_step: npt.ArrayLike, T: npt.ArrayLike, beta: float = EXPERTS_BETA) -> npt.NDArray:
    """``sv_experts``' sparse-vector threshold :math:`\\Lambda = 1 + (6/\\varepsilon_s)\\ln(2T/\\beta)`
    (1 at ε_s = ∞: switch at the first loss)."""
    # math.log per element: the learner's threshold, bit for bit (a vectorised log may differ in the last ulp)
    return np.vectorize(lambda e, t: 1.0 + 6.0 / e * math.log(2 * t / beta), otypes=[float])(epsilon_step, T)


def _eps_steps(epsilon: npt.ArrayLike, delta: float, k: int) -> npt.NDArray:
    step = np.vectorize(lambda e: sv_epsilon_step(float(e), delta, k)[0], otypes=[float])
    return step(np.asarray(epsilon, dtype=float))


def sv_regret_bound(T: npt.ArrayLike, epsilon: npt.ArrayLike, delta: float, k: int,
                    beta: float = EXPERTS_BETA) -> npt.NDArray:
    """A proven bound with constants on ``sv_experts``' average regret on the ``realizable``
    instance of :mod:`dpbench.problems.experts` (expert i* never loses, the other k − 1 are
    independent fair coins), holding with probability ≥ 1 − :func:`sv_failure_probability`
    over the sequence and the mechanism:

    .. math:: \\mathrm{Regret}_T < \\frac{2\\Lambda}{T}
        = \\frac{2}{T} + \\frac{12\\,\\ln(2T/\\beta)}{\\varepsilon_s\\,T},
        \\qquad \\varepsilon_s = \\varepsilon/(2K)\\ \\text{(basic composition; see :func:`sv_epsilon_step`)}

    — the theorem's own function of (ε, δ, T, k): ε_s, K and Λ are the calibration the learner
    uses (:func:`sv_epsilon_step`, :func:`sv_switches`, :func:`sv_threshold`; it calls them),
    so on the paper grid (where basic composition is the best) the bound is exactly ∝ 1/ε.
    NaN at ε = ∞ (no noise: another algorithm).

    Derivation (this package's; the algorithm is the AboveThreshold test [DNRRV09] as in
    [DR14, §3.6, Alg. 1], with the exponential mechanism [MT07] switching experts as in
    [AFKT23]). Write
    ℓ = ln(2T/β), b = 4/ε_s (query noise ν_t ~ Lap(b)), s = 2/ε_s (threshold noise Z_j ~ Lap(s)),
    so Λ = 1 + (6/ε_s)ℓ = 1 + sℓ + bℓ. Every round t is compared in at most one segment, with
    a fresh Lap(b) draw; a Laplace variable exceeds c scales in absolute value w.p. e^{−c}.

    1. F₁: |ν_t| < bℓ for every compared round (union over T rounds: fails w.p. ≤ T e^{−ℓ} = β/2);
       F₂: |Z_j| < sℓ for the ≤ K thresholds (fails w.p. ≤ K β/(2T)).
    2. On F₁ ∩ F₂ a zero-loss expert never fires (ν_t < bℓ = Λ − 1 − sℓ < Λ + Z_j), so once
       i* is played it is played to the end (the switch budget does not matter); and every
       segment's loss is < 2Λ: if it fires at round t_f after its start, its loss is
       q_{t_f} ≤ q_{t_f−1} + 1 < Λ + Z_j − ν_{t_f−1} + 1 < 1 + Λ + sℓ + bℓ = 2Λ (q_{t_f} ≤ 1
       if it fires at once; < 2Λ − 1 if it never fires).
    3. So T·Regret = the loss played (i* has none) < 2Λ if the first expert i₁ (uniform) is
       i*, or the first segment never fires, or the first switch picks i*.
    4. First switch at t₁ (i₁ a fair coin; q_t its loss so far; t₁ a stopping time of column
       i₁ and the noise only). For an integer m ≥ 1 and z ≥ 0, early firing (q_{t₁} < m) needs
       Z₁ ≤ −z (w.p. ½e^{−z/s}) or ν_t ≥ Λ − z − (m − 1) at one of the rounds with q_t ≤ m − 1,
       of which there are 2m − 1 in expectation (τ_m − 1, τ_m the round of the m-th loss, a sum
       of m Geometric(½)); by Markov's inequality w.p. ≤ (2m − 1)·½e^{−(Λ−z−m+1)/b}.
    5. The exponential mechanism (score −L_i, sensitivity 1) misses i* (score 0) w.p.
       ≤ Σ_{i≠i*} e^{−ε_s L_i(t₁)/2}. For q_{t₁} ≥ m: i₁'s term is ≤ e^{−ε_s m/2}; each of the
       k − 2 other coins is independent of t₁, so E[e^{−c L_i(t₁)} | t₁] = ρ^{t₁} with
       c = ε_s/2, ρ = (1 + e^{−c})/2, and t₁ ≥ τ_m gives E[ρ^{τ_m}] = (ρ/(2 − ρ))^m.
    6. Total failure probability (union bound; minimised over m, z by
       :func:`sv_failure_probability`):

       .. math:: p = \\frac{\\beta}{2} + \\frac{K\\beta}{2T} + \\tfrac12 e^{-z/s}
           + (m - \\tfrac12)\\,e^{-(\\Lambda - z - m + 1)/b} + e^{-\\varepsilon_s m/2}
           + (k-2)\\Big(\\frac{\\rho}{2-\\rho}\\Big)^m .

    On the paper grid (k ∈ {32, 100}, T ≥ 10⁴, β = 0.1) p ≤ 0.08: the bound is checked on the
    (1 − p)-quantile over repetitions. Regret and expected regret coincide for this learner
    (its played distribution is a point mass given the history).

    Power: the regret sits at about half the bound (tests/test_sv_bound.py), so the row catches a
    threshold Λ twice or more too large, or noise ×8; it does not catch noise ×2–3 or Λ ×1.5 (more
    noise only brings the first switch sooner, and the slope −1 in ε is the calibration's
    Λ ∝ 1/ε_s) — the privacy audits check the noise scale.
    """
    T = np.asarray(T, dtype=float)
    eps_s = _eps_steps(epsilon, delta, k)
    with np.errstate(invalid="ignore"):
        out = 2 * sv_threshold(eps_s, T, beta) / T
    return np.where(np.isfinite(eps_s), out, np.nan)


@functools.lru_cache(maxsize=1024)
def _sv_failure(eps_s: float, T: int, k: int, beta: float) -> float:
    K = sv_switches(k)
    lam = float(sv_threshold(eps_s, T, beta))
    b, s = 4.0 / eps_s, 2.0 / eps_s
    c = eps_s / 2
    rho = (1 + math.exp(-c)) / 2
    log_geo = math.log(rho) - math.log(2 - rho)
    m = np.arange(1, int(math.ceil(lam)) + 1, dtype=float)[:, None]
    z = (s * np.linspace(0.0, 20.0, 401))[None, :]
    early = 0.5 * np.exp(-z / s) + (m - 0.5) * np.exp(-(lam - z - m + 1) / b)
    miss = np.exp(-eps_s * m / 2) + (k - 2) * np.exp(m * log_geo)
    return float(beta / 2 + K * beta / (2 * T) + np.min(early + miss))


def sv_failure_probability(T: npt.ArrayLike, epsilon: npt.ArrayLike, delta: float, k: int,
                           beta: float = EXPERTS_BETA) -> npt.NDArray:
    """The probability p with which :func:`sv_regret_bound` may fail (step 6 of its derivation,
    minimised over an integer m ∈ [1, Λ] and z ∈ [0, 20 s] on a grid): the bound holds w.p.
    ≥ 1 − p. NaN at ε = ∞."""
    T = np.asarray(T, dtype=float)
    eps_s = np.broadcast_to(_eps_steps(epsilon, delta, k), np.broadcast_shapes(T.shape, np.shape(epsilon)))
    Tb = np.broadcast_to(T, eps_s.shape)
    return np.array([_sv_failure(float(e), int(t), int(k), float(beta)) if np.isfinite(e) else math.nan
                     for e, t in zip(eps_s.ravel(), Tb.ravel())]).reshape(eps_s.shape)


def rate_linear_learner(T: npt.ArrayLike, epsilon: npt.ArrayLike, delta: float, d: int, beta: float) -> npt.NDArray:
    """[DR14, Thm 11.6] (shape, unit constant inside the O): excess population loss
    :math:`\\sqrt{\\ln(1/\\delta)}\\,\\ln(d/\\beta)/(\\varepsilon\\sqrt T)`."""
    T, epsilon = np.asarray(T, dtype=float), np.asarray(epsilon, dtype=float)
    return math.sqrt(math.log(1 / delta)) * math.log(d / beta) / (epsilon * np.sqrt(T))


def excess_linear_learner_bound(T: npt.ArrayLike, eta: npt.ArrayLike, d: int, beta: float) -> npt.NDArray:
    """A proven w.p. ≥ 1−3β bound on LinearLearner's excess loss ``<θ^T, μ> − min μ`` for
    x ∈ {−1, 1}^d (losses (x+1)/2 to the experts), by online-to-batch conversion:

    .. math:: 2\\Big(\\eta + \\frac{\\ln d}{\\eta T}\\Big) + 4\\sqrt{\\frac{2\\ln(2/\\beta)}{T}}
        + 2\\sqrt{\\frac{2\\ln(1/\\beta)}{T}}

    (expected regret of Thm 11.1 in x-units, two Azuma terms for the played actions vs
    p_t and for <p_t, x_t> vs <p_t, μ>, one Hoeffding term for the best coordinate).
    """
    T = np.asarray(T, dtype=float)
    return 2 * regret_hedge(T, eta, d) + 4 * np.sqrt(2 * math.log(2 / beta) / T) + 2 * np.sqrt(2 * math.log(1 / beta) / T)


def eta_linear_learner(T: npt.ArrayLike, epsilon: npt.ArrayLike, delta: float, d: int) -> npt.NDArray:
    """The learning rate LinearLearner's calibration prescribes for (ε, δ), horizon T and d
    experts (Dwork & Roth 2014, Algorithm 17 and Theorem 11.2; a calibration, not a bound):

    .. math:: \\eta(\\varepsilon) = \\min\\Big(\\frac{\\varepsilon}{\\sqrt{32\\,T\\ln(1/\\delta)}},\\;
        \\sqrt{\\frac{\\ln d}{T}}\\Big)

    The first term is the theorem's: each round of RWM is the exponential mechanism with score
    sensitivity 1, i.e. 2η-DP, and T rounds of ε′ = ε/sqrt(8 T ln(1/δ)) compose to (ε, δ)
    by advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Theorem 3.20), so
    η = ε′/2. The cap at the non-private rate sqrt(ln d/T) (the minimiser of Theorem 11.1's
    η + ln d/(ηT)) only lowers η (more private, a smaller bound) and makes ε = ∞ plain RWM;
    it binds only for ε > sqrt(32 ln(1/δ) ln d) (≈ 25 at d = 4, δ = 10⁻⁶). Where the
    theorem's η would compose to more than ε (the second-order term of advanced composition:
    ε ≳ 4 ln(1/δ)) the learner lowers η below this value.
    Computed here from (ε, δ, T, d) alone, independently of the learner's code, so a theory
    check can compare it with the η a run recorded (:func:`excess_linear_learner_bound_eps`).
    """
    T, epsilon = np.asarray(T, dtype=float), np.asarray(epsilon, dtype=float)
    return np.minimum(epsilon / np.sqrt(32 * T * math.log(1 / delta)), np.sqrt(math.log(d) / T))


def excess_linear_learner_bound_eps(T: npt.ArrayLike, epsilon: npt.ArrayLike, delta: float, d: int, beta: float) -> npt.NDArray:
    """LinearLearner's proven excess-loss bound as a function of ε: :func:`excess_linear_learner_bound`
    at the calibration's :math:`\\eta(\\varepsilon)` (:func:`eta_linear_learner`), holding w.p.
    ≥ 1 − 3β for x ∈ {−1, 1}^d ([DR14, Thm 11.6] with its constants, via Thms 11.1–11.2):

    .. math:: 2\\Big(\\eta(\\varepsilon) + \\frac{\\ln d}{\\eta(\\varepsilon)\\,T}\\Big)
        + 4\\sqrt{\\frac{2\\ln(2/\\beta)}{T}} + 2\\sqrt{\\frac{2\\ln(1/\\beta)}{T}}
        \\;=\\; \\frac{2\\sqrt{32\\ln(1/\\delta)}\\,\\ln d}{\\varepsilon\\sqrt T}
        + \\frac{2\\varepsilon}{\\sqrt{32\\,T\\ln(1/\\delta)}} + O\\Big(\\sqrt{\\frac{\\ln(1/\\beta)}{T}}\\Big)

    (the equality below the cap). Derivation: the expected regret of RWM(η) on the codes
    (x + 1)/2 ∈ {0, 1}^d is at most η + ln d/(ηT) on every sequence ([DR14, Thm 11.1]),
    2(η + ln d/(ηT)) in x-units; two Azuma terms bound the played actions against p_t and
    <p_t, x_t> against <p_t, μ>, one Hoeffding term the best coordinate's empirical mean
    against μ (:func:`excess_linear_learner_bound`). [DR14, Thm 11.6] states the same
    with the constants inside an O(·). Unlike the bound at a run's recorded η, this one is the
    theorem's own function of ε: decreasing as 1/ε until the ε-free concentration terms
    dominate, so a learner whose η does not follow ε (or follows it with a wrong constant)
    can lie above it; a theory check also compares the recorded η with :func:`eta_linear_learner`.

    References: Dwork & Roth, *The Algorithmic Foundations of Differential Privacy*,
    Foundations and Trends in Theoretical Computer Science 9(3–4), 2014, §11.2–11.3,
    Algorithm 17, Theorems 11.1, 11.2, 11.5 and 11.6.
    """
    return excess_linear_learner_bound(T, eta_linear_learner(T, epsilon, delta, d), d, beta)


def regret_lower_bound_coin(T: npt.ArrayLike, k: int) -> npt.NDArray:
    """Asymptotic minimax lower bound on fair coins (Cesa-Bianchi & Lugosi 2006, [CL06, Thm 3.7]):
    :math:`\\sqrt{\\ln k/(2T)}` (expected regret of any algorithm, as T, k → ∞)."""
    return np.sqrt(math.log(k) / (2 * np.asarray(T, dtype=float)))


def trivial_regret(kind: str, k: int, gap: float) -> float:
    """Expected average regret of uniform play (the trivial predictor) on an experts sequence
    of :mod:`dpbench.problems.experts`, for large T.

    ``stochastic`` and ``switching``: uniform play loses ``½ − gap/k`` per round on average,
    the best expert ``½ − gap`` (in both halves of ``switching``), so the regret is
    :math:`\\mathrm{gap}\\,(1 - 1/k)`. ``realizable``: uniform play loses ``(k−1)/(2k)``,
    the best expert 0. ``coin`` (regret of uniform play → 0, it is the best-in-hindsight
    fluctuation) and ``ftl_trap`` (uniform play has regret ≈ 0; there FTL's ½ is the
    reference): NaN — no trivial level.
    """
    if kind in ("stochastic", "switching"):
        return float(gap) * (1 - 1 / k)
    if kind == "realizable":
        return (k - 1) / (2 * k)
    return math.nan


def trivial_regret_of(row) -> float:
    """:func:`trivial_regret` for a results row (columns ``kind, k, gap``)."""
    return trivial_regret(str(row["kind"]), int(row["k"]), float(row["gap"]))


def eta_at(x: npt.ArrayLike, x_recorded: npt.ArrayLike, eta_recorded: npt.ArrayLike) -> npt.NDArray:
    """The learning rate at ``x`` (horizon T, ε or k) interpolated linearly in log–log
    between recorded ``(x, η)`` pairs of the runs (the ``eta`` column), so figures never
    re-run a calibration. Exact for every calibration of the experts family between grid
    points where η is a power of x (η ∝ T^(−½) for rwm, private_rwm, private_mw_001; ∝ ε
    for private_rwm below its cap); NaN outside the recorded range."""
    x = np.asarray(x, dtype=float)
    xr, er = np.asarray(x_recorded, dtype=float), np.asarray(eta_recorded, dtype=float)
    keep = np.isfinite(xr) & np.isfinite(er) & (xr > 0) & (er > 0)
    xr, er = xr[keep], er[keep]
    order = np.argsort(xr)
    xr, er = xr[order], er[order]
    if len(xr) == 0:
        return np.full(x.shape, np.nan)
    if len(xr) == 1:
        return np.where(np.isclose(x, xr[0]), er[0], np.nan)
    out = np.exp(np.interp(np.log(x), np.log(xr), np.log(er)))
    return np.where((x >= xr[0] * (1 - 1e-9)) & (x <= xr[-1] * (1 + 1e-9)), out, np.nan)


@dataclass(frozen=True)
class ExpertsRate:
    """The theory of one experts curve: ``curve(x) -> y`` (NaN where it says nothing), its
    ``label``, ``kind`` (``"bound"``: proven, checked against the data; ``"shape"``: a
    reconstruction, drawn only) and ``holds_with`` (1 for a deterministic bound, 1 − cβ for
    one that holds with that probability)."""

    label: str
    kind: str
    holds_with: float
    curve: Callable[[npt.NDArray], npt.NDArray]


def _column(rows, name: str) -> npt.NDArray:
    return np.asarray(rows[name], dtype=float)


def experts_rate_of(learner: str, rows, *, x: str = "T", metric: str = "expected_regret", beta: float = EXPERTS_BETA) -> ExpertsRate | None:
    """The rate drawn and checked for one curve of the ``experts`` experiment.

    ``rows`` are the curve's results rows (columns ``kind, k, T, epsilon, eta`` and ``x``):
    the Hedge family (``rwm``, ``private_rwm``, ``private_rwm_tight``, ``private_mw_001``)
    gets [DR14, Thm 11.1], :math:`\\eta + \\ln k/(\\eta T)`, at the η the runs recorded (interpolated
    in x by :func:`eta_at`; x is ``T``, ``epsilon`` or ``k``) — deterministic for
    ``expected_regret``; ``regret`` (realized) adds the Azuma term
    :math:`\\sqrt{2\\ln(1/\\beta)/T}` and holds w.p. 1 − β. ``sv_experts`` on realizable
    sequences (x ``T`` or ``epsilon``): the derived :func:`sv_regret_bound` at the theory's own
    calibration of (ε, δ, T, k), holding w.p. ≥ 1 − p (:func:`sv_failure_probability`, the
    largest p over the curve's cells), for either metric (they coincide for this learner). ``ftl`` on the trap:
    average regret ½ (linear regret; ``(T − 1)/2`` of ``T`` rounds lost against a leader
    that loses ``T/2``), a shape. None where no theory applies.
    """
    kind = str(np.asarray(rows["kind"])[0])
    if learner == "ftl":
        if kind != "ftl_trap":
            return None
        return ExpertsRate("regret → ½ (linear)", "shape", 1.0, lambda xs: np.full(np.shape(xs), 0.5))
    if learner == "sv_experts":
        if kind != "realizable" or x not in ("T", "epsilon"):
            return None
        eps, T, k = _column(rows, "epsilon"), _column(rows, "T"), int(_column(rows, "k")[0])
        delta = float(_column(rows, "delta")[0]) if "delta" in rows else 0.0
        if not np.isfinite(eps).all():
            return None
        # the bound fails w.p. ≤ p at each cell: checked on the (1 − max p)-quantile of the curve's cells
        p = float(np.nanmax(sv_failure_probability(T, eps, delta, k, beta)))
        if x == "T":
            curve = functools.partial(sv_regret_bound, epsilon=float(eps[0]), delta=delta, k=k, beta=beta)
        else:
            T0 = float(T[0])
            curve = lambda e: sv_regret_bound(T0, e, delta, k, beta)  # noqa: E731
        return ExpertsRate("derived bound 2Λ/T (w.p. 1−p)", "bound", 1 - p, curve)
    x_rec, eta_rec = _column(rows, x), _column(rows, "eta")
    if not np.isfinite(eta_rec).any():
        return None
    T0, k0 = float(_column(rows, "T")[0]), int(_column(rows, "k")[0])

    def bound(xs: npt.NDArray) -> npt.NDArray:
        xs = np.asarray(xs, dtype=float)
        T = xs if x == "T" else np.full(xs.shape, T0)
        eta = eta_at(xs, x_rec, eta_rec)
        k = xs if x == "k" else np.full(xs.shape, float(k0))
        out = eta + np.log(k) / (eta * T)
        return out + np.sqrt(2 * math.log(1 / beta) / T) if metric == "regret" else out

    if metric == "regret":
        return ExpertsRate("Thm 11.1 at recorded η + Azuma (w.p. 1−β)", "bound", 1 - beta, bound)
    return ExpertsRate("Thm 11.1 at recorded η", "bound", 1.0, bound)


def linear_learner_rate_of(rows, *, beta: float = EXPERTS_BETA) -> ExpertsRate:
    """LinearLearner's proven excess-loss bound (:func:`excess_linear_learner_bound`, holds
    w.p. ≥ 1 − 3β) in T at the η the runs recorded (columns ``T, eta, d``)."""
    T_rec, eta_rec, d = _column(rows, "T"), _column(rows, "eta"), int(_column(rows, "d")[0])
    return ExpertsRate(
        "online-to-batch bound at recorded η (w.p. 1−3β)", "bound", 1 - 3 * beta,
        lambda T: excess_linear_learner_bound(T, eta_at(T, T_rec, eta_rec), d, beta),
    )


def linear_learner_eps_rate_of(rows, *, beta: float = EXPERTS_BETA) -> ExpertsRate:
    """LinearLearner's curve against ε at the rows' one horizon T (columns ``T, d, delta``):
    :func:`excess_linear_learner_bound_eps` — the bound at the calibration's η(ε), not at the
    η the runs recorded (holds w.p. ≥ 1 − 3β)."""
    T, d, delta = float(_column(rows, "T")[0]), int(_column(rows, "d")[0]), float(_column(rows, "delta")[0])
    return ExpertsRate(
        "online-to-batch bound at the calibration's η(ε) (w.p. 1−3β)", "bound", 1 - 3 * beta,
        lambda eps: excess_linear_learner_bound_eps(T, eps, delta, d, beta),
    )
