"""Audits of the private PAC learners (issue 10): ``exp_mech_erm``,
``private_sq_conjunction``, ``privdl``, ``privdl_composition``.

``exp_mech_erm`` and ``private_sq_conjunction`` draw all runs of a side at once through the
learner's own batched ``release(sample, rng=, runs=)``, which their ``fit`` calls (Gumbel-max
over runs × outcomes, Laplace noise over runs × queries); the privdl learners call ``fit``
per run, and their exact ε(δ) is composed from the laws their own exponential mechanism
records at the draw (:mod:`dpbench.learners.laws`). The tests check ``fit`` against
``release`` on common draws.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from dpbench.audits.engine import AuditCase
from dpbench.audits import per_run, register_audit
from dpbench.learners.base import REPLACE_ONE
from dpbench.learners.laws import recording_laws
from dpbench.mechanisms.exact import epsilon_for_delta, product_law_epsilon
from dpbench.problems.base import Sample
from dpbench.problems.conjunction import ConjunctionClass

CORRECT, BROKEN = "correct", "broken"


def exp_mech_erm_pair() -> tuple[Sample, Sample]:
    """Class {true, x₁} (d = 1, monotone). D: four (x=0, y=1) → mistakes (0, 4); D': one
    replaced by (0, 0) → mistakes (1, 3). P[x₁] moves from 1/(1+e^{2ε}) to 1/(1+e^{ε}):
    privacy loss 0.81ε (correct), 1.9ε (ε doubled)."""
    cls = ConjunctionClass(d=1, monotone=True)
    X = np.zeros((4, 1), np.uint8)
    return Sample(X, np.array([1, 1, 1, 1], np.uint8), concept_class=cls), Sample(X, np.array([1, 1, 1, 0], np.uint8), concept_class=cls)


@register_audit("exp_mech_erm", delta=0.0, cost=per_run(4e-7))  # 3.9 s at 10⁷ runs (measured, see dpbench.audits)
def exp_mech_erm_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    from dpbench.learners.erm import class_mistakes
    from dpbench.learners.exp_mech_erm import ExpMechERM
    from dpbench.mechanisms.exponential import ExponentialMechanism

    @dataclasses.dataclass(frozen=True, kw_only=True)
    class HalfSensitivity(ExpMechERM):
        """The learner with its score sensitivity halved (ε x2), claiming the same ε."""

        def mechanism(self) -> ExponentialMechanism:
            return ExponentialMechanism(epsilon=self.epsilon, sensitivity=0.5)

    pair = exp_mech_erm_pair()
    scores = [-class_mistakes(s).astype(np.float64) for s in pair]
    claim = ExpMechERM(epsilon=epsilon).guarantee()

    def case(variant: str, learner) -> AuditCase:
        def sample(side: int, runs: int, rng: np.random.Generator) -> np.ndarray:
            return learner.release(pair[side], rng=rng, runs=runs)

        mech = learner.mechanism()
        return AuditCase(
            "exp_mech_erm", variant, claim.epsilon, claim.delta, claim.neighbours,
            "class {true, x1}; 4 x (0, 1) vs one label flipped to 0; output hypothesis",
            sample=sample, exact=lambda: epsilon_for_delta(mech.log_probabilities(scores[0]), mech.log_probabilities(scores[1]), claim.delta),
            note="" if variant == CORRECT else "broken: score sensitivity halved (eps x2)",
        )

    return [case(CORRECT, ExpMechERM(epsilon=epsilon)), case(BROKEN, HalfSensitivity(epsilon=epsilon))]


def sq_pair() -> tuple[Sample, Sample]:
    """Monotone d = 2, n = 100, α = 0.04 ⇒ τ = α/(2m) = 0.01. D: two positives at x = (0,0)
    (both literal answers 0.02), 98 negatives at (1,1); D': one positive replaced by a
    negative at (1,1) (answers 0.01 = τ). P[both literals kept] = e^{−ε}/4 on D and 1/4 on
    D': privacy loss exactly ε (2ε with the Laplace scale halved)."""
    cls = ConjunctionClass(d=2, monotone=True)
    X = np.ones((100, 2), np.uint8)
    X[:2] = 0
    y = np.zeros(100, np.uint8)
    y[:2] = 1
    X2, y2 = X.copy(), y.copy()
    X2[1], y2[1] = 1, 0
    return Sample(X, y, concept_class=cls), Sample(X2, y2, concept_class=cls)


SQ_ALPHA = 0.04


def sq_statistic(learner, sample: Sample, runs: int, rng: np.random.Generator) -> np.ndarray:
    """Bitmask of the literals ``learner.fit`` keeps, for ``runs`` runs at once: the
    learner's own batched :meth:`release` (the noisy answers ``fit`` thresholds), kept where
    below its :meth:`threshold` (the noised rows only: the monotone class ignores row 1)."""
    rows = 1 if sample.concept_class.monotone else 2
    noisy = learner.release(sample, rng=rng, runs=runs)[:, :rows]
    keep = (noisy < learner.threshold(sample)).reshape(runs, -1)
    return keep.astype(np.int64) @ (1 << np.arange(keep.shape[1], dtype=np.int64))


