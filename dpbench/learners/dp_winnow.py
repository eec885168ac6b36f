"""``dp_winnow``: DP-Winnow as the source wrote it — Bun & Fang, "Privately Learning
Decision Lists and a Differentially Private Winnow", arXiv:2602.07370, 2026, Algorithm 4.2
(the shadow update uses the *first* cached example, ``update='first'``, B = 1);
structure from the surviving text, constants **[reconstructed]**. This module also holds
the machinery of this project's variants, which change only the update rule
(``dp_winnow_batched``: ``update='batch'``, see below) or, in addition, the accounting
(``dp_winnow_batched_tight``: zCDP/RDP).

::

    shadow weights w = ConfidentWinnow weights (rate η, confidence γ = ρ/2), w_1 uniform
    released w̃ = (1/K)·(counts of K iid draws i ~ w)       # K exponential-mechanism draws
    cache C = ∅; k = 0 firings; SV = AboveThreshold(ε₀, L, β')
    for t = 1..T:
        predict sign⟨w̃, x_t⟩; receive y_t            # mistake iff y_t⟨w̃,x_t⟩ ≤ 0
        if y_t⟨w̃,x_t⟩ < γ̃: add (x_t, y_t) to C       # wrong or unconfident
        SV.add_query(|C|)                              # sensitivity 1
        if SV fired and k < M:
            if C ≠ ∅: log w ← log w + η Σ_{first B cached (x,y)} y·x     # shadow update
            w̃ ← K fresh draws from w; C = ∅; k += 1; SV = new AboveThreshold(ε₀, L, β')

**Batched update** (``update='batch'``, ``dp_winnow_batched``, ours; ``update='first'`` is
the source's rule, ``B = 1``, ``dp_winnow``). The source updates with the *first* cached example only and discards the other
≈ L cached ones; with a private rate η ~ 1e-4 the shadow then moves by ~η per firing
while the K-draw release has noise ~1/√K ≈ 0.04 per coordinate, so the released weights
are a fresh coin flip on every unconfident example for ~2/(η√K) firings (issue 11
item 6: "gets worse when it updates"). Summing the first ``B = ⌊(ρ − γ)/η⌋`` cached
examples into one multiplicative step costs no privacy — each example still enters at
most one term ``η y x`` of the log-weights — and makes one firing a ConfidentWinnow step
of size ``ηB ≈ ρ − γ``. Potential argument (Lemma 4.2 extended): with ``Φ = KL(u‖w)`` and
``g = Σ_{b≤m} y_b x_b`` over m examples each unconfident under the *same* shadow w (w only
changes at firings), ``ΔΦ = −η⟨u,g⟩ + ln E_w e^{ηg_i} ≤ −ηm(ρ − γ) + η²m²/2`` (Hoeffding's
lemma, ``g_i ∈ [−m, m]``), so at most ``ln N/(ηB(ρ − γ) − (ηB)²/2)`` full batches
(:func:`dpbench.theory.confident_winnow_update_bound` at rate ηB).

**Empty cache** (issue 10 defect 4). When the sparse vector fires with C = ∅ there is no
shadow update (the ``updates`` column counts shadow updates only). The firing is still a
public event: a new AboveThreshold instance starts, w̃ is redrawn from the unchanged w,
and the firing counts toward the cap M on firings — without that the number of
AboveThreshold instances (and releases) would be unbounded, and keeping the old w̃ would
reveal that the cache was empty (a fresh draw repeats the old counts with small
probability).

Parameters are chosen by :func:`calibrate` from (ε, δ, β) and the public stream facts
(N, ρ, T):

- ``γ = ρ/2``; ``K = ⌈8 ln(2T/β)/γ²⌉`` draws, so that by Hoeffding ([BF26, Lemma 4.6]) a
  confident shadow prediction ``y⟨w,x⟩ ≥ γ`` has ``y⟨w̃,x⟩ ≥ γ̃ = γ − sqrt(2 ln(2T/β)/K)
  ≥ γ/2`` in all T rounds with probability ≥ 1 − β/2: every cached example is a legal
  ConfidentWinnow update;
- ``B(η)`` as above and ``M(η) = ⌈ln N/(ηB(ρ − γ) − (ηB)²/2)⌉`` (Lemma 4.7: the cap is
  not hit w.h.p.);
- privacy ([BF26, Appendix C]): ≤ M+1 AboveThreshold instances, each ε₀-DP, and (M+1)K
  exponential-mechanism draws. The log-weight of coordinate i is ``η Σ_{s∈U} y_s x_{s,i}``;
  given the public history (firing rounds, released w̃) replacing one example changes at
  most one term (it, or the example that takes its place in the batch) by up to ``2η``
  per coordinate, so the log-probability ratios span up to ``4η``: each draw is **4η-DP**
  (4η-bounded-range) for replace-one neighbours. (A first reconstruction said 2η,
  the add/remove-one figure; we use the replace-one value.)
  ``advanced`` accountant: each layer gets (ε/2, δ/2) by advanced composition
  (the best of basic and Dwork–Rothblum–Vadhan), composed basically;
- η is the largest rate in (0, ρ/2] whose (M(η)+1)K draws fit the EM half;
- ε₀ is the largest per-instance ε within the SV half; the threshold is
  ``L = B + α`` with the AboveThreshold accuracy α at failure probability
  ``β' = β/(2(M+1))`` over T queries, so w.p. ≥ 1 − β it fires only with ≥ B cached
  examples (a full batch) and before ``L + α`` are cached.

:func:`composed_privacy` recomputes (ε, δ) from the chosen (ε₀, η, K, M); calibration
asserts it is ≤ the target. ``epsilon = inf`` gives ConfidentWinnow exactly (η = ρ/2,
B = 1, no cap, K = ∞ i.e. w̃ = w, ε₀ = ∞, L = 1, γ̃ = γ).

Privacy: (ε, δ)-DP w.r.t. replace-one neighbouring streams against an oblivious
adversary ([BF26, Def. 4.1, Thm 4.4]). Utility: w.p. ≥ 1 − β at most
``(M + 1)(L + α)`` mistakes (:func:`dpbench.theory.dp_winnow_calibrated_bound`); [BF26,
Thm 4.5] shape ``polylog(N)·poly(1/ρ)·log(T/β)/ε`` ([reconstructed]).

References
----------
.. [BF26] Bun & Fang, "Privately Learning Decision Lists and a Differentially Private
   Winnow", arXiv:2602.07370, 2026, §4.2 (Algorithm 4.2, Theorems 4.4–4.5), Appendices C–D.
.. [DR14] Dwork & Roth, *The Algorithmic Foundations of DP*, §3.5–3.6.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from dpbench.foundation.registry import register_learner
from dpbench.foundation.validation import check_delta, check_epsilon, check_probability, normalise
from dpbench.learners.base import Guarantee, Learner
from dpbench.learners.confident_winnow import ETA_RATIO, GAMMA_RATIO
from dpbench.learners.online import OnlineTrace, blocked_dot, dp_winnow_block, max_abs
from dpbench.mechanisms.accounting import zcdp_to_epsilon
from dpbench.mechanisms.composition import advanced, advanced_per_step
from dpbench.mechanisms.laws import recorder
from dpbench.mechanisms.lazy_laplace import query_uniforms
from dpbench.mechanisms.sparse_vector import accuracy, accuracy_tight, query_noise, threshold_noise
from dpbench.theory.winnow import confident_winnow_update_bound

#: "No cap" for ε = ∞ (the non-private limit never stops updating).
NO_CAP = 2**62
ACCOUNTANTS = ("advanced", "zcdp")
#: Shadow update rules: ``batch`` (ours: the first B cached examples) or ``first`` (the
#: source's Algorithm 4.2: B = 1).
UPDATES = ("batch", "first")


@dataclass(frozen=True)
class DPWinnowParams:
    """Calibrated parameters and the composed guarantee they achieve.

    ``K = 0`` means exact released weights (w̃ = w, the ε = ∞ limit); ``M`` caps the
    sparse-vector firings; ``batch`` is B, the cached examples summed into one update."""

    eta: float
    gamma: float
    gamma_tilde: float
    K: int
    M: int
    epsilon0: float
    threshold: float
    epsilon: float  # composed ε (≤ target)
    delta: float  # composed δ (≤ target)
    accountant: str
    batch: int = 1


def batch_size(eta: float, rho: float, gamma: float, update: str) -> int:
    """``B = max(1, ⌊(ρ − γ)/η⌋)`` for ``update='batch'`` (so ``ηB ≤ ρ − γ``), 1 for ``'first'``."""
    return max(1, math.floor((rho - gamma) / eta)) if update == "batch" else 1


def firing_cap(n_features: int, rho: float, eta: float, gamma: float, batch: int) -> int:
    """``M = ⌈ln N/(ηB(ρ − γ) − (ηB)²/2)⌉``: ConfidentWinnow's update bound ([BF26, Lemma 4.2]
    [reconstructed]) at the batch step ηB (module docstring)."""
    return int(math.ceil(float(confident_winnow_update_bound(n_features, rho, eta=eta * batch, gamma=gamma))))


def n_draws(T: int, gamma: float, beta: float) -> int:
    """``K = ⌈8 ln(2T/β)/γ²⌉`` (Lemma 4.6 + union bound over T rounds, probability β/2)."""
    return int(math.ceil(8 * math.log(2 * T / beta) / gamma**2))


def _compose_pure(eps0: float, k: int, delta: float) -> float:
    """Best of basic and advanced composition of k ε₀-DP steps at δ."""
    return min(k * eps0, advanced(eps0, k, delta)[0])


def composed_privacy(*, epsilon0: float, eta: float, K: int, M: int, delta: float, accountant: str) -> tuple[float, float]:
    """(ε, δ) of M+1 AboveThreshold instances (ε₀-DP each) and (M+1)K draws (4η-DP each).

    ``advanced``: each layer by the best of basic and advanced composition at δ/2, the two
    layers by basic composition. ``zcdp``: ε₀ ⇒ ε₀²/2-zCDP, a 4η-bounded-range draw ⇒
    (4η)²/8 = 2η²-zCDP (Cesar–Rogers), summed, converted at δ by the RDP accountant
    (:func:`dpbench.mechanisms.accounting.zcdp_to_epsilon`).
    """
    if math.isinf(epsilon0) or K == 0:
        return math.inf, 0.0
    k_sv, k_em = M + 1, (M + 1) * K
    if accountant == "advanced":
        return _compose_pure(epsilon0, k_sv, delta / 2) + _compose_pure(4 * eta, k_em, delta / 2), delta

    rho_z = k_sv * epsilon0**2 / 2 + k_em * 2 * eta**2
    return zcdp_to_epsilon(rho_z, delta), delta


def _largest(f, lo: float, hi: float, iters: int = 80) -> float:
    """Largest x in [lo, hi] with f(x) true, by bisection in log space (f true at lo)."""
    if f(hi):
        return hi
    a, b = math.log(lo), math.log(hi)
    for _ in range(iters):
        m = (a + b) / 2
        a, b = (m, b) if f(math.exp(m)) else (a, m)
    return math.exp(a)


@functools.cache
def zcdp_budget(epsilon: float, delta: float) -> float:
    """The largest ρ ∈ [10⁻¹², 10⁶] whose ρ-zCDP converts to (ε, δ)-DP
    (:func:`dpbench.mechanisms.accounting.zcdp_to_epsilon`), by :func:`_largest`: the tight
    accountant's whole budget, shared by every (N, T, ρ) calibrated at (ε, δ) — kept per
    (ε, δ) in the process, since the search asks the RDP accountant some 80 times."""
    return _largest(lambda r: zcdp_to_epsilon(r, delta) <= epsilon, 1e-12, 1e6)


@functools.lru_cache(maxsize=256)
def calibrate(*, epsilon: float, delta: float, rho: float, n_features: int, T: int, beta: float, accountant: str = "advanced",
              update: str = "first") -> DPWinnowParams:
    """DP-Winnow's (η, γ, γ̃, K, M, ε₀, L, B) for a target (ε, δ) (see the module docstring).

    Raises
    ------
    AssertionError
        if the composed (ε, δ) of the chosen parameters exceeds the target.
    """
    if update not in UPDATES:
        raise ValueError(f"update must be one of {list(UPDATES)}, got {update!r}")
    gamma = GAMMA_RATIO * rho
    if math.isinf(epsilon):
        eta = ETA_RATIO * rho
        return DPWinnowParams(eta, gamma, gamma, 0, NO_CAP, math.inf, 1.0, math.inf, 0.0, accountant, 1)
    if accountant not in ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {list(ACCOUNTANTS)}, got {accountant!r}")
    K = n_draws(T, gamma, beta)
    gamma_tilde = gamma - math.sqrt(2 * math.log(2 * T / beta) / K)
    cap = lambda eta: firing_cap(n_features, rho, eta, gamma, batch_size(eta, rho, gamma, update))  # noqa: E731
    if accountant == "advanced":
        em_ok = lambda eta: _compose_pure(4 * eta, (cap(eta) + 1) * K, delta / 2) <= epsilon / 2  # noqa: E731
        eta = _largest(em_ok, 1e-300, ETA_RATIO * rho)
        M = cap(eta)
        eps0 = advanced_per_step(epsilon / 2, M + 1, delta / 2)
        eps0 = _largest(lambda e: _compose_pure(e, M + 1, delta / 2) <= epsilon / 2, 1e-300, max(eps0, 1e-300))
        alpha = accuracy(eps0, T, beta / (2 * (M + 1)))
    else:

        budget = zcdp_budget(epsilon, delta)
        em_ok = lambda eta: (cap(eta) + 1) * K * 2 * eta**2 <= budget / 2  # noqa: E731
        eta = _largest(em_ok, 1e-300, ETA_RATIO * rho)
        M = cap(eta)
        eps0 = math.sqrt(budget / (M + 1))  # (M+1) ε₀²/2 = budget/2
        alpha = accuracy_tight(eps0, T, beta / (2 * (M + 1)))
    B = batch_size(eta, rho, gamma, update)
    eps_c, delta_c = composed_privacy(epsilon0=eps0, eta=eta, K=K, M=M, delta=delta, accountant=accountant)
    assert eps_c <= epsilon * (1 + 1e-12) and delta_c <= delta, f"composed ({eps_c}, {delta_c}) exceeds target ({epsilon}, {delta})"
    return DPWinnowParams(eta, gamma, gamma_tilde, K, M, eps0, B + alpha, eps_c, delta_c, accountant, B)


def _draw_released(w: npt.NDArray[np.float64], K: int, rng: np.random.Generator) -> npt.NDArray[np.float64]:
    """``w̃ = counts/K`` of K iid draws from ``w`` (``K = 0``: w̃ = w). Inside
    :func:`dpbench.mechanisms.laws.recording_laws` the law the K draws are made from
    (``w / Σw``, the probabilities handed to the multinomial) is appended to the recording
    as a ``(K, N)`` log-pmf, one row per draw (the privacy audit composes them); outside it,
    nothing is recorded and the draws are unchanged. Both the compiled loop and the
    reference draw every release here."""
    if K == 0:
        return w.copy()
    law = w / w.sum()
    recording = recorder()
    if recording is not None:
        with np.errstate(divide="ignore"):
            recording.append(np.broadcast_to(np.log(law), (K, len(law))))
    return rng.multinomial(K, law).astype(np.float64) / K


def _draw_totals(released: npt.NDArray[np.float64], K: int) -> tuple[int, ...]:
    """``Σ w̃ · K`` over releases as integer draw counts per coordinate (``K = 0``: zeros)."""
    return tuple(int(c) for c in np.rint(released * K))


def _shadow_update(logw: npt.NDArray[np.float64], g: npt.NDArray, eta: float) -> npt.NDArray[np.float64]:
    """``log w += η g`` in place (g = Σ y·x over the batch); return the normalised weights."""
    logw += eta * g
    w = np.exp(logw - logw.max())
    return w / w.sum()


def check_features(X: np.ndarray) -> None:
    """DP-Winnow's sensitivity analysis assumes ``‖x‖∞ ≤ 1`` (each cached example moves a
    weight's update by at most η): reject a block that breaks it (one line)."""
    top = max_abs(X)
    if not top <= 1.0:
        raise ValueError(f"DP-Winnow needs features with |x_i| <= 1 (||x||_inf <= 1), got {top:g}")


