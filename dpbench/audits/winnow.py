"""Privacy audits of ``dp_winnow``, ``dp_winnow_batched`` and ``dp_winnow_batched_tight``:
end to end through the learner's own ``run`` (:func:`end_to_end_cases`), plus the sparse
vector (AboveThreshold) instance that carries their privacy per firing, with the learner's
own (ε₀, L), as an extra labelled component row.

End to end. The whole learner — sparse vector, shadow update (first cached example or the
batch), cache, K-draw release — runs on two streams differing in one example
(:func:`e2e_pair`) at its recorded (ε, δ); the statistic is the round of the first firing.
One example reaches one sparse-vector instance (the cache is emptied at each firing) and
one release, while the claim composes all M+1 instances and releases, so the correct copy's
loss is far below its claim and a 2× error stays inside that slack: the broken copy
calibrates every instance at ε₀ = :data:`BROKEN_EPSILON0`·ε (the composition not accounted,
and more) and is caught. The source rule (``dp_winnow``) is calibrated to millions of
firings (L ≈ 2·10⁶ rounds at ε = 1), so it is run end to end at its audit claim ε = 50
(L ≈ 1.8·10³), where no sampled bound can reach the claim: its end-to-end row reports
``no_power`` honestly, and its component row carries the power.

Component. Each AboveThreshold instance is pure ε₀-DP and its loss is attained by events
of probability a few per cent, so its 2× error is visible with ~10⁶–10⁷ runs.

Instance (the classic counterexample, Dwork–Roth Thm 3.23's proof made tight): threshold
``L``, five sensitivity-1 queries, ``D = (L, L, L, L, L)`` and
``D' = (L+1, L+1, L+1, L+1, L−1)``. On "fires first at the fifth query" the four ⊥
answers pin the noisy threshold above ``L`` (a shift by 1 costs ε₀/2 through its
``Lap(2/ε₀)``) and the last query moves by 2 against its ``Lap(4/ε₀)`` noise (ε₀/2): the
exact ε of the pair is 0.81 ε₀ for the correct mechanism and 1.63 ε₀ with the noise
halved. Output: the index of the first firing (5: none). The learner's own queries are
counts |C| that move together; the mechanism's guarantee is for arbitrary
sensitivity-1 queries, which is what is audited.

Parameters: the learner calibrated at the claimed (ε, δ) on the default grid's private
stream (N = 2, ρ = 1, T = 1e6, β = 0.1). ``epsilon_exact`` is computed from the output
law (a 1-D integral over the threshold noise). The claim audited is ε₀ (δ = 0): the
``epsilon_claimed`` column holds ε₀, and ``instance`` names the learner's ε.
Runs: ε₀ ≈ 0.06 at ε = 1 (batched learners), so the broken copy's bound clears ε₀ only
with ~1e6 runs per side (:data:`RUNS`; a run is six Laplace draws, ~1 s per case).

The source's rule (``dp_winnow``) is calibrated to millions of firings, so its per-instance
ε₀ is tiny (6.5·10⁻⁵ at ε = 1): a sampled bound would need ~10¹² runs to separate 1.63 ε₀
from ε₀. Its default claim is therefore ε = :data:`SOURCE_CLAIM` (ε₀ ≈ 0.07, the same power
as the batched learners' ε = 1) — the same code path and calibration function, at a claim
where the broken copy is visible; the exact ε of the pair is computed at any claim.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import stats

from dpbench.audit import AuditCase
from dpbench.audits import SMALL_PURE_EPSILON, VECTORISED, register_audit
from dpbench.learners.dp_winnow import calibrate

#: The default grid's private stream (config.yaml, halfspaces_online sweep 1).
STREAM = {"n_features": 2, "rho": 1.0, "T": 10**6, "beta": 0.1}
#: ⊥ queries before the last one (4 maximises power per run: exact 0.81 ε₀ / 1.63 ε₀).
N_BELOW = 4
#: Runs per side at which the broken copy's bound exceeds ε₀ at ε = 1 (confidence 0.999).
RUNS = 3_000_000
#: The claim at which the source rule's AboveThreshold is audited (ε₀ ≈ 0.069 at N = 2, T = 1e6).
SOURCE_CLAIM = 50.0


def _queries(side: int, L: float) -> np.ndarray:
    """``D``: all at the threshold; ``D'``: the ⊥ queries one higher, the last one lower."""
    if side == 0:
        return np.full(N_BELOW + 1, L)
    return np.r_[np.full(N_BELOW, L + 1.0), L - 1.0]


