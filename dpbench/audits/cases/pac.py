"""Audits of the private PAC learners (issue 10): ``exp_mech_erm``,
``private_sq_conjunction``, ``privdl``, ``privdl_composition``.

``exp_mech_erm`` and ``private_sq_conjunction`` draw all runs of a side at once through the
learner's own batched ``release(sample, rng=, runs=)``, which their ``fit`` calls (Gumbel-max
over runs × outcomes, Laplace noise over runs × queries); the privdl learners call ``fit``
per run, and their exact ε(δ) is composed from the laws their own exponential mechanism
records at the draw (:mod:`dpbench.mechanisms.laws`). The tests check ``fit`` against
``release`` on common draws.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy.special import logsumexp

from dpbench.audits import per_run, register_audit
from dpbench.audits.cases.experts import smallest_broken_factor
from dpbench.audits.engine import AuditCase, accounting_case, exposure_note, recorded_exact_case
from dpbench.audits.step_accounting import account, largest_step, recorded_release
from dpbench.learners.base import REPLACE_ONE
from dpbench.learners.erm import class_mistakes
from dpbench.learners.exp_mech_erm import ExpMechERM
from dpbench.learners.private_sq_conjunction import PrivateSQConjunction
from dpbench.learners.sq_conjunction import literal_queries, n_literals
from dpbench.mechanisms.exact import epsilon_for_delta, product_law_epsilon
from dpbench.mechanisms.exponential import ExponentialMechanism
from dpbench.mechanisms.laws import recording_laws
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
            note=exp_mech_erm_pair_note(claim.epsilon, epsilon_for_delta(mech.log_probabilities(scores[0]),
                                                                         mech.log_probabilities(scores[1]), claim.delta))
            if variant == CORRECT else "broken: score sensitivity halved (eps x2)",
        )

    cases = [case(CORRECT, ExpMechERM(epsilon=epsilon)), case(BROKEN, HalfSensitivity(epsilon=epsilon))]
    from dpbench.audits.cases.erm import exp_mech_steps  # deferred: imports numba

    for variant, learner in ((CORRECT, ExpMechERM(epsilon=epsilon)), (BROKEN, HalfSensitivity(epsilon=epsilon))):
        cases.append(accounting_case("exp_mech_erm", variant, claim.epsilon, claim.delta, claim.neighbours,
                                     "the law the exponential mechanism drew from on each side (recorded at release)"
                                     + ("" if variant == CORRECT else "; score sensitivity halved"),
                                     check=lambda learner=learner: exp_mech_steps(learner, pair, claim.epsilon),
                                     note="" if variant == CORRECT else "broken: score sensitivity halved"))
    return cases


def exp_mech_erm_pair_note(epsilon: float, pair: float) -> str:
    """Why :func:`exp_mech_erm_pair` is near the worst case of the exponential mechanism's
    proof ([MT07]; [DR14, Thm 3.10]): a replaced example moves each hypothesis's mistakes by
    at most 1 (the sensitivity), so ``ln p(h)/p′(h) = (ε/2)(δ(h) − ln E_{p′}e^{(ε/2)δ})`` is at
    most ε, approached when the output's score rises by 1 and the normaliser's mass sits on a
    hypothesis whose score falls by 1 (here: more (0, 1) examples, mass on ``true``)."""

    return ("pair: near the worst case of the exponential mechanism's proof (the flipped label moves the two hypotheses' "
            "mistakes by 1 in opposite directions, the full sensitivity, and 'true', which holds most of the mass, moves against "
            "x1); " + exposure_note(pair, epsilon, "the supremum eps, as more (0,1) examples put the mass on 'true'"))


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
            note=sq_pair_note(sq_exact(learner, pair, delta), correct.guarantee().epsilon, delta) if variant == CORRECT else "",
        )

    cases = [case(CORRECT, PrivateSQConjunction), case(BROKEN, DoubleBudget)]
    for variant, klass in ((CORRECT, PrivateSQConjunction), (BROKEN, DoubleBudget)):
        learner = klass(epsilon=epsilon, delta=delta, alpha=SQ_ALPHA)
        cases.append(accounting_case("private_sq_conjunction", variant, correct.guarantee().epsilon, correct.guarantee().delta,
                                     correct.guarantee().neighbours,
                                     "the Laplace scale and sensitivity of the literal queries, recorded at release"
                                     + ("" if variant == CORRECT else "; per-query budget x2"),
                                     check=lambda learner=learner: sq_steps(learner, pair[0]),
                                     note="" if variant == CORRECT else "broken: per-query budget x2"))
    return cases


def sq_pair_note(pair: float, epsilon: float, delta: float) -> str:
    """Why :func:`sq_pair` is the worst case of ``private_sq_conjunction``'s proof (m Laplace
    literal queries of sensitivity 1/n, basic composition [DR14, Thm 3.16]): the replaced
    positive moves every literal query by the full 1/n, and the kept set "both literals"
    sits in both queries' Laplace tails, so the m per-query losses add up to the claim."""

    note = ("pair: the worst case of the proof (the replaced positive moves both literal queries by the full sensitivity 1/n, and "
            "'both kept' lies in both queries' Laplace tails, so the per-query losses add up as basic composition charges)")
    return note + ("; " + exposure_note(pair, epsilon, "the claim: basic composition of the pure per-query budgets") if delta == 0 else "")