def run_dp_winnow(stream: Any, params: DPWinnowParams, *, rng: np.random.Generator, sv_noise: bool = True) -> OnlineTrace:
    """Compiled DP-Winnow run with fixed ``params``. ``sv_noise=False`` removes the sparse
    vector's noise (a deliberately *broken* variant for the privacy tests only).
    Diagnostics: ``eta``, ``firings`` (sparse-vector firings, ≥ updates),
    ``first_firing`` (its round, −1 if none: the public event, unlike ``first_update``) and
    ``released_draws`` (per coordinate, the K-draw counts summed over the releases made at
    firings: a post-processing of the released w̃, the privacy audit's statistic)."""
    N = stream.n_features
    cps = np.asarray(stream.checkpoints, dtype=np.int64)
    out_m = np.zeros(len(cps), dtype=np.int64)
    out_u = np.zeros(len(cps), dtype=np.int64)
    state = np.array([0, 0, 0, 0, -1, 0, 0, 0, -1], dtype=np.int64)
    logw = np.zeros(N)
    w = np.full(N, 1.0 / N)
    eps0 = params.epsilon0 if sv_noise else math.inf
    wt = _draw_released(w, params.K, rng)
    thr = params.threshold + threshold_noise(eps0, rng=rng)
    active = params.M > 0
    gbuf = np.zeros(N)
    released = np.zeros(N)
    for X, y in stream.blocks():
        check_features(X)
        uniforms, scale = query_uniforms(eps0, len(y), rng=rng)  # query_noise's draws, kept as uniforms
        r = 0
        while r < len(y):
            fired = dp_winnow_block(X, y, r, wt, params.gamma_tilde, uniforms, scale, thr, active, params.batch, gbuf, state, cps, out_m, out_u)
            if fired < 0:
                break
            if state[5] > 0:  # empty cache: no shadow update (the firing is still public)
                w = _shadow_update(logw, gbuf, params.eta)
            wt = _draw_released(w, params.K, rng)
            released += wt
            gbuf[:] = 0.0
            state[5] = state[6] = 0
            active = bool(state[7] < params.M)
            thr = params.threshold + threshold_noise(eps0, rng=rng)
            r = fired + 1
    diag = {"eta": params.eta, "firings": int(state[7]), "first_firing": int(state[8]), "released_draws": _draw_totals(released, params.K)}
    return OnlineTrace(t=cps, mistakes=out_m, updates=out_u, diagnostics=diag, first_update=int(state[4]))


