"""Privacy audits of ``dp_winnow``, ``dp_winnow_batched`` and ``dp_winnow_batched_tight``:
end to end through the learner's own ``run`` (:func:`release_cases`), plus the sparse
vector (AboveThreshold) instance that carries their privacy per firing, with the learner's
own (ε₀, L), as an extra labelled component row.

End to end (:func:`release_cases`): the whole learner — sparse vector, shadow update,
cache, K-draw release — runs through its own ``run`` on two streams differing in round 1
only (:func:`release_pair`: x = (1, −1) vs (−1, 1), then zeros, every round cached), long
enough to reach its firing cap M, at its recorded (ε, δ). The differing example is the first
shadow update's, so each of the M releases at firings draws K times from ``σ(±2η)``: the
statistic (the learner's ``released_draws`` diagnostic, coordinate 0) is ``Bin(MK, σ(2η))``
vs ``Bin(MK, σ(−2η))``, each draw the 4η-bounded-range step the claim composes. The lower
bound is a Clopper–Pearson bound on the pooled favoured draws of all runs within that
binomial family (:class:`ReleaseSwapFamily`, checked by a χ² fit on every audit). The exact
ε(δ) is composed from the laws the learner's own code draws from: ``_draw_released`` records
the law of each release's K draws (:mod:`dpbench.mechanisms.laws`) as ``run`` makes it, on each
side, and :func:`release_laws_epsilon` composes them exactly — so an η error anywhere in the
learner (its shadow update, its calibration) moves the exact value, and a sampled bound
above it is a finding (:func:`dpbench.audits.engine.judge`). Broken copies: η × the factor of
:data:`RELEASE_BROKEN_ETA` (a rate error of the EM layer), claiming the same (ε, δ); each
row's note names the smallest integer error whose exact ε exceeds the claim (the
analysis's slack on the pair: both sides' sparse vectors see the same queries, so the SV
half of the budget is unused, and advanced composition is loose).

The source rule's cap is ≈ 2·10⁶ firings at ε = 1, so ``dp_winnow`` is audited at
:data:`SOURCE_CLAIM` = 400, where M ≈ 93 firings fit in ≈ 8·10³ rounds — an audit-only claim
that no workflow cell makes, and its rows say so (:func:`audit_only_note`, with the cap at
ε = 1 that rules out a row there); the batched rules (M = 6) are audited at ε = 1.

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

The source's rule (``dp_winnow``) is calibrated to millions of firings at ε = 1, so its
per-instance ε₀ is tiny (6.5·10⁻⁵): a sampled bound would need ~10¹² runs to separate
1.63 ε₀ from ε₀. Its claim is therefore ε = :data:`SOURCE_CLAIM` (ε₀ ≈ 1.5) — the same code
path and calibration function; the exact ε of the pair is computed at any claim.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from dpbench.audits import SMALL_PURE_EPSILON, VECTORISED, register_audit
from dpbench.audits.cases.experts import TIGHTNESS_TARGET, pooled_runs_for, smallest_broken_factor
from dpbench.audits.engine import AuditCase, accounting_case, family_bound, recorded_exact_case
from dpbench.audits.step_accounting import account, largest_step
from dpbench.foundation import registry
from dpbench.learners import dp_winnow
from dpbench.learners.dp_winnow import calibrate, composed_privacy
from dpbench.mechanisms.accounting import compose_bounded_range, compose_pure_dp, largest_per_step, zcdp_to_epsilon
from dpbench.mechanisms.exact import binomial_pair_epsilon, epsilon_for_delta, hedge_swap_log_pmfs, product_law_epsilon
from dpbench.mechanisms.laws import recording_laws
from dpbench.problems.halfspace import OnlineStream
from dpbench.theory_check.fit import clopper_pearson

#: The default grid's private stream (config.yaml, halfspaces_online sweep 1).
STREAM = {"n_features": 2, "rho": 1.0, "T": 10**6, "beta": 0.1}
#: ⊥ queries before the last one (4 maximises power per run: exact 0.81 ε₀ / 1.63 ε₀).
N_BELOW = 4
#: Runs per side at which the broken copy's bound exceeds ε₀ at ε = 1 (confidence 0.999).
RUNS = 3_000_000
#: The claim at which the source rule is audited (end to end and its AboveThreshold, ε₀ ≈ 1.5):
#: at ε = 400 (N = 2, ρ = 1) its cap is M ≈ 93 firings of L ≈ 66 rounds, so one stream of
#: ≈ 8·10³ rounds reaches the cap and the pair's loss is the whole EM layer's (at ε = 50 the
#: cap needs ≈ 2.7·10⁶ rounds a run, and its end-to-end audit had no power).
SOURCE_CLAIM = 400.0


@dataclasses.dataclass(frozen=True)
class ReleaseSwapFamily:
    """The claimed learner's own family on :func:`release_pair`: the released draws of
    coordinate 0 are ``Bin(n, σ(η′))`` on D and ``Bin(n, σ(−η′))`` on D′ (n = MK draws,
    η′ = 2η: the log-odds of coordinate 0 after the differing update). Valid for the
    DP-Winnow learners on this pair (a rate error changes η′, not the form), checked on every
    audit by :meth:`fit`. The same construction as the Hedge-swap family of
    :mod:`dpbench.audits.cases.experts`, without its data-independent first round."""

    n: int
    #: p-value below which the goodness-of-fit check rejects the family
    fit_level: float = 1e-3
    name: str = "release-swap"

    def epsilon(self, eta: float, delta: float) -> float:
        """Exact ε(δ) of the member η′ (:func:`~dpbench.mechanisms.exact.hedge_swap_log_pmfs`
        is the Bin(T − 1, σ(±η′)) pair)."""

        return float(epsilon_for_delta(*hedge_swap_log_pmfs(eta, self.n + 1), delta)) if eta > 0 else 0.0

    def lower_bound(self, outputs_d: np.ndarray, outputs_d_prime: np.ndarray, *, delta: float, confidence: float):
        """Lower bound on ε(δ) from all runs of both sides (``method = "pooled"``): within the
        family every draw is Bernoulli(q) for the side's favoured coordinate (0 on D, 1 on
        D′), q = σ(η′), independently, so the favoured draws ``Y ~ Bin(n·(runs_D + runs_D′), q)``
        give a one-sided Clopper–Pearson bound q̲ at ``confidence``, ``η′ ≥ logit(q̲)`` and
        ``ε ≥ ε_{η̲′}(δ)``. No runs are spent choosing a test (the family fixes it). If
        :meth:`fit` rejects the family, the row takes the smaller of this and the model-free
        threshold bound (:func:`dpbench.audits.engine.audit`)."""

        a, b = (np.asarray(x, dtype=np.int64) for x in (outputs_d, outputs_d_prime))
        favoured, trials = int(a.sum()) + int((self.n - b).sum()), self.n * (len(a) + len(b))
        q_lo = float(clopper_pearson(favoured, trials, 2 * confidence - 1)[0])
        eta_lo = math.log(q_lo / (1 - q_lo)) if q_lo > 0.5 else 0.0
        return family_bound(self, a, b, eta_lo=eta_lo, pooled=f"pooled draws {favoured}/{trials}: q >= {q_lo:.6g}", per_run=self.n,
                            delta=delta, confidence=confidence)

    def fit(self, outputs_d: np.ndarray, outputs_d_prime: np.ndarray) -> tuple[bool, str]:
        """Goodness of fit: the maximum-likelihood η̂ of both sides' draws, then Pearson's χ²
        of each side's counts in the deciles of its draws against the member η̂ (one fitted
        parameter). ``(passes, description)``; passes iff the p-value ≥ :attr:`fit_level`."""
        from scipy import optimize, stats  # deferred: scipy.stats takes ~0.7 s to import; planning needs none of it
        from scipy.special import expit

        a, b = (np.asarray(x, dtype=np.int64) for x in (outputs_d, outputs_d_prime))
        if min(a.min(initial=0), b.min(initial=0)) < 0 or max(a.max(initial=0), b.max(initial=0)) > self.n:
            return False, f"draws outside 0..{self.n}"
        nll = lambda eta: -float(stats.binom.logpmf(a, self.n, expit(eta)).sum() + stats.binom.logpmf(b, self.n, expit(-eta)).sum())  # noqa: E731
        eta = float(optimize.minimize_scalar(nll, bounds=(0.0, 10.0), method="bounded", options={"xatol": 1e-9}).x)  # σ(10) ≈ 1
        stat, bins = 0.0, 0
        for x, q in ((a, expit(eta)), (b, expit(-eta))):
            edges = np.unique(np.quantile(x, np.linspace(0, 1, 11)[1:-1]).round())
            expected = np.diff(np.r_[0.0, stats.binom.cdf(edges, self.n, q), 1.0]) * len(x)
            observed = np.bincount(np.searchsorted(edges, x, side="left"), minlength=len(edges) + 1)
            keep = expected > 0
            stat += float(np.sum((observed[keep] - expected[keep]) ** 2 / expected[keep]))
            bins += int(keep.sum())
        pvalue = float(stats.chi2.sf(stat, max(bins - 2 - 1, 1)))
        return pvalue >= self.fit_level, f"fit eta={eta:.4g}, chi2 p={pvalue:.3g}"


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

    tau = dp_winnow.threshold_noise(epsilon0 / noise_scale, rng=rng, size=(runs, 1))
    nu = dp_winnow.query_noise(epsilon0 / noise_scale, (runs, len(queries)), rng=rng)
    fire = queries[None, :] + nu >= L + tau
    return np.where(fire.any(axis=1), fire.argmax(axis=1), len(queries))


def output_law(epsilon0: float, queries: np.ndarray, L: float, noise_scale: float = 1.0, grid: int = 200_001) -> np.ndarray:
    """Exact law of :func:`first_firing`'s output: ``P[k] = ∫ p_T̂(s) Π_{i<k} F(s − q_i) (1 − F(s − q_k)) ds``
    with F the ``Lap(4/ε₀)`` CDF (trapezoid rule over ±80 threshold-noise scales)."""
    from scipy import stats  # deferred: ~0.7 s to import, and planning imports this module

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


def sparse_vector_budget(p, *, epsilon: float, delta: float) -> float:
    """The component row's claim: the ε₀ per AboveThreshold instance that the learner's
    recorded total (ε, δ) leaves for its M + 1 instances once its (M + 1)·K releases
    (4η-bounded-range draws, at the η and K the end-to-end rows audit) are paid — computed
    here with :mod:`dpbench.mechanisms.accounting`, not read from the learner's calibration,
    so a calibration that over-spends ε₀ shows as a component whose exact ε exceeds its
    claim (``tests/test_audit_own_code.py``).

    ``advanced`` accountant (the layers composed basically, each at δ/2): the largest ε₀
    with ``compose_pure_dp(ε₀, M + 1, δ/2) ≤ ε − compose_bounded_range(4η, (M + 1)K, δ/2)``.
    ``zcdp``: the total's ρ (largest with ``zcdp_to_epsilon(ρ, δ) ≤ ε``) less the releases'
    ``(M + 1)K · 2η²`` [Cesar & Rogers, "Bounding, concentrating, and truncating: unifying
    privacy loss composition for data analytics", ALT 2021], spread as ``ε₀²/2`` per
    instance [Bun & Steinke, "Concentrated differential privacy", TCC 2016, Prop. 1.4]."""

    instances, draws = p.M + 1, (p.M + 1) * p.K
    if p.accountant == "advanced":
        left = epsilon - compose_bounded_range(4 * p.eta, draws, delta / 2)
        return largest_per_step(lambda e: compose_pure_dp(e, instances, delta / 2), epsilon=left, delta=delta / 2, upper=left, rtol=1e-9).per_step
    rho = largest_per_step(lambda r: zcdp_to_epsilon(r, delta), epsilon=epsilon, delta=delta, upper=1e6, rtol=1e-12).per_step
    return math.sqrt(2 * max(rho - draws * 2 * p.eta**2, 0.0) / instances)


def sparse_vector_cases(learner: str, *, epsilon: float, delta: float) -> list[AuditCase]:
    """``[correct, broken]`` audits of ``learner``'s AboveThreshold instance (module docstring),
    calibrated by the learner's own accountant and update rule."""

    cls = registry.learner(learner)
    p = calibrate(epsilon=epsilon, delta=delta, accountant=cls.accountant, update=cls.update, **STREAM)
    eps0, L = p.epsilon0, p.threshold
    claim = sparse_vector_budget(p, epsilon=epsilon, delta=delta)
    why = (f"end to end a 2x error of eps0 is invisible (on the release pair both sides' sparse vectors see equal queries; "
           f"a pair moving one query reaches one of the M+1 = {p.M + 1} instances of eps0 = {eps0:.3g}); each AboveThreshold "
           "instance is pure eps0-DP and carries the learner's privacy per firing")
    cases = []
    # the broken copy spends twice the claim per instance (noise scale eps0 / (2 claim) of the
    # learner's; "noise halved" when the learner spends its whole share)
    broken_scale = min(0.5, eps0 / (2 * claim))
    for variant, scale in (("correct", 1.0), ("broken", broken_scale)):
        def sample(side: int, runs: int, rng: np.random.Generator, scale=scale) -> np.ndarray:
            return first_firing(eps0, L, _queries(side, L), runs, rng, noise_scale=scale)

        def exact(scale=scale) -> float:
            return exact_epsilon(output_law(eps0, _queries(0, L), L, scale), output_law(eps0, _queries(1, L), L, scale), 0.0)

        instance = (f"AboveThreshold(eps0={eps0:.4g}, L={L:.4g}) of {learner} at eps={epsilon:g}, delta={delta:g} "
                    f"(N=2, rho=1, T=1e6); queries (L,L,L,L,L) vs (L+1,L+1,L+1,L+1,L-1)")
        cases.append(AuditCase(learner=learner, variant=variant, epsilon=claim, delta=0.0, neighbours="replace-one", instance=instance,
                               sample=sample, exact=exact, component=why,
                               note=(SMALL_PURE_EPSILON + f"; claim = the eps0 the recorded total leaves for the M+1 instances ({claim:.4g}; the learner spends {eps0:.4g})"
                                     if variant == "correct" else f"broken: noise x{scale:.3g} (eps0 {eps0 / scale:.4g} = 2 x the claim)")))
    return cases


# ------------------------------------------------------------------ end to end: the releases

#: η multiplier of the release audit's broken copy, per learner: the smallest error the
#: sampled bound catches at :data:`RELEASE_RUNS` (the smallest whose exact ε(δ) exceeds the
#: claim is computed per row and said in its broken row's note)
RELEASE_BROKEN_ETA = {"dp_winnow": 5.0, "dp_winnow_batched": 16.0, "dp_winnow_batched_tight": 4.0}
#: release-pair runs per side of the broken copy whatever the cell's n, per learner (enough
#: to catch it: the pooled bound's precision grows like √runs), and of the correct copy
RELEASE_RUNS = {"dp_winnow": 200, "dp_winnow_batched": 500, "dp_winnow_batched_tight": 500}
CORRECT_RUNS = 200
#: seconds of one ``run`` on the release pair (one BLAS thread): ε = 400 for the source rule
#: (T ≈ 8·10³), ε = 1 for the batched rules (T ≈ 2.3·10⁴, 1.2·10⁴); the source rule's
#: remeasured 2026-11-26 (3.5 s of audit at 10⁶ runs, idle 2-core build machine; the batched
#: rules' audits measured 16 s and 14 s, within 20% of these)
RELEASE_SECONDS = {"dp_winnow": 4e-3, "dp_winnow_batched": 1.1e-2, "dp_winnow_batched_tight": 6e-3}


def _cost(name: str):
    """Seconds of the audit at ``n`` runs: the two copies' capped runs per side, plus the 4
    runs per copy that record its release laws for the exact value (two seeds × two sides)."""
    return lambda n: 2 * RELEASE_SECONDS[name] * (min(n, CORRECT_RUNS) + min(n, RELEASE_RUNS[name]) + 4) + VECTORISED * n


def release_pair(T: int):
    """Two oblivious streams (N = 2, ρ = 1) differing in round 1 only: ``x = (1, −1)`` on D,
    ``(−1, 1)`` on D′, ``y = +1``; every later round ``x = (0, 0), y = +1``. Every round is
    cached on both sides (margins |⟨w̃, x⟩| < γ̃ w.p. ≥ 1 − 10⁻⁶), so the sparse vector's
    queries — and the firing rounds — have the same law on both sides; round 1 is the first
    cached example of every shadow update, the later ones add 0: after the first firing
    ``log w = ±η(1, −1)`` (``η B`` per unit of ``B`` examples summed: the same here, the other
    batch members are zero), and each of the M releases made at firings draws K times from
    ``w₀ = σ(±2η)``. The released draws of coordinate 0 are ``Bin(MK, σ(2η))`` on D and
    ``Bin(MK, σ(−2η))`` on D′ — each draw the 4η-bounded-range step the claim composes —
    once the stream reaches the cap M."""

    y = np.ones(T)

    def stream(first: tuple[float, float]) -> OnlineStream:
        X = np.zeros((T, 2))
        X[0] = first
        return OnlineStream(T=T, n_features=2, rho=1.0, make_block=lambda b, rng: (X, y), rng=np.random.default_rng(0),
                            checkpoints=np.array([T], dtype=np.int64), block_size=T)

    return stream((1.0, -1.0)), stream((-1.0, 1.0))


#: the longest release pair an end-to-end row runs (rounds; the audited claims need ≤ 3·10⁴)
MAX_RELEASE_HORIZON = 10**6


def release_horizon(learner) -> int:
    """The shortest stream (rounds) on which ``learner``'s calibration reaches its firing cap
    with margin: ``T ≥ 1.3 M L`` at the calibration of that T (K, L grow like ln T)."""
    T = 1000
    for _ in range(20):
        p = learner.calibrate(release_pair(T)[0])
        need = int(math.ceil(1.3 * p.M * p.threshold)) + 100
        if need <= T:
            return T
        if need > MAX_RELEASE_HORIZON:
            break
        T = need
    raise ValueError(f"{learner.name}: its firing cap is out of an end-to-end run's reach (M = {p.M}, L = {p.threshold:.3g})")


def recorded_release_laws(learner, stream, *, same_releases: bool = True) -> np.ndarray:
    """``(draws, N)`` log-laws of every exponential-mechanism draw ``learner.run`` makes on
    ``stream``, as its own ``_draw_released`` computed them at the draw
    (:mod:`dpbench.mechanisms.laws`). Two runs with different seeds must record the same laws
    (on :func:`release_pair` the firing rounds and the cached examples do not depend on the
    draws), else the product composition would not be the output's law: ``ValueError``
    (``same_releases=False``: the two runs need only draw from the same set of laws)."""
    records = []
    for seed in (0, 1):
        with recording_laws() as laws:
            learner.run(stream, rng=np.random.default_rng(seed))
        if not laws:
            raise ValueError(f"{type(learner).__name__} recorded no release laws on the audit pair")
        records.append(np.concatenate(laws))
    if not same_releases:  # only the set of laws drawn from must agree (a run short of the cap: its firings may differ)
        if not np.array_equal(np.unique(records[0], axis=0), np.unique(records[1], axis=0)):
            raise ValueError(f"{type(learner).__name__}'s release laws depend on its own draws on the audit pair")
        return records[0]
    if records[0].shape != records[1].shape or not np.array_equal(records[0], records[1]):
        raise ValueError(f"{type(learner).__name__}'s release laws depend on its own draws on the audit pair: its output law is not a product")
    return records[0]


def release_laws_epsilon(logp: np.ndarray, logq: np.ndarray, delta: float) -> float:
    """Exact ε(δ) of the product of the recorded draws' laws (row t: draw t's log-pmf on D and
    on D′). Draws with one law pair are grouped: m iid draws over N = 2 outcomes are, by
    sufficiency of their counts, ``Bin(m, p)`` vs ``Bin(m, q)``, so each group is one round
    of :func:`~dpbench.mechanisms.exact.product_law_epsilon` (groups padded with impossible
    outcomes to one width); the composition over groups is exact (beyond
    :data:`~dpbench.mechanisms.exact.MAX_SUPPORT` outcomes, a PLD upper bound within ~1e-4 per group).
    Draws whose two laws agree add no loss and are dropped."""
    from scipy import stats  # deferred: ~0.7 s to import, and planning imports this module

    if logp.shape != logq.shape or logp.shape[1] != 2:
        raise ValueError(f"release laws over N = 2 coordinates on both sides expected, got {logp.shape} and {logq.shape}")
    pairs, counts = np.unique(np.c_[logp, logq], axis=0, return_counts=True)
    rounds = []
    for (lp0, _, lq0, _), m in zip(pairs, counts):
        if lp0 != lq0:  # draws with one law on both sides add no loss
            k = np.arange(m + 1)
            rounds.append((stats.binom.logpmf(k, m, math.exp(lp0)), stats.binom.logpmf(k, m, math.exp(lq0))))
    if not rounds:
        return 0.0
    if len(rounds) == 1:  # one group (the audit pair): its pair's ε(δ) directly, at any support size
        return float(epsilon_for_delta(*rounds[0], delta))
    width = max(len(r[0]) for r in rounds)
    pad = lambda x: np.r_[x, np.full(width - len(x), -np.inf)]  # noqa: E731
    return product_law_epsilon(np.array([pad(r[0]) for r in rounds]), np.array([pad(r[1]) for r in rounds]), delta)


def release_exact(learner, pair, delta: float) -> float:
    """Exact ε(δ) of ``learner``'s releases on ``pair``: the product of the laws its own code
    drew from on each side (:func:`recorded_release_laws`, :func:`release_laws_epsilon`)."""
    return release_laws_epsilon(recorded_release_laws(learner, pair[0]), recorded_release_laws(learner, pair[1]), delta)


def with_eta_factor(cls, factor: float, *, epsilon: float, delta: float):
    """The learner ``cls`` at (ε, δ) with the η of its calibration multiplied by ``factor``
    (a rate error of the EM layer; the broken copies), claiming the same (ε, δ)."""

    def broken_calibrate(self, stream):
        return dataclasses.replace(cls.calibrate(self, stream), eta=factor * cls.calibrate(self, stream).eta)

    return dataclasses.make_dataclass(f"Broken{cls.__name__}", [], bases=(cls,), frozen=True,
                                      namespace={"calibrate": broken_calibrate})(epsilon=epsilon, delta=delta)


#: rounds of the release pair of the exact-only rows (a claim whose firing cap no run reaches,
#: ``dp_winnow`` at ε = 1): enough for the first firings, whose releases record the law every
#: later release draws from (2 firings at ε = 1, ~0.2 s a run)
EXACT_HORIZON = 10**7


def capped_release_epsilon(learner, pair, delta: float) -> tuple[float, str]:
    """Exact ε(δ) of all the releases ``learner`` makes up to its firing cap on ``pair``,
    from the laws its own ``_draw_released`` recorded in a run that reaches only the first
    firings: on :func:`release_pair` every release after the differing update draws its K
    draws from one law pair (checked: exactly one distinct pair of differing laws recorded,
    and two seeds record the same laws), so the M releases' MK draws are ``Bin(MK, p)`` vs
    ``Bin(MK, q)``, composed exactly (:func:`~dpbench.mechanisms.exact.binomial_pair_epsilon`).
    ``(ε, description)``."""

    p = learner.calibrate(pair[0])
    logp, logq = (recorded_release_laws(learner, side, same_releases=False) for side in pair)
    common = min(len(logp), len(logq))  # release j on both sides (a run short of the cap may fire more on one side)
    logp, logq = logp[:common], logq[:common]
    differ = np.any(logp != logq, axis=1)
    laws = np.unique(np.c_[logp[differ], logq[differ]], axis=0)
    if len(laws) != 1:
        raise ValueError(f"{type(learner).__name__}: {len(laws)} distinct differing release laws recorded in {pair[0].T} rounds of "
                         "the release pair, expected 1 (at this claim no firing after the differing update in that many rounds?)")
    n = p.M * p.K
    how = (f"{int(differ.sum())} differing draws recorded in {pair[0].T} rounds, law ({math.exp(laws[0][0]):.9f}, "
           f"{math.exp(laws[0][1]):.9f}) vs ({math.exp(laws[0][2]):.9f}, {math.exp(laws[0][3]):.9f}); composed over MK = {n} draws")
    return binomial_pair_epsilon(laws[0][:2], laws[0][2:], n, delta), how


def exact_only_cases(learner: str, *, epsilon: float, delta: float) -> list[AuditCase]:
    """Where no run reaches the firing cap (``dp_winnow`` at ε = 1): ``[correct, broken]``
    exact rows from the laws the learner's own ``run`` records on :func:`release_pair` of
    :data:`EXACT_HORIZON` rounds (:func:`capped_release_epsilon`) and the per-step accounting
    rows from the same laws; no sampled bound (its verdict rests on the computed values)."""

    cls = registry.learner(learner)
    pair = release_pair(EXACT_HORIZON)
    g = cls(epsilon=epsilon, delta=delta).guarantee()
    exact_at = lambda f: capped_release_epsilon(with_eta_factor(cls, f, epsilon=epsilon, delta=delta), pair, g.delta)[0]  # noqa: E731
    factor, why = smallest_broken_factor(exact_at, g.epsilon, "eta", resolvable=1.0)
    cases = []
    for variant, copy in (("correct", cls(epsilon=epsilon, delta=delta)),
                          ("broken", with_eta_factor(cls, factor, epsilon=epsilon, delta=delta))):
        p = copy.calibrate(pair[0])
        broken = f"; eta x{factor:g}" if variant == "broken" else ""
        cases.append(recorded_exact_case(
            learner, variant, g.epsilon, g.delta, "replace-one",
            f"N=2, T={EXACT_HORIZON} release pair (its first firings; cap M={p.M}, K={p.K} at this T's calibration); "
            f"exact: the M releases' MK draws from the law the learner's _draw_released recorded" + broken,
            exact=lambda copy=copy: capped_release_epsilon(copy, pair, g.delta)[0],
            note=(RELEASE_PAIR_NOTE + "; no sampled row at this claim: its cap is out of a run's reach" if variant == "correct"
                  else why)))
        cases.append(accounting_case(
            learner, variant, g.epsilon, g.delta, "replace-one",
            f"N=2, T={EXACT_HORIZON} release pair; per draw: the log-ratio range of the release laws _draw_released recorded on "
            "D and D'" + broken,
            check=lambda copy=copy: release_steps(copy, pair, g.delta),
            note="" if variant == "correct" else f"broken: eta x{factor:g}"))
    return cases


def release_steps(learner, pair, delta: float):
    """Per-step accounting of a DP-Winnow learner (:mod:`dpbench.audits.step_accounting`): the
    largest log-ratio range of the release laws its ``_draw_released`` recorded on the two
    sides of ``pair`` (4η per draw: the shadow weights' log-odds differ by ±2η after the
    differing update), fed with the (M+1)K draws and the M+1 AboveThreshold instances at the
    calibrated ε₀ (audited by the component row) to the learner's own accountant
    (:func:`dpbench.learners.dp_winnow.composed_privacy`), against the calibrated 4η."""

    p = learner.calibrate(pair[0])
    logp, logq = (recorded_release_laws(learner, side, same_releases=False) for side in pair)
    common = min(len(logp), len(logq))  # draw j of release j on both sides (a run short of the cap may fire more on one side)
    step = largest_step(logp[:common], logq[:common])
    total = lambda e: composed_privacy(epsilon0=p.epsilon0, eta=e / 4, K=p.K, M=p.M, delta=delta, accountant=p.accountant)[0]  # noqa: E731
    return account(step, 4 * p.eta, (p.M + 1) * p.K, total,
                   f"4*eta per released draw, M+1 = {p.M + 1} AboveThreshold instances at the calibrated eps0 = {p.epsilon0:.4g}; "
                   f"accountant: composed_privacy ({p.accountant})")


#: why the release pair is near the worst case of DP-Winnow's proof (its rows' note)
RELEASE_PAIR_NOTE = ("pair: the worst case of the EM layer's per-draw analysis (the differing update moves the two shadow weights' "
                     "log-odds by 2*eta in opposite directions, the most one example can, so every later draw's loss is the full "
                     "4*eta); its sparse-vector half is not exercised (both sides cache every round)")


def release_runs_note(eta: float, draws: int, row: dict) -> str:
    """Why a correct release row falls short of its tightness target, and the runs a side
    that would reach it (:func:`~dpbench.audits.cases.experts.pooled_runs_for`; the correct copy
    runs at most :data:`CORRECT_RUNS` a side whatever the cell's n)."""

    needed = pooled_runs_for(ReleaseSwapFamily(draws).epsilon, eta, draws, TIGHTNESS_TARGET, float(row["delta_claimed"]),
                             float(row["confidence"]))
    return (f"the correct copy runs {CORRECT_RUNS} times a side whatever the cell's n (~{RELEASE_SECONDS_NOTE} a run); "
            f"{TIGHTNESS_TARGET:g} of exact needs ~{needed:.2g} runs/side")


#: how long one release-pair run takes, for the notes
RELEASE_SECONDS_NOTE = "5-15 ms"


def release_cases(learner: str, *, epsilon: float, delta: float) -> list[AuditCase]:
    """``[correct, broken]``: the whole learner (``run``) on :func:`release_pair` at its
    recorded (ε, δ), on a stream long enough to reach its cap; statistic: the released draws
    of coordinate 0 over the releases made at firings (``released_draws``). Lower bound: the
    Bin(MK, σ(±η′)) family's pooled Clopper–Pearson bound (:class:`ReleaseSwapFamily`); exact: the
    product of the release laws the copy's own ``run`` records on each side
    (:func:`release_exact`). Broken copy: η ×
    ``RELEASE_BROKEN_ETA`` (a calibration error of the EM layer), claiming the same (ε, δ)."""

    cls = registry.learner(learner)
    correct = cls(epsilon=epsilon, delta=delta)
    factor = RELEASE_BROKEN_ETA[learner]
    broken = with_eta_factor(cls, factor, epsilon=epsilon, delta=delta)
    T = release_horizon(correct)
    pair = release_pair(T)
    g = correct.guarantee()
    base = correct.calibrate(pair[0])
    family = ReleaseSwapFamily(base.M * base.K)
    smallest = next((f for f in range(2, 65) if family.epsilon(2 * f * base.eta, g.delta) > g.epsilon), math.inf)
    cases = []
    for variant, copy in (("correct", correct), ("broken", broken)):
        p = copy.calibrate(pair[0])
        draws = p.M * p.K

        def sample(side: int, runs: int, rng: np.random.Generator, copy=copy, draws=draws) -> np.ndarray:
            out = np.empty(runs, dtype=np.int64)
            for i in range(runs):
                d = copy.run(pair[side], rng=rng).diagnostics
                if d["firings"] != d["M"]:
                    raise RuntimeError(f"{learner}: {d['firings']} firings < cap {d['M']} on the {T}-round release pair")
                out[i] = d["released_draws"][0]
            return out

        def exact(copy=copy) -> float:
            return release_exact(copy, pair, g.delta)

        cases.append(accounting_case(
            learner, variant, g.epsilon, g.delta, "replace-one",
            f"N=2, T={T} release pair; per draw: the log-ratio range of the release laws _draw_released recorded on D and D'"
            + (f"; eta x{factor:g}" if variant == "broken" else ""),
            check=lambda copy=copy: release_steps(copy, pair, g.delta),
            note=RELEASE_PAIR_NOTE if variant == "correct" else f"broken: eta x{factor:g}"))

        cases.append(AuditCase(
            learner=learner, variant=variant, epsilon=g.epsilon, delta=g.delta, neighbours="replace-one",
            instance=(f"end to end: N=2, T={T} (the cap M={p.M} is reached); round 1 x=(1,-1) vs (-1,1), y=+1, then x=(0,0) "
                      f"(all cached); statistic: released draws of coordinate 0 over the M releases at firings, "
                      f"Bin(MK={draws}, sigma(+-2 eta)); eta={p.eta:.4g}" + (f" (x{factor:g})" if variant == "broken" else "")),
            sample=sample, exact=exact, method="pooled", family=ReleaseSwapFamily(draws),
            runs_cap=CORRECT_RUNS if variant == "correct" else RELEASE_RUNS[learner],
            explain=(lambda row, eta=2 * p.eta, draws=draws: release_runs_note(eta, draws, row)) if variant == "correct" else None,
            note=(f"the claim composes M+1 = {p.M + 1} AboveThreshold instances and (M+1)K = {(p.M + 1) * p.K} draws "
                  f"({cls.accountant} accounting); on this pair only the M releases after the differing update carry loss "
                  "(the sparse-vector half is unused: both sides cache every round)") if variant == "correct"
            else (f"broken: eta x{factor:g}; the smallest integer rate error whose exact eps exceeds the claim is "
                  f"x{smallest:g}, caught by sampling only with more runs than the default workflow's "
                  f"{RELEASE_RUNS[learner]}" if smallest < factor else f"broken: eta x{factor:g}, the smallest integer rate error "
                  "whose exact eps exceeds the claim"),
        ))
    return cases


#: the claim the workflow's DP-Winnow cells make that :func:`audit_only_note` measures the source rule at
WORKFLOW_CLAIM = 1.0


def registry_learner(name: str):

    return registry.learner(name)


def audit_only_note(epsilon: float, delta: float) -> str:
    """Why the source rule's rows are at an audit-only claim (generated from its calibration):
    at :data:`WORKFLOW_CLAIM` on the default grid's stream its cap M and threshold L make a
    run that reaches the cap ≈ M·L rounds per side, which no sampled row can afford; the
    exact and per-step accounting rows of :func:`exact_only_cases` audit that claim from the
    laws its first firings record instead."""
    at_one = calibrate(epsilon=WORKFLOW_CLAIM, delta=delta, accountant="advanced", update="first", **STREAM)
    return (f"audit-only claim eps={epsilon:g} (no workflow cell claims it; chosen so that a run reaches the firing cap): "
            f"at eps={WORKFLOW_CLAIM:g} the cap is M={at_one.M} firings of L={at_one.threshold:.3g} rounds "
            f"(N=2, rho=1, T=1e6 calibration), a run of at least ~{at_one.M * at_one.threshold:.2g} rounds per side to reach it (L grows with T), "
            f"so no sampled row at eps={WORKFLOW_CLAIM:g} is affordable (its claim there is audited by exact and per-step "
            f"accounting rows from the laws recorded in a {EXACT_HORIZON:.0e}-round pair's first firings)")


@register_audit("dp_winnow", epsilon=SOURCE_CLAIM, runs=200_000, cost=_cost("dp_winnow"))
def dp_winnow_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    """At :data:`SOURCE_CLAIM`: end to end, its per-step accounting and its AboveThreshold
    component; at a claim whose cap no run reaches (the workflow's ε = 1): the exact-only and
    per-step accounting rows from the laws recorded in its first firings
    (:func:`exact_only_cases`)."""
    try:
        release_horizon(registry_learner("dp_winnow")(epsilon=epsilon, delta=delta))
    except ValueError:
        return exact_only_cases("dp_winnow", epsilon=epsilon, delta=delta)
    cases = release_cases("dp_winnow", epsilon=epsilon, delta=delta) + sparse_vector_cases("dp_winnow", epsilon=epsilon, delta=delta)
    if epsilon != SOURCE_CLAIM:
        return cases
    why = audit_only_note(epsilon, delta)
    return [dataclasses.replace(c, note=f"{why}; {c.note}" if c.note else why) for c in cases]


@register_audit("dp_winnow_batched", runs=RUNS, cost=_cost("dp_winnow_batched"))
def dp_winnow_batched_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    return (release_cases("dp_winnow_batched", epsilon=epsilon, delta=delta)
            + sparse_vector_cases("dp_winnow_batched", epsilon=epsilon, delta=delta))


@register_audit("dp_winnow_batched_tight", runs=RUNS, cost=_cost("dp_winnow_batched_tight"))
def dp_winnow_batched_tight_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    return (release_cases("dp_winnow_batched_tight", epsilon=epsilon, delta=delta)
            + sparse_vector_cases("dp_winnow_batched_tight", epsilon=epsilon, delta=delta))
