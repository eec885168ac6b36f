"""Privacy audits of the private-ERM learners (issue 10): near-worst-case neighbouring pairs,
a correct and a broken copy (noise halved or sensitivity halved, claiming the same ε) per learner.

Every case returns one scalar per run, fixed in advance: the output θ's coordinate on the
**canary axis** e₁ (the grid index for ``exp_mech_grid``). All runs of one side are one
call (per chunk of 5·10⁴) of the learner's own batched ``release(sample, rng=, runs=)``, the
method its ``fit`` calls (``fit`` is ``release`` with ``runs=None``, bit for bit), so ~10⁵
runs cost about a second and the broken copies are the learner with one calibration method
overridden (``noise_multiplier``, ``calibration``, ``noise``, ``mechanism``); claims come
from the correct copy's ``guarantee()``.

Instances
---------
``dp_gd`` / ``dp_sgd`` (replace-one): D = {canary (e₁, y=1), filler (e₂, y=1)}, D' = the
canary's label flipped. No other example touches e₁, so θ₁ evolves alone; with clip
``C = 0.1`` and step ``η = 0.01`` the canary's gradient is clipped to exactly ``∓C·e₁`` at
every step (θ₁ stays within ±0.5 ≪ logit(0.9) = 2.2 with overwhelming probability), so each
step moves θ₁ by the full sensitivity 2C and θ₁'s law is a (mixture of) Gaussian(s) with
known means: ``exact`` is the exact ε(δ) of the reported statistic (the suffix average
keeps ≥ 90% of the transcript's signal-to-noise ratio). ``dp_sgd`` uses ``batch_size=1``,
n = 2, so q = ½ and the canary enters each step's batch with probability ½.

``output_perturbation`` / ``objective_perturbation`` / ``diffprivlib_logreg`` (replace-one,
n = 10⁵, λ = 10⁻³): n − 1 fillers (e₂, y=1) make θ₂ ≈ 5.2; the canary is
``(cos φ, −sin φ)`` in D and ``(−cos φ, −sin φ)`` in D' (φ = 25°, y = 1), misclassified by a
margin ≈ 2.2 on both sides, so its loss gradient has norm ≈ 0.9 (of at most 1) and nothing
else curves J along e₁: θ*₁ moves by ≈ 0.82 of the sensitivity 2/(nλ) (output
perturbation), and the noise needed to explain an output differs by ≈ 0.82 of the bound 2
(objective perturbation). ``exact`` for output perturbation: the pure ε of the pair,
``ε‖θ*(D) − θ*(D')‖/Δ`` (the ℓ2-Laplace density ratio, attained in the tail along e₁). Its
statistic is the pair's privacy loss itself, ``‖θ − θ*(D′)‖ − ‖θ − θ*(D)‖``
(:func:`loss_statistic`), whose threshold events are the pair's Neyman–Pearson tests: measured
0.86 of exact at 10⁵ runs per side and 0.96 at 10⁶ (θ₁: 0.77 at 10⁵).

``exp_mech_grid`` (replace-one, d = 1, ``points = 2``: the grid {−4, 4}): the canary x = 1
with y = 1 (D) or 0 (D') changes each candidate's score by θ = ±4, within 0.5% of the full
sensitivity Δu = ln(1 + e⁴); 3 fillers (x = 1, y = 0) put most of the mass on θ = −4, so the
normaliser moves against the score of θ = 4 (the event "output = 4"). Measured over 2–9
points and 0–8 fillers, this pair gives the largest exact ε that ~10⁵ runs still resolve
(exact ε = 0.81ε, broken copy 1.88ε at ε = 1). The output law is the mechanism's softmax: ``exact`` is the
exact ε(δ) of the pair over all events.

``diffprivlib_logreg``: end to end through its own ``fit`` on a 10-row pair
(:func:`diffprivlib_end_to_end_cases`; ~14 ms a fit, so 200 runs a side: the broken copy at 8ε,
the smallest power of 2 caught there, said in the row), plus a *component* audit. diffprivlib's ``LogisticRegression`` is CMS11
objective perturbation; 10⁵ fits through its L-BFGS loop would take ~10 min, so the noise
vector is drawn by diffprivlib's own ``Vector`` mechanism (its calibration: ε', the extra
regulariser Δ and the Γ(d, 2/ε') norm, read back through the function it returns) and the
objective it perturbs (the same ``J_λ`` with ``C = 1/(nλ)``) is then minimised exactly,
batched. Broken copies: diffprivlib run at 2ε (component) and 8ε (end to end) while claiming ε.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from dpbench.audits.engine import AuditCase, MixtureFamily
from dpbench.audits import VECTORISED, per_run, register_audit
from dpbench.learners.dp_gd import DPGD
from dpbench.learners.dp_sgd import DPSGD
from dpbench.learners.exp_mech_grid import ExpMechGrid, score_sensitivity
from dpbench.learners.logistic_common import minimise
from dpbench.learners.objective_perturbation import ObjectivePerturbation
from dpbench.learners.output_perturbation import OutputPerturbation, sensitivity
from dpbench.mechanisms.exponential import ExponentialMechanism
from dpbench.mechanisms.gaussian import analytic_epsilon
from dpbench.mechanisms.guarantee import REPLACE_ONE
from dpbench.problems.base import Sample

VARIANTS = ("correct", "broken")

# ------------------------------------------------------------------ exact ε(δ) of a pair


def discrete_epsilon(log_p: np.ndarray, log_q: np.ndarray, delta: float) -> float:
    """Exact ε at δ of a pair of distributions on a finite set (both directions):
    the smallest ε with ``Σ_x (P(x) − e^ε Q(x))₊ ≤ δ`` and the same with P, Q swapped."""

    def excess(eps: float) -> float:
        p, q = np.exp(log_p), np.exp(log_q)
        return max(np.sum(np.maximum(p - np.exp(eps) * q, 0.0)), np.sum(np.maximum(q - np.exp(eps) * p, 0.0)))

    if excess(0.0) <= delta:
        return 0.0
    hi = float(np.max(np.abs(log_p - log_q))) + 1e-9
    if excess(hi) > delta:  # unreachable for distributions with the same support
        return math.inf
    return float(brentq(lambda e: excess(e) - delta, 0.0, hi, xtol=1e-12))


def gaussian_mixture_epsilon(shifts: np.ndarray, probs: np.ndarray, delta: float) -> float:
    """Exact ε at δ of ``P = Σ_k p_k N(+a_k, 1)`` versus ``Q = Σ_k p_k N(−a_k, 1)`` (the pair is
    symmetric under x → −x, so one direction suffices).

    ``δ(ε) = ∫ (P − e^ε Q)₊`` by the trapezoid rule on a grid of spacing 10⁻³ over
    ``±(max|a| + 12)`` (the mass outside is < 10⁻³²); ε by ``brentq``.
    """
    a = np.asarray(shifts, dtype=np.float64)
    w = np.asarray(probs, dtype=np.float64)
    keep = w > 0
    a, w = a[keep], w[keep]
    x = np.arange(-np.max(np.abs(a)) - 12, np.max(np.abs(a)) + 12, 1e-3)
    p = np.zeros_like(x)
    q = np.zeros_like(x)
    for i in range(0, len(a), 64):  # components in chunks: (64, len(x)) temporaries
        ai, wi = a[i:i + 64, None], w[i:i + 64]
        p += wi @ np.exp(-0.5 * (x[None] - ai) ** 2)
        q += wi @ np.exp(-0.5 * (x[None] + ai) ** 2)
    p /= np.sqrt(2 * np.pi)
    q /= np.sqrt(2 * np.pi)

    def excess(eps: float) -> float:
        return float(np.trapezoid(np.maximum(p - np.exp(eps) * q, 0.0), x))

    if excess(0.0) <= delta:
        return 0.0
    hi = 1.0
    while excess(hi) > delta:
        hi *= 2
    return float(brentq(lambda e: excess(e) - delta, 0.0, hi, xtol=1e-10))


def in_chunks(draw, runs: int, rng: np.random.Generator, chunk: int = 50_000) -> np.ndarray:
    """``draw(k, rng)`` for chunks of at most ``chunk`` runs, concatenated: keeps the batched
    matrix products small (multi-threaded BLAS on (10⁵, 2) operands thrashes on a loaded
    machine: 20× slower measured at 3·10⁵ runs) and the memory bounded."""
    return np.concatenate([draw(min(chunk, runs - i), rng) for i in range(0, runs, chunk)])


def _case(learner, variant, epsilon, delta, instance, sample, exact=None, component="", note="", method="threshold", explain=None):
    return AuditCase(learner=learner, variant=variant, epsilon=epsilon, delta=delta, neighbours=REPLACE_ONE,
                     instance=instance, sample=sample, exact=exact, component=component, note=note, method=method,
                     explain=explain)


# ------------------------------------------------------------------ DP-GD and DP-SGD

#: The canary pair of the noisy-gradient learners: rows (canary on e₁, filler on e₂),
#: signs of D and of D' (the canary's label flipped).
CANARY_X = np.array([[1.0, 0.0], [0.0, 1.0]])
CANARY_S = (np.array([1.0, 1.0]), np.array([-1.0, 1.0]))
GD_PARAMS = {"steps": 10, "clip": 0.1, "lr": 0.01}


@dataclass(frozen=True, kw_only=True)
class _HalfNoiseDPGD(DPGD):
    """DP-GD with its noise multiplier halved, claiming the same ε (the audit's broken copy)."""

    def noise_multiplier(self) -> float:
        return super().noise_multiplier() / 2


@dataclass(frozen=True, kw_only=True)
class _HalfNoiseDPSGD(DPSGD):
    """DP-SGD with its noise multiplier halved, claiming the same ε (the audit's broken copy)."""

    def calibration(self, n: int) -> tuple[float, float]:
        z, eps = super().calibration(n)
        return z / 2, eps


def suffix_weights(learner, n: int) -> np.ndarray:
    """``v_k`` with θ₁ (suffix average) ``= −(η/N) Σ_k v_k (a_k + ξ_k)`` when the canary's
    gradient coefficient at step k is ``a_k`` (clipping active) and ξ_k the noise on e₁."""
    T, start, eta = learner.steps, learner.steps // 2, learner.step_size
    decay = 1 - eta * learner.lam
    t = np.arange(T)
    powers = np.where(t[None, :] >= t[:, None], decay ** np.maximum(t[None, :] - t[:, None], 0), 0.0)  # [k, t]
    return powers[:, start:].sum(axis=1) / (T - start)


def noisy_descent_mixture(learner) -> tuple[np.ndarray, np.ndarray]:
    """``(shifts, probs)``: θ₁ on the canary pair (clipping active at every step: see the
    module docstring) is, in units of its noise std, ``Σ_k p_k N(±a_k, 1)`` over the
    inclusion patterns of the canary (each step includes it with probability q), reduced to
    its distinct means. D: ``+a``, D': ``−a`` (centred: a symmetric pair)."""
    n = len(CANARY_X)
    q, normaliser, std = learner.step_parameters(n)
    v = suffix_weights(learner, n)
    scale = std * np.linalg.norm(v)  # std of Σ v_k ξ_k
    if q >= 1:
        return np.array([learner.clip * v.sum() / scale]), np.array([1.0])
    T = learner.steps  # distribution of Σ_k v_k B_k, B_k ~ Bernoulli(q): 2^T patterns (T = 10 here)
    patterns = (np.arange(2**T)[:, None] >> np.arange(T)[None, :]) & 1
    sums = np.round(learner.clip * (patterns @ v) / scale, 12)
    probs = q ** patterns.sum(axis=1) * (1 - q) ** (T - patterns.sum(axis=1))
    means, inverse = np.unique(sums, return_inverse=True)
    return means, np.bincount(inverse, weights=probs)


def noisy_descent_exact(learner, delta: float) -> float:
    """Exact ε(δ) of θ₁ on the canary pair (:func:`noisy_descent_mixture`)."""
    n = len(CANARY_X)
    q, _, std = learner.step_parameters(n)
    if q >= 1:
        v = suffix_weights(learner, n)
        return analytic_epsilon(sigma=std * np.linalg.norm(v), delta=delta, sensitivity=2 * learner.clip * v.sum())
    shifts, probs = noisy_descent_mixture(learner)
    return gaussian_mixture_epsilon(shifts, probs, delta)


def claimed_family(learner) -> MixtureFamily:
    """DP-SGD's own family for the trade-off bound: the mixture of the *correct* calibration
    (s = 1), scaled; ε of a member by :func:`gaussian_mixture_epsilon`."""
    shifts, probs = noisy_descent_mixture(learner)
    return MixtureFamily(tuple(shifts), tuple(probs), lambda s, d: gaussian_mixture_epsilon(s * shifts, probs, d))


#: The canary pair as samples (labels in {0, 1}: signs ±1), fed to the learner's ``release``.
CANARY_SAMPLES = tuple(Sample(CANARY_X, ((s + 1) / 2).astype(np.uint8)) for s in CANARY_S)


def _noisy_descent_cases(cls, broken_cls, name, params, *, epsilon, delta):
    correct = cls(epsilon=epsilon, delta=delta, **params)
    family = claimed_family(correct)
    claim = correct.guarantee()
    cases = []
    for variant, klass in zip(VARIANTS, (cls, broken_cls)):
        learner = klass(epsilon=epsilon, delta=delta, **params)

        def sample(side, runs, rng, learner=learner):
            return in_chunks(lambda k, g: learner.release(CANARY_SAMPLES[side], runs=k, rng=g)[:, 0], runs, rng)

        instance = (f"canary (e1, y=1) vs (e1, y=0) beside a filler (e2, y=1); {params}; "
                    f"statistic: theta_1 (canary clipped to C at every step)")
        # full batch (q = 1): θ₁ is a Gaussian shift, audited through its GDP trade-off curve;
        # Poisson-subsampled (q < 1): against the subsampled-Gaussian mixture family of the
        # claimed (correct) calibration, scaled (a broken copy's smaller noise = a larger scale)
        full_batch = learner.step_parameters(len(CANARY_X))[0] >= 1
        cases.append(AuditCase(learner=name, variant=variant, epsilon=claim.epsilon, delta=claim.delta, neighbours=claim.neighbours,
                               instance=instance, sample=sample, exact=lambda lr=learner: noisy_descent_exact(lr, delta),
                               method="gdp" if full_batch else "tradeoff", family=None if full_batch else family))
    return cases


@register_audit("dp_gd", cost=per_run(5.3e-6))  # 5.3 s at 10⁶ runs (measured, see dpbench.audits)
def dp_gd_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    return _noisy_descent_cases(DPGD, _HalfNoiseDPGD, "dp_gd", GD_PARAMS, epsilon=epsilon, delta=delta)


@register_audit("dp_sgd", cost=per_run(1.1e-5))  # 11 s at 10⁶
def dp_sgd_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    return _noisy_descent_cases(DPSGD, _HalfNoiseDPSGD, "dp_sgd", {**GD_PARAMS, "batch_size": 1}, epsilon=epsilon, delta=delta)


# ------------------------------------------------------------------ output / objective perturbation

#: The misclassified-canary pair: distinct rows (canary, filler), their multiplicities
#: (1, n − 1), and λ (see the module docstring).
PERT_N, PERT_LAM, PERT_PHI = 100_000, 1e-3, math.radians(25)
PERT_X = (
    np.array([[math.cos(PERT_PHI), -math.sin(PERT_PHI)], [0.0, 1.0]]),
    np.array([[-math.cos(PERT_PHI), -math.sin(PERT_PHI)], [0.0, 1.0]]),
)
PERT_S = np.array([1.0, 1.0])
PERT_W = np.array([1.0, PERT_N - 1.0])
PERT_INSTANCE = (f"n={PERT_N}, lam={PERT_LAM:g}: {PERT_N - 1} fillers (e2, y=1); canary (cos 25deg, -sin 25deg) vs "
                 f"(-cos 25deg, -sin 25deg), y=1, misclassified on both sides; statistic: theta_1")


def _optima() -> tuple[np.ndarray, np.ndarray]:
    return tuple(minimise(X, PERT_S, PERT_LAM, weights=PERT_W) for X in PERT_X)


def pert_samples() -> tuple[Sample, Sample]:
    """The misclassified-canary pair as two samples of ``PERT_N`` rows (the canary first)."""
    return tuple(Sample(np.repeat(X, PERT_W.astype(np.int64), axis=0), np.ones(PERT_N, np.uint8)) for X in PERT_X)


@dataclass(frozen=True, kw_only=True)
class _HalfNoiseOutputPerturbation(OutputPerturbation):
    """Output perturbation with its noise halved, claiming the same ε (the broken copy)."""

    def noise(self, *args, **kwargs) -> np.ndarray:
        return super().noise(*args, **kwargs) / 2


@dataclass(frozen=True, kw_only=True)
class _HalfNoiseObjectivePerturbation(ObjectivePerturbation):
    """Objective perturbation with its noise vector halved, claiming the same ε (the broken copy)."""

    def noise(self, *args, **kwargs) -> np.ndarray:
        return super().noise(*args, **kwargs) / 2


def loss_statistic(theta: np.ndarray, optima: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """``‖θ − θ*(D′)‖ − ‖θ − θ*(D)‖`` per released θ (rows): the privacy loss of the
    ℓ2-Laplace output law ``∝ exp(−‖θ − θ*‖/β)`` in units of β, for any β — so its threshold
    events are the Neyman–Pearson tests of the pair, for the correct and the broken copy alike
    (a better event than a half-plane on θ₁, which reaches the exact ε only far out)."""
    return np.linalg.norm(theta - optima[1], axis=1) - np.linalg.norm(theta - optima[0], axis=1)


@register_audit("output_perturbation", cost=per_run(2e-6))  # 2 s at 10⁶
def output_perturbation_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    optima = _optima()
    shift = float(np.linalg.norm(optima[0] - optima[1]))
    pair = pert_samples()
    claim = OutputPerturbation(epsilon=epsilon, lam=PERT_LAM).guarantee()
    cases = []
    for variant, klass, noise_factor in zip(VARIANTS, (OutputPerturbation, _HalfNoiseOutputPerturbation), (1.0, 2.0)):
        learner = klass(epsilon=epsilon, lam=PERT_LAM)

        def sample(side, runs, rng, learner=learner):
            return in_chunks(lambda k, g: loss_statistic(learner.release(pair[side], rng=g, runs=k)[0], optima), runs, rng)

        exact = noise_factor * epsilon * shift / sensitivity(PERT_N, PERT_LAM)
        instance = PERT_INSTANCE.replace("statistic: theta_1", "statistic: the pair's privacy loss |theta - theta*(D')| - |theta - theta*(D)|")
        cases.append(_case("output_perturbation", variant, claim.epsilon, claim.delta, instance + f" (|shift| = {shift / sensitivity(PERT_N, PERT_LAM):.3f} of 2/(n lam))",
                           sample, exact=lambda e=exact: e,
                           note=("pure l2-Laplace in 2-D: its privacy loss reaches eps only on a thin cone behind theta*(D), "
                                 "whose probability sets how close a sampled bound comes") if variant == "correct"
                           else "broken: noise halved (eps x2)"))
    return cases


#: claim of the Gaussian-mode audit (the mode needs δ > 0)
GAUSSIAN_MODE_DELTA = 1e-5


#: seconds per run per side of the Gaussian-mode audit (both copies) and of the two optima
#: of the 10⁵-row pair: < 0.5 s at 10⁶ runs/side (measured 2026-11-26, idle 2-core machine;
#: the 6.3 s measured 2026-11-24 was on a machine under heavy load)
GAUSSIAN_MODE_SECONDS = (2e-7, 0.3)


@register_audit("output_perturbation_gaussian", delta=GAUSSIAN_MODE_DELTA,
                cost=lambda n: GAUSSIAN_MODE_SECONDS[0] * n + GAUSSIAN_MODE_SECONDS[1])
def output_perturbation_gaussian_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    """``output_perturbation`` with ``mechanism="gaussian"`` (issue 19 item 2), end to end
    through its own ``release`` on the misclassified-canary pair. Its noise is isotropic
    ``N(0, σ²I)`` (σ: the Gaussian mechanism's calibration for Δ = 2/(nλ)), so the output's
    projection on the unit vector ``u`` from θ*(D′) to θ*(D) is a Gaussian shift by
    ``‖θ*(D) − θ*(D′)‖/σ`` noise units, the whole privacy loss of the pair (the orthogonal
    part has the same law on both sides): audited through the GDP trade-off curve
    (``method = "gdp"``). ``exact``: the analytic ε(δ) of that shift at the copy's σ
    (Balle & Wang 2018, Thm 8), a formula of the calibrated σ (÷2 for the broken copy),
    not of the draws. Broken copy: noise halved, same claim. Rows carry the learner's name
    (``output_perturbation``); the claim's δ > 0 tells them from the ℓ2-Laplace rows."""
    from dpbench.mechanisms.gaussian import GaussianMechanism

    optima = _optima()
    shift = float(np.linalg.norm(optima[0] - optima[1]))
    u = (optima[0] - optima[1]) / shift
    pair = pert_samples()
    params = dict(epsilon=epsilon, delta=delta, lam=PERT_LAM, mechanism="gaussian")
    claim = OutputPerturbation(**params).guarantee()
    sigma = GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=sensitivity(PERT_N, PERT_LAM)).sigma
    cases = []
    for variant, klass, noise_factor in zip(VARIANTS, (OutputPerturbation, _HalfNoiseOutputPerturbation), (1.0, 0.5)):
        learner = klass(**params)

        def sample(side, runs, rng, learner=learner):
            return in_chunks(lambda k, g: learner.release(pair[side], rng=g, runs=k)[0] @ u, runs, rng)

        instance = (PERT_INSTANCE.replace("statistic: theta_1", "statistic: theta projected on theta*(D) - theta*(D')")
                    + f"; mechanism=gaussian, sigma={noise_factor * sigma:.4g} (|shift| = {shift / sensitivity(PERT_N, PERT_LAM):.3f} "
                    "of 2/(n lam))")
        cases.append(_case("output_perturbation", variant, claim.epsilon, claim.delta, instance, sample,
                           exact=lambda s=noise_factor * sigma: analytic_epsilon(sigma=s, delta=delta, sensitivity=shift),
                           note="" if variant == "correct" else "broken: noise halved", method="gdp",
                           explain=lambda row: ("the GDP trade-off bound's error shrinks like 1/sqrt(runs): it reaches 0.9 of "
                                                "exact at ~1e6 runs/side (config/paper.yaml; tests/test_audit_erm.py)")))
    return cases


@register_audit("objective_perturbation", cost=per_run(3.5e-5))  # 35 s at 10⁶: a Newton solve per run
def objective_perturbation_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    pair = pert_samples()
    claim = ObjectivePerturbation(epsilon=epsilon, lam=PERT_LAM).guarantee()
    cases = []
    for variant, klass in zip(VARIANTS, (ObjectivePerturbation, _HalfNoiseObjectivePerturbation)):
        learner = klass(epsilon=epsilon, lam=PERT_LAM)

        def sample(side, runs, rng, learner=learner):
            return in_chunks(lambda k, g: learner.release(pair[side], rng=g, runs=k)[0][:, 0], runs, rng)

        cases.append(_case("objective_perturbation", variant, claim.epsilon, claim.delta, PERT_INSTANCE, sample,
                           note="" if variant == "correct" else "broken: noise vector halved"))
    return cases


def diffprivlib_noise(epsilon: float, n: int, lam: float, d: int, runs: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """``(b (runs, d), Δ)``: ``runs`` draws of diffprivlib's objective-perturbation noise, by
    its own ``Vector`` mechanism as ``LogisticRegression`` builds it (``alpha = 1/C = nλ``,
    function sensitivity ¼, data norm 1), read back from the perturbed function it returns:
    its gradient at 0 is ``b/n`` and at e₁ is ``b/n + Δe₁``."""
    from dpbench.learners.peers import diffprivlib

    diffprivlib()  # importable on the installed scikit-learn (dpbench.learners.peers)
    from diffprivlib.mechanisms import Vector

    mech = Vector(epsilon=epsilon, dimension=d, alpha=n * lam, function_sensitivity=0.25, data_sensitivity=1.0, n=n,
                  random_state=int(rng.integers(2**31 - 1)))  # one seeded mechanism, advanced by each randomise()
    zero = lambda w: (0.0, np.zeros(d))  # noqa: E731
    b = np.empty((runs, d))
    extra = 0.0
    e1 = np.eye(d)[0]
    for r in range(runs):
        f = mech.randomise(zero)
        b[r] = f(np.zeros(d))[1] * n
        if r == 0:
            extra = float(f(e1)[1][0] - b[0, 0] / n)
    return b, extra


#: diffprivlib end to end: n rows (canary first, then fillers (0, ±1) with labels 1/0: both
#: classes, as ``fit`` needs), λ (the learner's public parameter), runs per side whatever
#: the cell's n (one ``fit`` through diffprivlib's L-BFGS ≈ 14 ms on one BLAS thread)
DPL_N, DPL_LAM, DPL_E2E_RUNS = 10, 0.1, 200
#: seconds of one diffprivlib fit, and of the rest per run per side: 12.5 s of audit at 2·10⁴
#: runs (default run), 41 s at 2·10⁵ (paper size), 2026-11-26
DPL_FIT_SECONDS, DPL_RUN_SECONDS = 1.16e-2, 1.6e-4
#: the end-to-end broken copy runs diffprivlib at DPL_BROKEN × ε while claiming ε: the smallest
#: power of 2 its 200-fit audit catches (2×: ~1e3–1e4 fits a side needed; 4×: bound 0.26 and
#: 0 at seeds 0, 1; 8×: 2.23 and 1.45 — checked 2026-11-24). No exact ε is computed for the
#: peer, so the sampled bound above the claim is itself the proof the copy is broken.
DPL_BROKEN = 8.0


def diffprivlib_pair() -> tuple[Sample, Sample]:
    """The misclassified canary ``(±cos 25°, −sin 25°), y = 1`` (reflected between D and D′)
    beside ``DPL_N − 1`` fillers ``(0, 1), y = 1`` and ``(0, −1), y = 0`` alternating."""
    pair = []
    for sign in (1.0, -1.0):
        X = np.zeros((DPL_N, 2))
        X[1:] = (0.0, 1.0)
        X[2::2] = (0.0, -1.0)
        y = np.ones(DPL_N, np.uint8)
        y[2::2] = 0
        X[0] = (sign * math.cos(PERT_PHI), -math.sin(PERT_PHI))
        pair.append(Sample(X, y))
    return tuple(pair)


def diffprivlib_end_to_end_cases(epsilon: float) -> list[AuditCase]:
    """``[correct, broken]`` through the peer's own ``fit`` (diffprivlib's
    ``LogisticRegression.fit``) on :func:`diffprivlib_pair`; statistic θ₁; broken copy: the
    peer run at :data:`DPL_BROKEN` × ε, claiming ε (its claim is diffprivlib's: ε-DP, replace-one)."""
    from dpbench.learners.diffprivlib_logreg import DiffprivlibLogReg

    pair = diffprivlib_pair()
    claim = DiffprivlibLogReg(epsilon=epsilon, lam=DPL_LAM).guarantee()
    cases = []
    for variant, eps_run in zip(VARIANTS, (epsilon, DPL_BROKEN * epsilon)):
        learner = DiffprivlibLogReg(epsilon=eps_run, lam=DPL_LAM)

        def sample(side, runs, rng, learner=learner):
            return np.array([learner.fit(pair[side], rng=rng).theta[0] for _ in range(runs)])

        cases.append(AuditCase(
            learner="diffprivlib_logreg", variant=variant, epsilon=claim.epsilon, delta=claim.delta, neighbours=REPLACE_ONE,
            instance=(f"end to end through diffprivlib's LogisticRegression.fit: n={DPL_N}, lam={DPL_LAM:g}; canary (cos 25deg, "
                      f"-sin 25deg) vs (-cos 25deg, -sin 25deg), y=1, beside fillers (0, 1), y=1 and (0, -1), y=0; statistic: theta_1"),
            sample=sample, runs_cap=DPL_E2E_RUNS,
            note=(f"a pure eps = 1 audit needs ~1e3-1e4 runs per side to catch a 2x error (200 runs: the largest bound any "
                  f"event can give at confidence 0.999 is ~ln(100/7)); {DPL_E2E_RUNS} fits a side is what the default workflow "
                  f"affords, so the broken copy is the peer at {DPL_BROKEN:g}x eps, the smallest power of 2 caught there") if variant == "correct"
            else f"broken: diffprivlib run at {DPL_BROKEN:g}*eps (2x and 4x are not caught in {DPL_E2E_RUNS} fits a side; no exact eps for the peer: "
                 "a sampled bound above the claim is itself the proof the copy is broken)",
        ))
    return cases


@register_audit("diffprivlib_logreg", cost=lambda n: 4 * DPL_FIT_SECONDS * min(n, DPL_E2E_RUNS) + DPL_RUN_SECONDS * n)
def diffprivlib_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    cases = diffprivlib_end_to_end_cases(epsilon)
    for variant, eps_noise in zip(VARIANTS, (epsilon, 2 * epsilon)):

        def sample(side, runs, rng, eps_noise=eps_noise):
            def draw(k, g):
                b, extra = diffprivlib_noise(eps_noise, PERT_N, PERT_LAM, 2, k, g)
                return minimise(PERT_X[side], PERT_S, PERT_LAM + extra, linear=b / PERT_N, weights=PERT_W)[:, 0]

            return in_chunks(draw, runs, rng)

        cases.append(_case("diffprivlib_logreg", variant, epsilon, 0.0, PERT_INSTANCE, sample,
                           component="diffprivlib's Vector mechanism (its objective-perturbation noise, drawn through its API) "
                                     "+ the objective it perturbs, minimised exactly in batch: 1e5 L-BFGS fits through "
                                     "LogisticRegression would take ~10 min"))
    return cases


# ------------------------------------------------------------------ exponential mechanism on a grid

EM_POINTS, EM_RADIUS, EM_FILLERS = 2, 4.0, 3


def em_sample(side: int) -> Sample:
    """The canary (x = 1, y = 1 on D, 0 on D') beside ``EM_FILLERS`` fillers (x = 1, y = 0)."""
    y = np.zeros(EM_FILLERS + 1, np.uint8)
    y[0] = 1 if side == 0 else 0
    return Sample(np.ones((EM_FILLERS + 1, 1)), y)


@dataclass(frozen=True, kw_only=True)
class _HalfSensitivityExpMechGrid(ExpMechGrid):
    """The grid exponential mechanism with its score sensitivity halved, claiming the same ε."""

    def mechanism(self, d: int) -> ExponentialMechanism:
        return ExponentialMechanism(epsilon=self.epsilon, sensitivity=score_sensitivity(d, self.radius) / 2)


def _em_log_probabilities(learner: ExpMechGrid, side: int) -> np.ndarray:
    """The output law of ``learner`` on side ``side``, from its own mechanism and scores."""
    sample = em_sample(side)
    return learner.mechanism(1).log_probabilities(learner.sample_scores(sample))


@register_audit("exp_mech_grid")
def exp_mech_grid_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    pair = (em_sample(0), em_sample(1))
    claim = ExpMechGrid(epsilon=epsilon, points=EM_POINTS, radius=EM_RADIUS).guarantee()
    cases = []
    for variant, klass in zip(VARIANTS, (ExpMechGrid, _HalfSensitivityExpMechGrid)):
        learner = klass(epsilon=epsilon, points=EM_POINTS, radius=EM_RADIUS)
        laws = [_em_log_probabilities(learner, side) for side in (0, 1)]

        def sample(side, runs, rng, learner=learner):
            return learner.release(pair[side], rng=rng, runs=runs)

        instance = (f"d=1, {EM_POINTS} points on [-{EM_RADIUS:g}, {EM_RADIUS:g}]; canary x=1, y=1 vs y=0 beside "
                    f"{EM_FILLERS} fillers (x=1, y=0); statistic: grid index (law = the mechanism's softmax)")
        cases.append(_case("exp_mech_grid", variant, claim.epsilon, claim.delta, instance, sample,
                           exact=lambda laws=laws: discrete_epsilon(laws[0], laws[1], 0.0)))
    return cases