def sq_exact(learner, pair, delta: float) -> float:
    """Exact ε(δ) of :func:`sq_statistic`'s law on ``pair``: literal j is kept independently
    with probability ``F((τ − a_j)/b)`` (F the Laplace CDF, ``b`` the learner's Laplace scale
    ``(1/n)/ε_q``, τ = α/(2m)); the kept set's law is the product over literals."""
    from scipy import stats

    from dpbench.learners.sq_conjunction import literal_queries, n_literals

    laws = []
    for sample in pair:
        m = n_literals(sample)
        answers = literal_queries(sample)[:1 if sample.concept_class.monotone else 2].ravel()
        scale = (1 / len(sample)) / learner.epsilon_per_query(m)
        keep = stats.laplace.cdf(learner.alpha / (2 * m) - answers, scale=scale)
        codes = np.arange(2 ** len(keep))[:, None] >> np.arange(len(keep))[None, :] & 1
        laws.append(np.sum(np.where(codes == 1, np.log(keep), np.log1p(-keep)), axis=1))
    return epsilon_for_delta(laws[0], laws[1], delta)


@register_audit("private_sq_conjunction", delta=0.0, cost=per_run(5e-7))  # 4.8 s at 10⁷
def private_sq_conjunction_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    from dpbench.learners.private_sq_conjunction import PrivateSQConjunction

    pair = sq_pair()
    correct = PrivateSQConjunction(epsilon=epsilon, delta=delta, alpha=SQ_ALPHA)

    @dataclasses.dataclass(frozen=True, kw_only=True)
    class DoubleBudget(PrivateSQConjunction):
        """The learner spending twice its per-query budget (Laplace scale halved), claiming the same ε."""

        def epsilon_per_query(self, m: int) -> float:
            return 2 * super().epsilon_per_query(m)

    def case(variant: str, klass) -> AuditCase:
        learner = klass(epsilon=epsilon, delta=delta, alpha=SQ_ALPHA)
        return AuditCase(
            "private_sq_conjunction", variant, correct.guarantee().epsilon, correct.guarantee().delta, correct.guarantee().neighbours,
            "monotone d=2, n=100: 2 positives at (0,0) vs 1 (the other moved to a negative at (1,1)); kept literals",
            sample=lambda side, runs, rng: sq_statistic(learner, pair[side], runs, rng),
            exact=lambda: sq_exact(learner, pair, delta),
        )

    return [case(CORRECT, PrivateSQConjunction), case(BROKEN, DoubleBudget)]


def privdl_pair() -> tuple[Sample, Sample]:
    """D = {((1,1), 1)}, D' = {((1,1), 0)} over monotone 2-term features (d = 2): every
    feature covers (1,1)."""
    from dpbench.problems.decision_list import DecisionListClass, FeatureClass

    cls = DecisionListClass(FeatureClass(d=2, k=2, monotone=True))
    X = np.array([[1, 1]], dtype=np.uint8)
    return Sample(X, np.array([1], np.uint8), concept_class=cls), Sample(X, np.array([0], np.uint8), concept_class=cls)


def recorded_round(learner, sample: Sample) -> np.ndarray:
    """The law of the one exponential-mechanism round the learner draws on
    :func:`privdl_pair`'s ``sample``, as its own code computed it at the draw (``fit`` inside
    :func:`~dpbench.learners.laws.recording_laws`: the log-pmf over (feature, bit) that
    ``exp_mech_select`` hands to Gumbel-max). On this pair the single example is covered by
    every feature, so the sample is empty after round 1 and every later round is drawn
    without looking at the data (a uniform order of the remaining pairs): the output's
    privacy loss is round 1's. A learner recording any other number of rounds breaks that
    premise: ``ValueError``."""
    with recording_laws() as laws:
        learner.fit(sample, rng=np.random.default_rng(0))
    if len(laws) != 1:
        raise ValueError(f"{type(learner).__name__} drew {len(laws)} exponential-mechanism rounds on the audit pair, expected 1")
    return laws[0]


def privdl_exact(learner, delta: float) -> float:
    """Exact ε(δ) of the learner's output on :func:`privdl_pair`: its recorded round-1 laws."""
    return product_law_epsilon(*(recorded_round(learner, sample) for sample in privdl_pair()), delta)