def first_firing(epsilon0: float, L: float, queries: np.ndarray, runs: int, rng: np.random.Generator, noise_scale: float = 1.0) -> np.ndarray:
    """Index of the first firing of ``runs`` AboveThreshold(ε₀, L) instances on ``queries``
    (``len(queries)`` if none): ``T̂ = L + Lap(2/ε₀)``, ``ν_i ~ Lap(4/ε₀)``
    (:mod:`dpbench.mechanisms.sparse_vector`), both scaled by ``noise_scale`` (0.5: the
    broken copy). The noise is drawn by the functions the learner's own loop calls
    (``dp_winnow.threshold_noise``, ``dp_winnow.query_noise``, looked up in the learner's
    module), so a calibration error there shows in this row."""
    from dpbench.learners import dp_winnow

    tau = dp_winnow.threshold_noise(epsilon0 / noise_scale, rng=rng, size=(runs, 1))
    nu = dp_winnow.query_noise(epsilon0 / noise_scale, (runs, len(queries)), rng=rng)
    fire = queries[None, :] + nu >= L + tau
    return np.where(fire.any(axis=1), fire.argmax(axis=1), len(queries))


def output_law(epsilon0: float, queries: np.ndarray, L: float, noise_scale: float = 1.0, grid: int = 200_001) -> np.ndarray:
    """Exact law of :func:`first_firing`'s output: ``P[k] = ∫ p_T̂(s) Π_{i<k} F(s − q_i) (1 − F(s − q_k)) ds``
    with F the ``Lap(4/ε₀)`` CDF (trapezoid rule over ±80 threshold-noise scales)."""
    bt, bq = noise_scale * 2.0 / epsilon0, noise_scale * 4.0 / epsilon0
    s = L + np.linspace(-80 * bt, 80 * bt, grid)
    weight = stats.laplace.pdf(s - L, scale=bt) * (s[1] - s[0])
    below = stats.laplace.cdf(s[:, None] - queries[None, :], scale=bq)
    alive = np.cumprod(np.c_[np.ones(len(s)), below], axis=1)
    law = [(weight * alive[:, k] * (1 - below[:, k])).sum() for k in range(len(queries))]
    return np.array(law + [(weight * alive[:, -1]).sum()])


def exact_epsilon(p: np.ndarray, q: np.ndarray, delta: float) -> float:
    """Smallest ε with ``Σ_k max(0, p_k − e^ε q_k) ≤ δ`` in both directions (the pair's
    exact ε(δ) for a discrete output)."""

    def excess(e: float) -> float:
        return max(np.maximum(p - math.exp(e) * q, 0).sum(), np.maximum(q - math.exp(e) * p, 0).sum())

    lo, hi = 0.0, 50.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if excess(mid) > delta else (lo, mid)
    return hi


def sparse_vector_cases(learner: str, *, epsilon: float, delta: float) -> list[AuditCase]:
    """``[correct, broken]`` audits of ``learner``'s AboveThreshold instance (module docstring),
    calibrated by the learner's own accountant and update rule."""
    from dpbench import registry

    cls = registry.learner(learner)
    p = calibrate(epsilon=epsilon, delta=delta, accountant=cls.accountant, update=cls.update, **STREAM)
    eps0, L = p.epsilon0, p.threshold
    why = (f"end to end a 2x error is invisible (M+1 = {p.M + 1} instances of eps0 = {eps0:.3g} and K-draw releases with "
           f"Gaussian-like loss, sd 2*eta*sqrt(K) = {2 * p.eta * math.sqrt(p.K):.2g}); each AboveThreshold instance is pure eps0-DP "
           "and carries the learner's privacy per firing")
    cases = []
    for variant, scale in (("correct", 1.0), ("broken", 0.5)):
        def sample(side: int, runs: int, rng: np.random.Generator, scale=scale) -> np.ndarray:
            return first_firing(eps0, L, _queries(side, L), runs, rng, noise_scale=scale)

        def exact(scale=scale) -> float:
            return exact_epsilon(output_law(eps0, _queries(0, L), L, scale), output_law(eps0, _queries(1, L), L, scale), 0.0)

        instance = (f"AboveThreshold(eps0={eps0:.4g}, L={L:.4g}) of {learner} at eps={epsilon:g}, delta={delta:g} "
                    f"(N=2, rho=1, T=1e6); queries (L,L,L,L,L) vs (L+1,L+1,L+1,L+1,L-1)")
        cases.append(AuditCase(learner=learner, variant=variant, epsilon=eps0, delta=0.0, neighbours="replace-one", instance=instance,
                               sample=sample, exact=exact, component=why,
                               note=SMALL_PURE_EPSILON if variant == "correct" else "broken: noise halved"))
    return cases


# ------------------------------------------------------------------ end to end