def reference_dp_winnow(stream: Any, params: DPWinnowParams, *, rng: np.random.Generator, sv_noise: bool = True) -> OnlineTrace:
    """Slow step-by-step reference of :func:`run_dp_winnow` (same draws in the same order)."""
    N = stream.n_features
    eps0 = params.epsilon0 if sv_noise else math.inf
    logw = np.zeros(N)
    w = np.full(N, 1.0 / N)
    wt = _draw_released(w, params.K, rng)
    thr = params.threshold + threshold_noise(eps0, rng=rng)
    cache: list[tuple[np.ndarray, float]] = []
    released = np.zeros(N)
    k = updates = mistakes = 0
    first = first_firing = -1
    ms, us, t = [], [], 0
    for X, y in stream.blocks():
        noise = query_noise(eps0, len(y), rng=rng)
        for r in range(len(y)):
            t += 1
            x, yt = X[r].astype(np.float64), float(y[r])
            margin = yt * blocked_dot(wt, x)  # predict_one: sign⟨w̃, x⟩
            mistakes += margin <= 0
            if margin < params.gamma_tilde:  # learn_one
                cache.append((x, yt))
            if k < params.M and len(cache) + noise[r] >= thr:
                k += 1
                first_firing = t if first_firing < 0 else first_firing
                if cache:
                    g = np.zeros(N)
                    for xb, yb in cache[: params.batch]:
                        g += yb * xb
                    w = _shadow_update(logw, g, params.eta)
                    updates += 1
                    first = t if first < 0 else first
                wt = _draw_released(w, params.K, rng)
                released += wt
                cache = []
                thr = params.threshold + threshold_noise(eps0, rng=rng)
            ms.append(mistakes)
            us.append(updates)
    cps = np.asarray(stream.checkpoints, dtype=np.int64)
    return OnlineTrace(t=cps, mistakes=np.array(ms)[cps - 1], updates=np.array(us)[cps - 1],
                       diagnostics={"eta": params.eta, "firings": k, "first_firing": first_firing,
                                    "released_draws": _draw_totals(released, params.K)}, first_update=first)