def sq_steps(learner, sample):
    """Per-step accounting of ``private_sq_conjunction`` (:mod:`dpbench.audits.step_accounting`): the
    Laplace noise its release drew with, ``ε_q = Δ/b`` per literal query (Δ = 1/n), against
    the calibrated ``epsilon_per_query(m)``, and the m queries composed by its own accountant
    (``privacy_of``)."""

    rec = recorded_release(learner, sample)
    m = n_literals(sample)
    return account(rec["sensitivity"] / rec["scale"], type(learner).epsilon_per_query(learner, m), m,
                   lambda e: learner.privacy_of(e, m), f"Laplace: sensitivity/scale per literal query; {m} queries; accountant: privacy_of")


def privdl_pair() -> tuple[Sample, Sample]:
    """D = {((1,1), 1)}, D' = {((1,1), 0)} over monotone 2-term features (d = 2): every
    feature covers (1,1)."""
    from dpbench.problems.decision_list import DecisionListClass, FeatureClass  # deferred: imports numba

    cls = DecisionListClass(FeatureClass(d=2, k=2, monotone=True))
    X = np.array([[1, 1]], dtype=np.uint8)
    return Sample(X, np.array([1], np.uint8), concept_class=cls), Sample(X, np.array([0], np.uint8), concept_class=cls)