#: rounds of the end-to-end pair (the first firing comes at ≈ the threshold L: 1.5e3–2.7e3
#: rounds for the audited claims)
E2E_T = 4000
#: end-to-end runs per side, whatever the cell's n (one run of the learner is ~3 ms)
E2E_RUNS = 300
#: seconds of one end-to-end ``run`` (loaded 2-core machine)
E2E_SECONDS = 3e-3


def _cost(n: int) -> float:
    return 4 * E2E_SECONDS * min(n, E2E_RUNS) + VECTORISED * n


#: the broken copy's per-instance ε₀, as a multiple of the claimed total ε
BROKEN_EPSILON0 = 32.0


def e2e_pair(T: int = E2E_T):
    """Two oblivious streams (N = 2, ρ = 1) differing in round 1 only: on D every round is
    ``x = (0, 0), y = +1`` (margin 0 < γ̃: cached, so the sparse vector's query |C| grows by
    one a round), on D' round 1 is ``x = (1, 1)`` (margin ⟨w̃, x⟩ = 1 ≥ γ̃: not cached), so
    every query of the first AboveThreshold instance is one lower on D'."""
    from dpbench.problems.halfspace import OnlineStream

    X = np.zeros((T, 2))
    y = np.ones(T)
    X_prime = X.copy()
    X_prime[0] = 1.0

    def stream(features: np.ndarray) -> OnlineStream:
        return OnlineStream(T=T, n_features=2, rho=1.0, make_block=lambda b, rng: (features, y), rng=np.random.default_rng(0),
                            checkpoints=np.array([T], dtype=np.int64), block_size=T)

    return stream(X), stream(X_prime)


def end_to_end_cases(learner: str, *, epsilon: float, delta: float) -> list[AuditCase]:
    """``[correct, broken]``: the whole learner (``run``: sparse vector, shadow update, cache,
    K-draw release) on :func:`e2e_pair` at its recorded (ε, δ); statistic: the round of the
    first firing (public: the released weights are redrawn there). Broken copy: the same
    learner with every sparse-vector instance calibrated at ε₀ = BROKEN_EPSILON0·ε (the
    composition over instances not accounted, and more), claiming the same (ε, δ)."""
    from dpbench import registry

    cls = registry.learner(learner)
    correct = cls(epsilon=epsilon, delta=delta)

    def broken_calibrate(self, stream):
        return dataclasses.replace(cls.calibrate(self, stream), epsilon0=BROKEN_EPSILON0 * epsilon)

    broken = dataclasses.make_dataclass(f"Broken{cls.__name__}", [], bases=(cls,), frozen=True,
                                        namespace={"calibrate": broken_calibrate})(epsilon=epsilon, delta=delta)
    pair = e2e_pair()
    g = correct.guarantee()
    p = correct.calibrate(pair[0])
    cases = []
    for variant, copy in (("correct", correct), ("broken", broken)):
        def sample(side: int, runs: int, rng: np.random.Generator, copy=copy) -> np.ndarray:
            return np.array([copy.run(pair[side], rng=rng).diagnostics["first_firing"] for _ in range(runs)])

        cases.append(AuditCase(
            learner=learner, variant=variant, epsilon=g.epsilon, delta=g.delta, neighbours="replace-one",
            instance=(f"end to end: N=2, T={E2E_T}; every round x=(0,0), y=+1 (cached) vs round 1 x=(1,1) (not cached); "
                      f"statistic: round of the first firing; eps0={p.epsilon0:.3g}, L={p.threshold:.4g}, M={p.M}"),
            sample=sample, runs_cap=E2E_RUNS,
            note=("one example reaches one sparse-vector instance and one release, while the claim composes all M+1: "
                  "exact law not computed (the release couples the rounds)") if variant == "correct"
            else f"broken: eps0 = {BROKEN_EPSILON0:g}*eps per instance",
        ))
    return cases


@register_audit("dp_winnow", epsilon=SOURCE_CLAIM, runs=RUNS, cost=_cost)
def dp_winnow_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    return end_to_end_cases("dp_winnow", epsilon=epsilon, delta=delta) + sparse_vector_cases("dp_winnow", epsilon=epsilon, delta=delta)


@register_audit("dp_winnow_batched", runs=RUNS, cost=_cost)
def dp_winnow_batched_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    return (end_to_end_cases("dp_winnow_batched", epsilon=epsilon, delta=delta)
            + sparse_vector_cases("dp_winnow_batched", epsilon=epsilon, delta=delta))


@register_audit("dp_winnow_batched_tight", runs=RUNS, cost=_cost)
def dp_winnow_batched_tight_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    return (end_to_end_cases("dp_winnow_batched_tight", epsilon=epsilon, delta=delta)
            + sparse_vector_cases("dp_winnow_batched_tight", epsilon=epsilon, delta=delta))