@register_learner(name="dp_winnow", family="online", private=True, problems=("halfspace", "dl_as_halfspace"))
@dataclass(frozen=True, kw_only=True)
class DPWinnow(Learner):
    """DP-Winnow as the source wrote it (Bun & Fang 2026, Algorithm 4.2): each firing of
    the sparse vector updates the shadow weights with the *first* cached example.

    Parameters
    ----------
    epsilon, delta : the target guarantee (δ > 0 unless ε = ∞).
    beta : failure probability of the utility analysis (sets K and the threshold).

    Subclasses change the class attributes ``update`` (``first`` here, ``batch`` in
    :mod:`dpbench.learners.dp_winnow_batched`) and ``accountant``; each combination is a
    separately named learner, so a name always says which rule ran.
    """

    accountant: ClassVar[str] = "advanced"
    update: ClassVar[str] = "first"

    epsilon: float
    delta: float
    beta: float = 0.1

    def __post_init__(self) -> None:
        normalise(
            self,
            epsilon=check_epsilon(self.epsilon),
            delta=check_delta(self.delta),
            beta=check_probability(self.beta, name="beta", closed=False),
        )
        if self.delta == 0 and not math.isinf(self.epsilon):
            raise ValueError(f"delta must be > 0 for {self.name} (advanced/zCDP composition), got {self.delta!r}")

    def guarantee(self) -> Guarantee:
        """(ε, δ)-DP, replace-one: :func:`calibrate` asserts the composition is within it."""
        if math.isinf(self.epsilon):
            return Guarantee(epsilon=math.inf, delta=0.0)
        return Guarantee(epsilon=self.epsilon, delta=self.delta)

    def calibrate(self, stream: Any) -> DPWinnowParams:
        return calibrate(epsilon=self.epsilon, delta=self.delta, rho=float(stream.rho), n_features=int(stream.n_features), T=int(stream.T),
                         beta=self.beta, accountant=self.accountant, update=self.update)

    def run(self, stream: Any, *, rng: np.random.Generator) -> OnlineTrace:
        """Cumulative mistakes/updates at the stream's checkpoints; diagnostics carry the
        calibration (``eta``, ``K``, ``M``, ``batch``, ``epsilon0``, ``threshold``, composed
        ε/δ) and the number of ``firings``."""
        params = self.calibrate(stream)
        trace = run_dp_winnow(stream, params, rng=rng)
        trace.diagnostics.update({k: v for k, v in asdict(params).items() if k != "accountant"})
        return trace

    def _reference_run(self, stream: Any, *, rng: np.random.Generator) -> OnlineTrace:
        return reference_dp_winnow(stream, self.calibrate(stream), rng=rng)

    @classmethod
    def test_params(cls) -> Iterator[dict[str, object]]:
        yield {"epsilon": 1.0, "delta": 1e-6}
        yield {"epsilon": 10.0, "delta": 1e-6, "beta": 0.05}
        yield {"epsilon": math.inf, "delta": 0.0}