def recorded_round(learner, sample: Sample) -> np.ndarray:
    """The law of the one exponential-mechanism round the learner draws on
    :func:`privdl_pair`'s ``sample``, as its own code computed it at the draw (``fit`` inside
    :func:`~dpbench.mechanisms.laws.recording_laws`: the log-pmf over (feature, bit) that
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


def covered_pair_note(name: str, pair: float, uncovered: float) -> str:
    """The end-to-end row's note: :data:`PAIR_SLACK`, and its pair's exact ε(δ) against the
    uncovered pair's (:func:`uncovered_exact`, near the set-cover analysis's worst case; for
    ``privdl``, below half, which the note says). ``privdl_composition``'s analysis has
    another worst case (a loss in each of its |F| rounds) that neither pair reaches."""
    if name != "privdl":
        return (f"{PAIR_SLACK}; this pair's exact eps {pair:.4g}, the uncovered pair's {uncovered:.4g}: the composition analysis's "
                "worst case (a loss in each of its |F| rounds) is reached by neither, so both expose LESS THAN HALF of the "
                "claim it composes (the exact rows' note)")
    share = pair / uncovered if uncovered > 0 else math.nan
    return (f"{PAIR_SLACK}; this pair's exact eps {pair:.4g} = {share:.2f} of the uncovered pair's {uncovered:.4g} (the exact rows "
            "below, near the analysis's worst case)" + ("; the pair exposes LESS THAN HALF of it" if share < 0.5 else ""))


def _privdl_cases(name: str, learner, lam_of, compose, epsilon: float, delta: float) -> list[AuditCase]:
    """End to end through ``fit``: statistic the first rule's bit. The exact ε(δ) of the
    output is that of round 1's law as the learner's own code drew it (:func:`recorded_round`);
    the broken copy's λ error is the smallest power of two whose exact ε clears the claim
    (:func:`~dpbench.audits.cases.experts.smallest_broken_factor`)."""

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
        cases.append(accounting_case(
            name, variant, g.epsilon, g.delta, REPLACE_ONE,
            "D={((1,1),1)} vs D'={((1,1),0)}, monotone 2-term features, d=2; per selection: the log-ratio range of the "
            "logits the exponential mechanism recorded on D and D'" + (f"; lambda x{factor:g}" if variant == BROKEN else ""),
            check=lambda copy=copy: privdl_steps(copy, lam_of, compose),
            note="" if variant == CORRECT else f"broken: lambda x{factor:g}"))

        def sample(side: int, runs: int, rng: np.random.Generator, copy=copy) -> np.ndarray:
            return np.array([int(copy.fit(pair[side], rng=rng).bits[0]) for _ in range(runs)])

        cases.append(AuditCase(
            name, variant, g.epsilon, g.delta, REPLACE_ONE,
            f"end to end: D={{((1,1),1)}} vs D'={{((1,1),0)}}, monotone 2-term features, d=2; statistic: first rule's bit; "
            f"lambda={lam_of(copy):.4g}; exact: round 1's law recorded by the learner's exponential mechanism",
            sample=sample, exact=lambda copy=copy: privdl_exact(copy, g.delta),
            note=covered_pair_note(name, privdl_exact(learner, g.delta), uncovered_exact(learner, UNCOVERED_N, g.delta))
            if variant == CORRECT else why, explain=explain if variant == CORRECT else None,
        ))
    exact_factor, exact_why = smallest_broken_factor(lambda f: uncovered_exact(with_lam_factor(f), UNCOVERED_N, g.delta), g.epsilon,
                                                     "lambda", resolvable=1.0)
    for variant, copy in ((CORRECT, learner), (BROKEN, with_lam_factor(exact_factor))):
        cases.append(recorded_exact_case(
            name, variant, g.epsilon, g.delta, REPLACE_ONE,
            f"the uncovered pair: x = 0 repeated n={UNCOVERED_N} times, y=1, vs one label flipped to 0; feature class "
            f"{WORKFLOW_FEATURES} (the workflow's, |F| = 129); exact: the law of (first covering round, its bit) from the "
            "round-1 law the learner's exponential mechanism recorded" + (f"; lambda x{exact_factor:g}" if variant == BROKEN else ""),
            exact=lambda copy=copy: uncovered_exact(copy, UNCOVERED_N, g.delta),
            note=(UNCOVERED_NOTE if name == "privdl" else UNCOVERED_NOTE_COMPOSITION) if variant == CORRECT else exact_why))
    return cases


def privdl_steps(learner, lam_of, compose):
    """Per-step accounting of a covering learner (:mod:`dpbench.audits.step_accounting`): the
    log-ratio range of the selection law its exponential mechanism recorded on the two sides
    of :func:`privdl_pair` (2λ: the flipped label moves q(f, 1) and q(f, 0) by ∓1 for every
    f), fed to the learner's own accountant ``privacy_of`` — ``privdl``: the set-cover total
    at rate step/2 ([BF26, Lemma A.1] with group privacy for replace-one); ``privdl_composition``:
    composition of |F| rounds of ε₀ = step ([DRV10]) — against the calibrated 2λ.
    ``compose(learner, |F|) -> (step ↦ total ε, description)``."""
    from dpbench.learners.privdl import feature_class  # deferred: imports numba

    step = largest_step(*(recorded_round(learner, sample) for sample in privdl_pair()))
    size = feature_class(privdl_pair()[0]).size
    total, what = compose(learner, size)
    return account(step, 2 * lam_of(learner), size, total, what)


#: ``dpbench audit`` runs per side of the privdl learners (one ``fit`` on the pair ≈ 0.1 ms: :data:`PRIVDL_SECONDS`)
PRIVDL_RUNS = 2000
#: seconds of one ``fit`` on the pair, per learner (measured 2026-11-26: 5.7 s / 9 s of
#: audit at 2·10⁴ runs, idle 2-core build machine)
PRIVDL_SECONDS = {"privdl": 7e-5, "privdl_composition": 1.1e-4}


@register_audit("privdl", runs=PRIVDL_RUNS, cost=lambda n: 4 * PRIVDL_SECONDS["privdl"] * n)
def privdl_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    from dpbench.learners.privdl import PrivDL  # deferred: imports numba

    def compose(learner, size: int):
        return (lambda e: learner.privacy_of(e / 2)[0]), "2*lambda per selection; accountant: the set-cover analysis (privacy_of)"

    return _privdl_cases("privdl", PrivDL(epsilon=epsilon, delta=delta), lambda lr: lr.lam(), compose, epsilon, delta)


@register_audit("privdl_composition", runs=PRIVDL_RUNS, cost=lambda n: 4 * PRIVDL_SECONDS["privdl_composition"] * n)
def privdl_composition_cases(*, epsilon: float, delta: float) -> list[AuditCase]:
    from dpbench.learners.privdl import feature_class  # deferred: imports numba
    from dpbench.learners.privdl_composition import PrivDLComposition  # deferred: imports numba

    size = feature_class(privdl_pair()[0]).size
    def compose(learner, size: int):
        return ((lambda e: learner.privacy_of(e, size)[0]),
                f"eps0 = 2*lambda per round; accountant: composition of |F| = {size} rounds (privacy_of)")

    return _privdl_cases("privdl_composition", PrivDLComposition(epsilon=epsilon, delta=delta), lambda lr: lr.lam(size), compose,
                         epsilon, delta)


# ------------------------------------------------------------------ privdl: the uncovered pair

#: copies of the all-zero point (its exact ε grows with n and is flat from ~10³: e^{−λn} → 0)
UNCOVERED_N = 1000
UNCOVERED_NOTE = ("pair: near the worst case of the set-cover analysis (the differing example stays uncovered while every "
                  "round's covering weights differ between the sides, so the loss accumulates over rounds; the round-1 pair "
                  "of the end-to-end row covers it at once); exact only: a sampled bound would need ~1e5-1e6 fits a side")
UNCOVERED_NOTE_COMPOSITION = ("pair: the set-cover analysis's worst case, audited beside the end-to-end row's; the composition "
                              "analysis's worst case is one loss per round, which no pair of these reaches: both expose less "
                              "than half of its claim (per-round eps0 composed over |F| rounds), so its calibration is checked "
                              "by the per-step accounting row; exact only")

#: the decision_lists experiment's feature class (config.yaml: 2-DLs over d = 8, |F| = 129)
WORKFLOW_FEATURES = {"d": 8, "k": 2, "monotone": False}


def uncovered_pair(n: int) -> tuple[Sample, Sample]:
    """The all-zero point repeated n times with label 1 (D), one copy's label flipped to 0
    (D′), over :data:`WORKFLOW_FEATURES`. Every example is the same point, so a feature covers
    all of S or none of it: S stays whole, and the differing example uncovered, until a
    feature covering x = 0 is drawn — each earlier round leaks a little (its covering
    features' weights differ between the sides), the case the set-cover analysis pays its
    ln(e/δ') for ([BF26, Lemma A.1]; Gupta, Ligett, McSherry, Roth & Talwar, "Differentially
    private combinatorial optimization", SODA 2010)."""
    from dpbench.problems.decision_list import DecisionListClass, FeatureClass  # deferred: imports numba

    cls = DecisionListClass(FeatureClass(**WORKFLOW_FEATURES))
    X = np.zeros((n, WORKFLOW_FEATURES["d"]), np.uint8)
    y = np.ones(n, np.uint8)
    y_prime = y.copy()
    y_prime[0] = 0
    return Sample(X, y, concept_class=cls), Sample(X, y_prime, concept_class=cls)


def uncovered_law(learner, sample: Sample) -> np.ndarray:
    """Log-pmf of ``(R, B)`` — the round at which ``learner.fit`` first draws a feature covering
    the (single, repeated) point of ``sample`` and that rule's bit; the rest of the output
    (which non-covering features came first and their bits, which covering feature, the
    tail) has the same law on both sides of :func:`uncovered_pair` given (R, B).

    From the round-1 law the learner's exponential mechanism records (``fit`` inside
    :func:`~dpbench.mechanisms.laws.recording_laws`): its weights of the covering pairs with bit
    b, ``C_b``, relative to one non-covering pair's (score 0 on both sides). While S is whole
    the scores do not change, and each round removes one used feature, so round i draws a
    covering pair with bit b with probability ``C_b / (2a_i + C_0 + C_1)``, ``a_i = a − i + 1``
    non-covering features left. Index ``2(r − 1) + b``."""

    with recording_laws() as laws:
        learner.fit(sample, rng=np.random.default_rng(0))
    first = np.asarray(laws[0][0], dtype=float)  # log-weights (logits) of the first selection
    features = feature_class(sample)
    covers = features.evaluate(sample.X[:1])[0]
    m = features.size
    # in log space throughout: at a large λ the non-covering weights underflow exp()
    non = first[:m][~covers]
    if not np.allclose(non, non[0], rtol=0, atol=1e-9) or not np.allclose(first[m:][~covers], non[0], rtol=0, atol=1e-9):
        raise ValueError(f"{type(learner).__name__}: the non-covering pairs' recorded weights differ: not the uncovered pair")

    def lse(v: np.ndarray) -> float:
        return float(logsumexp(v)) if len(v) else -math.inf

    log_cover = np.array([lse(first[:m][covers]), lse(first[m:][covers])]) - non[0]  # ln C_0 (bit 0), ln C_1 (bit 1)
    log_cover_sum = float(np.logaddexp(*log_cover))
    a = int((~covers).sum())
    logpmf, survive = [], 0.0
    for i in range(a + 1):
        total = float(np.logaddexp(math.log(2 * (a - i)), log_cover_sum)) if a > i else log_cover_sum
        logpmf += [survive + log_cover[0] - total, survive + log_cover[1] - total]
        survive += math.log(2 * (a - i)) - total if a > i else -math.inf
    return np.array(logpmf)


def uncovered_exact(learner, n: int, delta: float) -> float:
    """Exact ε(δ) of ``learner``'s output on :func:`uncovered_pair` (:func:`uncovered_law`)."""
    return epsilon_for_delta(*(uncovered_law(learner, s) for s in uncovered_pair(n)), delta)


def feature_class(sample: Sample):
    from dpbench.learners.privdl import feature_class as of  # deferred: imports numba

    return of(sample)