def bit_runs_for(p: float, q: float, tightness: float, confidence: float) -> float:
    """Runs per side at which the threshold audit of one event of probabilities ``p`` (D)
    and ``q`` (D'), half the runs held out, is expected (plug-in, normal approximation) to
    reach ``tightness`` × ``ln(p/q)``: ``ln((p − zσ)/(q + zσ)) = tightness · ln(p/q)``."""
    from scipy import stats

    z = float(stats.norm.isf(1 - confidence))
    ratio = math.exp(tightness * math.log(p / q))
    sigma = (p - ratio * q) / (z * (1 + ratio))
    return 2 * p * (1 - p) / sigma**2


#: tightness a correct privdl row aims at (issue 19: learners other than pure-DP or Gaussian)
PRIVDL_TARGET = 0.8


#: the correct privdl rows' note: whose slack their claim/exact is (issue 19 review, finding 3)
PAIR_SLACK = ("'analysis loose' below is this pair's slack, not shown to be the set-cover analysis's: the differing example is covered "
              "in round 1, so one exponential-mechanism round carries the whole loss, while the analysis pays its ln(e/delta') "
              "factor for an example that stays uncovered over many rounds, which this pair does not exercise")


def _privdl_cases(name: str, learner, lam_of, epsilon: float, delta: float) -> list[AuditCase]:
    """End to end through ``fit``: statistic the first rule's bit. The exact ε(δ) of the
    output is that of round 1's law as the learner's own code drew it (:func:`recorded_round`);
    the broken copy's λ error is the smallest power of two whose exact ε clears the claim
    (:func:`~dpbench.audits.cases.experts.smallest_broken_factor`)."""
    from dpbench.audits.cases.experts import smallest_broken_factor

    pair = privdl_pair()
    g = learner.guarantee()

    def with_lam_factor(factor: float):
        @dataclasses.dataclass(frozen=True, kw_only=True)
        class Broken(type(learner)):
            def lam(self, *args) -> float:
                return factor * type(learner).lam(self, *args)

        return Broken(epsilon=learner.epsilon, delta=learner.delta) if factor != 1 else learner

    factor, why = smallest_broken_factor(lambda f: privdl_exact(with_lam_factor(f), g.delta), g.epsilon, "lambda", slack_of="this pair's")
    lam = lam_of(learner)

    def explain(row: dict) -> str:
        p = 1 / (1 + math.exp(-lam))  # P[first bit = 1] on D; 1 − p on D' (the bit's loss is exactly λ)
        needed = bit_runs_for(p, 1 - p, PRIVDL_TARGET, float(row["confidence"]))
        return (f"a loss of lambda = {lam:.3g} on one bit moves its frequency by {2 * p - 1:.2g}; "
                f"{PRIVDL_TARGET:g} of it needs ~{needed:.2g} runs/side of fit")

    cases = []
    for variant, copy in ((CORRECT, learner), (BROKEN, with_lam_factor(factor))):
        def sample(side: int, runs: int, rng: np.random.Generator, copy=copy) -> np.ndarray:
            return np.array([int(copy.fit(pair[side], rng=rng).bits[0]) for _ in range(runs)])

        cases.append(AuditCase(
            name, variant, g.epsilon, g.delta, REPLACE_ONE,
            f"end to end: D={{((1,1),1)}} vs D'={{((1,1),0)}}, monotone 2-term features, d=2; statistic: first rule's bit; "
            f"lambda={lam_of(copy):.4g}; exact: round 1's law recorded by the learner's exponential mechanism",
            sample=sample, exact=lambda copy=copy: privdl_exact(copy, g.delta),
            note=PAIR_SLACK if variant == CORRECT else why, explain=explain if variant == CORRECT else None,
        ))
    return cases


#: ``dpbench audit`` runs per side of the privdl learners (one ``fit`` on the pair ≈ 0.1 ms: :data:`PRIVDL_SECONDS`)
PRIVDL_RUNS = 2000
#: seconds of one ``fit`` on the pair, per learner (measured 2026-11-26: 5.7 s / 9 s of
#: audit at 2·10⁴ runs, idle 2-core build machine)
PRIVDL_SECONDS = {"privdl": 7e-5, "privdl_composition": 1.1e-4}


@register_audit("privdl", runs=PRIVDL_RUNS, cost=lambda n: 4 * PRIVDL_SECONDS["privdl"] * n)
def privdl_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    from dpbench.learners.privdl import PrivDL

    return _privdl_cases("privdl", PrivDL(epsilon=epsilon, delta=delta), lambda lr: lr.lam(), epsilon, delta)


@register_audit("privdl_composition", runs=PRIVDL_RUNS, cost=lambda n: 4 * PRIVDL_SECONDS["privdl_composition"] * n)
def privdl_composition_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    from dpbench.learners.privdl import feature_class
    from dpbench.learners.privdl_composition import PrivDLComposition

    size = feature_class(privdl_pair()[0]).size
    return _privdl_cases("privdl_composition", PrivDLComposition(epsilon=epsilon, delta=delta), lambda lr: lr.lam(size), epsilon, delta)
