"""Empirical privacy audit and ε → ∞ consistency (docs/plugins.md, "Check it").

Audit: run a mechanism many times on two neighbouring inputs ``D`` and ``D'``, choose an
output event ``E``, and turn the two frequencies into a lower bound on ε. If the mechanism
is (ε, δ)-DP then ``P_D[E] ≤ e^ε P_D'[E] + δ`` for every event, so with a Clopper–Pearson
lower bound ``p̲`` on ``P_D[E]`` and an upper bound ``p̄`` on ``P_D'[E]``

.. math:: \\varepsilon \\ge \\ln\\frac{\\underline{p} - \\delta}{\\overline{p}}

holds with the stated confidence. Choosing ``E`` on the same runs would bias the bound,
so the runs are split: the first half selects the event (and its direction), the second
half alone computes the bound. Each of the two Clopper–Pearson bounds is one-sided at level
``confidence``, so a correct mechanism's claimed ε is refuted (bound > ε) with probability
at most ``2(1 − confidence)`` (the false-alarm rate of one audit row).

For Gaussian-shift statistics (and DP-SGD's subsampled-Gaussian mixture) the bound comes
instead from the trade-off curve of the statistic's family (:func:`tradeoff_lower_bound`),
which approaches the exact ε with ~10⁶ runs where one tail event does not.

Cases: per learner or mechanism a module of :mod:`dpbench.audits` registers
:class:`AuditCase` pairs (``correct`` and a ``broken`` copy claiming the same ε), each
running the learner's own entry point; :func:`run_case` turns one into a row of
:data:`AUDIT_COLUMNS` (with the exact ε(δ) of the copy's output law where computable, and
``tightness``), :func:`judge` gives the audit its verdict (``pass``, ``violation``,
``no_power``), and :func:`cli_audit` prints them (``dpbench audit NAME``). User
documentation: ``docs/privacy.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpbench.audits import cases_for, default_claim, default_runs
from dpbench.foundation import registry
from dpbench.foundation.seeding import make_rng
from dpbench.theory_check.fit import clopper_pearson


@dataclass(frozen=True)
class AuditResult:
    """``epsilon_lower``: the audited lower bound on ε; ``event`` describes the event used."""

    epsilon_lower: float
    event: str
    p_hat: float  # frequency of E on the D side (held-out half)
    q_hat: float  # frequency of E on the D' side (held-out half)
    trials: int


def epsilon_lower_bound(hits_a: int, trials_a: int, hits_b: int, trials_b: int, *, delta: float = 0.0, confidence: float = 0.95) -> float:
    """Lower bound on ε from ``hits_a/trials_a`` ≈ P_D[E] and ``hits_b/trials_b`` ≈ P_D'[E]."""
    one_sided = 2 * confidence - 1  # each bound is one side of a two-sided interval
    p_lo, _ = clopper_pearson(hits_a, trials_a, one_sided)
    _, q_hi = clopper_pearson(hits_b, trials_b, one_sided)
    num = float(p_lo) - delta
    if num <= 0:
        return 0.0
    return max(0.0, math.log(num / float(q_hi)))


def _candidate_events(a: np.ndarray, b: np.ndarray) -> list[tuple[str, Callable[[np.ndarray], np.ndarray]]]:
    """Events on the outputs: for discrete outputs each value and the set of values
    likelier under D than D'; for continuous outputs one-sided thresholds at quantiles."""
    pooled = np.concatenate([a, b])
    values = np.unique(pooled)
    if len(values) <= 64:
        events = [(f"output == {v.item()!r}", (lambda x, v=v: x == v)) for v in values]
        ca = np.array([(a == v).mean() for v in values])
        cb = np.array([(b == v).mean() for v in values])
        likelier = values[ca > cb]
        if 0 < len(likelier) < len(values):
            events.append((f"output in {likelier.tolist()!r}", lambda x, s=likelier: np.isin(x, s)))
        if np.issubdtype(values.dtype, np.number):  # ordered outputs (counts, indices): tails too
            events += [(f"output >= {v.item()!r}", (lambda x, v=v: x >= v)) for v in values[1:]]
            events += [(f"output <= {v.item()!r}", (lambda x, v=v: x <= v)) for v in values[:-1]]
        return events
    cuts = np.quantile(pooled, np.linspace(0.01, 0.99, 99))
    return [(f"output >= {c:.6g}", (lambda x, c=c: x >= c)) for c in cuts] + [
        (f"output <= {c:.6g}", (lambda x, c=c: x <= c)) for c in cuts
    ]


def family_bound(family, outputs_d: np.ndarray, outputs_d_prime: np.ndarray, *, eta_lo: float, pooled: str, per_run: int,
                 delta: float, confidence: float) -> "AuditResult":
    """The bound of a one-parameter swap family (the Hedge plays, DP-Winnow's released
    draws): its ε(δ) at the rate's lower confidence bound ``eta_lo`` if the family fits the
    outputs (``family.fit``, a χ² check), else the smaller of that and the model-free
    threshold bound (:func:`audit`); ``pooled`` describes the pooled count, ``per_run`` is
    the number of plays or draws of one run (for the rates ``p_hat``, ``q_hat``)."""
    bound = family.epsilon(eta_lo, delta)
    model_free = audit(outputs_d, outputs_d_prime, delta=delta, confidence=confidence).epsilon_lower
    fits, how = family.fit(outputs_d, outputs_d_prime)
    event = f"{family.name} {pooled}, eta' >= {eta_lo:.4g}; threshold bound {model_free:.4g}; {how}"
    if not fits:
        event += "; family rejected: the smaller bound"
        bound = min(bound, model_free)
    return AuditResult(epsilon_lower=bound, event=event, p_hat=float(outputs_d.mean()) / per_run,
                       q_hat=float(outputs_d_prime.mean()) / per_run, trials=len(outputs_d) + len(outputs_d_prime))


def audit(outputs_d: npt.ArrayLike, outputs_d_prime: npt.ArrayLike, *, delta: float = 0.0, confidence: float = 0.95) -> AuditResult:
    """Audit from two arrays of (scalar) outputs of the mechanism on D and on D'.

    Both directions (D vs D' and D' vs D) are considered when selecting the event on the
    first halves; the bound is computed on the second halves only.
    """
    a = np.asarray(outputs_d)
    b = np.asarray(outputs_d_prime)
    ha, hb = len(a) // 2, len(b) // 2
    sel_a, sel_b, test_a, test_b = a[:ha], b[:hb], a[ha:], b[hb:]
    best = (-math.inf, "", None, False)
    for name, event in _candidate_events(sel_a, sel_b):
        ea, eb = event(sel_a), event(sel_b)
        for swapped, (x, y) in ((False, (ea, eb)), (True, (eb, ea))):
            score = epsilon_lower_bound(int(x.sum()), len(x), int(y.sum()), len(y), delta=delta, confidence=confidence)
            if score > best[0]:
                best = (score, name, event, swapped)
    _, name, event, swapped = best
    ea, eb = event(test_a), event(test_b)
    if swapped:
        ea, eb, name = eb, ea, name + " (D' vs D)"
    bound = epsilon_lower_bound(int(ea.sum()), len(ea), int(eb.sum()), len(eb), delta=delta, confidence=confidence)
    return AuditResult(epsilon_lower=bound, event=name, p_hat=float(ea.mean()), q_hat=float(eb.mean()), trials=len(ea) + len(eb))


@dataclass(frozen=True)
class GaussianFamily:
    """μ-GDP: ``N(0, 1)`` vs ``N(μ, 1)`` (Dong, Roth & Su, "Gaussian differential privacy",
    JRSS-B 2022). Its trade-off curve ``β(α) = Φ(Φ⁻¹(1 − α) − μ)``."""

    name: str = "GDP"

    @staticmethod
    def lower(alpha: float, beta: float) -> float:
        """Smallest μ whose curve passes at or below (α, β): ``Φ⁻¹(1 − α) − Φ⁻¹(β)``."""
        from scipy import stats

        return float(stats.norm.isf(alpha) - stats.norm.ppf(beta))

    @staticmethod
    def epsilon(mu: float, delta: float) -> float:
        from dpbench.mechanisms.gaussian import analytic_epsilon  # deferred: imports scipy

        return analytic_epsilon(sigma=1.0 / mu, delta=delta, sensitivity=1.0) if mu > 0 and delta > 0 else 0.0


@dataclass(frozen=True)
class MixtureFamily:
    """The claimed mechanism's own family for a Poisson-subsampled Gaussian statistic:
    ``P_s = Σ_k p_k N(+s·a_k, 1)`` vs ``Q_s = Σ_k p_k N(−s·a_k, 1)`` (``a_k``: the statistic's
    means per inclusion pattern, in units of the noise, at the learner's calibration: s = 1;
    a smaller noise multiplier is a larger s). Its trade-off curve at α: the threshold t with
    ``Q_s(X ≥ t) = α`` and ``β = P_s(X < t)`` (the likelihood ratio is monotone in x)."""

    shifts: tuple[float, ...]
    probs: tuple[float, ...]
    epsilon_of: Callable[[float, float], float]
    name: str = "subsampled-Gaussian"

    def beta(self, s: float, alpha: float) -> float:
        from scipy import stats
        from scipy.optimize import brentq

        a, p = np.asarray(self.shifts), np.asarray(self.probs)
        fpr = lambda t: float(p @ stats.norm.sf(t + s * a)) - alpha  # noqa: E731
        lo, hi = -50.0 - s * a.max(), 50.0 + s * a.max()
        t = brentq(fpr, lo, hi, xtol=1e-12)
        return float(p @ stats.norm.cdf(t - s * a))

    def lower(self, alpha: float, beta: float) -> float:
        """Smallest s whose curve passes at or below (α, β) (β(s, α) decreases in s)."""
        if self.beta(0.0, alpha) <= beta:
            return 0.0
        lo, hi = 0.0, 1.0
        while self.beta(hi, alpha) > beta and hi < 1e6:
            lo, hi = hi, 2 * hi
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if self.beta(mid, alpha) > beta else (lo, mid)
        return hi

    def epsilon(self, s: float, delta: float) -> float:
        return float(self.epsilon_of(s, delta)) if s > 0 else 0.0


def tradeoff_lower_bound(outputs_d: npt.ArrayLike, outputs_d_prime: npt.ArrayLike, *, delta: float, confidence: float = 0.95,
                         family=GaussianFamily()) -> AuditResult:
    """Lower bound on ε(δ) through a trade-off curve (f-DP; Dong, Roth & Su 2022; the
    auditing use of Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski, Carlini & Terzis,
    "Tight auditing of differentially private machine learning", USENIX Security 2023).

    The statistic's pair is assumed to lie in a one-parameter ``family`` of pairs (a
    Gaussian shift for the Gaussian mechanisms and full-batch DP-GD; the subsampled-Gaussian
    mixture of the learner's own calibration for DP-SGD), ordered by privacy loss. A
    threshold test ``X ≥ c`` has error rates (FPR, FNR) that every member at least as
    private as the truth must allow: with one-sided Clopper–Pearson upper bounds on both
    (each at ``confidence``), the smallest member whose trade-off curve passes at or below
    them is a lower bound on the true member, and ``ε̲`` is that member's exact ε(δ). The
    threshold and direction are chosen on the first half of the runs (by the closed-form GDP
    criterion, a proxy that only picks the test), the bound computed on the second half. Using the whole trade-off curve instead of one tail event, the bound
    approaches the exact ε with ~10⁵–10⁶ runs. Valid where the statistic's pair is in the
    family (a monotone post-processing of it: thresholds are invariant).
    """
    a = np.asarray(outputs_d, dtype=np.float64)
    b = np.asarray(outputs_d_prime, dtype=np.float64)
    ha, hb = len(a) // 2, len(b) // 2
    one_sided = 2 * confidence - 1

    def member(x: np.ndarray, y: np.ndarray, cut: float, fam, swapped: bool = False) -> float:
        _, fpr_hi = clopper_pearson(int(np.sum(x >= cut)), len(x), one_sided)  # D above the cut: false positives of "is D'"
        _, fnr_hi = clopper_pearson(int(np.sum(y < cut)), len(y), one_sided)
        if not (fpr_hi < 1 and fnr_hi < 1):
            return 0.0
        return fam.lower(float(fpr_hi), float(fnr_hi))

    best = (-math.inf, 0.0, False)
    sel_a, sel_b = a[:ha], b[:hb]
    for swapped, (x, y) in ((False, (sel_a, sel_b)), (True, (-sel_a, -sel_b))):
        for cut in np.quantile(np.concatenate([x, y]), np.linspace(0.02, 0.98, 49)):
            score = member(x, y, cut, GaussianFamily())  # selection only: the closed-form GDP proxy
            if score > best[0]:
                best = (score, float(cut), swapped)
    _, cut, swapped = best
    x, y = (a[ha:], b[hb:]) if not swapped else (-a[ha:], -b[hb:])
    s_lower = member(x, y, cut, family, swapped)
    bound = family.epsilon(s_lower, delta)
    event = f"{family.name} trade-off at cut {'-' if swapped else ''}{cut:.4g}: parameter >= {s_lower:.4g}"
    return AuditResult(epsilon_lower=bound, event=event,
                       p_hat=float((x >= cut).mean()), q_hat=float((y >= cut).mean()), trials=len(x) + len(y))


def gdp_lower_bound(outputs_d: npt.ArrayLike, outputs_d_prime: npt.ArrayLike, *, delta: float, confidence: float = 0.95) -> AuditResult:
    """:func:`tradeoff_lower_bound` in the Gaussian-DP family: ``μ ≥ Φ⁻¹(1 − FPR̄) − Φ⁻¹(FNR̄)``
    and ``ε̲`` the exact ε(δ) of ``μ̲``-GDP (the Gaussian mechanism with σ = 1/μ̲)."""
    return tradeoff_lower_bound(outputs_d, outputs_d_prime, delta=delta, confidence=confidence, family=GaussianFamily())


def run_many(fn: Callable[[np.random.Generator], object], trials: int, *, seed: int) -> np.ndarray:
    """``trials`` outputs of ``fn(rng)``, each with its own child generator of ``seed``."""
    children = np.random.SeedSequence(seed).spawn(trials)
    return np.array([fn(np.random.default_rng(s)) for s in children])


def mean_error(learner, target, n: int, repetitions: int, *, seed: int) -> float:
    """Mean population error of a batch learner over fresh samples (common seeds: two
    learners called with the same ``seed`` see the same samples)."""
    errors = []
    for rep in range(repetitions):
        data_seed, mech_seed = np.random.SeedSequence([seed, rep]).spawn(2)
        sample = target.sample(n, rng=np.random.default_rng(data_seed))
        errors.append(target.population_error(learner.fit(sample, rng=np.random.default_rng(mech_seed))))
    return float(np.mean(errors))


# --------------------------------------------------------------------------- audit cases
#: Columns of ``results/theory/privacy_audit.csv`` (issue 10), in order.
AUDIT_COLUMNS = [
    "learner",
    "variant",
    "epsilon_claimed",
    "delta_claimed",
    "neighbours",
    "epsilon_lower_bound",
    "epsilon_exact",
    "tightness",
    "verdict",
    "audit",
    "method",
    "runs",
    "confidence",
    "instance",
    "note",
]

#: Verdicts of an audit (one per correct/broken pair, on both its rows).
PASS, VIOLATION, NO_POWER = "pass", "violation", "no_power"


@dataclass(frozen=True)
class AuditCase:
    """One audited neighbouring pair: a learner (or the component mechanism that carries its
    privacy) run on ``D`` (side 0) and ``D'`` (side 1).

    ``sample(side, runs, rng) -> array (runs,)`` returns one scalar output (or a statistic of
    the output fixed in advance) per run, by calling the learner's own entry point
    (``fit``/``run``, or the batched ``release`` that ``fit`` itself calls); the harness turns the two arrays into a lower bound on ε:
    ``method = "threshold"`` (Clopper–Pearson on the best event) or ``"gdp"`` (the Gaussian-DP
    trade-off curve, :func:`gdp_lower_bound`, for Gaussian-shift statistics). ``variant`` is
    ``"correct"`` or ``"broken"`` (the same learner with a calibration error, claiming the
    same ε). ``exact`` returns the exact ε(δ) of the learner's output law on this pair where
    it is computable (from the per-round laws the learner samples from). ``component`` says
    which component mechanism is audited (an extra, labelled row; empty for an end-to-end
    audit). ``note``: why the bound falls short of exact, or how the broken copy is broken.
    """

    learner: str
    variant: str
    epsilon: float
    delta: float
    neighbours: str
    instance: str
    sample: Callable[[int, int, np.random.Generator], np.ndarray]
    exact: Callable[[], float] | None = None
    component: str = ""
    method: str = "threshold"
    note: str = ""
    #: at most this many runs per side whatever the cell's ``n`` (a slow end-to-end case
    #: beside a vectorised component in one audit)
    runs_cap: int | None = None
    #: the trade-off family of ``method = "tradeoff"`` (:class:`MixtureFamily`), or for
    #: ``method = "pooled"`` a family with its own ``lower_bound(a, b, *, delta, confidence)``
    #: (:class:`dpbench.audits.cases.experts.HedgeSwapFamily`)
    family: object = None
    #: ``explain(row) -> str``: why this row's bound falls short of its tightness target,
    #: from the row's numbers (the ``note`` column, after :func:`shortfall_note`'s figures)
    explain: Callable[[dict], str] | None = None
    #: the row's ``audit`` column where it is not derived from the case
    #: (:func:`audit_kind`): ``"accounting"`` for a per-step accounting check
    kind: str = ""


def exposure_note(pair: float, worst: float, worst_is: str) -> str:
    """The share of a learner's worst-case loss its audit pair exposes (a correct row's note,
    issue 30): ``pair`` the pair's exact ε(δ), ``worst`` the exact worst case over
    neighbouring pairs of the learner's proof (``worst_is`` says what that is: a supremum,
    the transcript's, the accountant's dominating pair); a share below half says so."""
    share = pair / worst if worst > 0 else math.nan
    return (f"this pair's exact eps {pair:.4g} = {share:.2f} of the worst case over pairs {worst:.4g} ({worst_is})"
            + ("; the pair exposes LESS THAN HALF of the worst case" if share < 0.5 else ""))


#: ``method`` of a per-step accounting case (:mod:`dpbench.audits.step_accounting`): no runs;
#: ``exact()`` returns a :class:`~dpbench.audits.step_accounting.StepAccount`
ACCOUNTANT = "accountant"


def accounting_case(learner: str, variant: str, epsilon: float, delta: float, neighbours: str, instance: str,
                    check: Callable[[], object], note: str = "") -> AuditCase:
    """A per-step accounting row of ``learner`` (``audit`` = ``accounting``): ``check()``
    returns the :class:`~dpbench.audits.step_accounting.StepAccount` of the copy's own steps; its
    total is the row's ``epsilon_exact``, compared with the recorded claim (ε, δ)."""
    return AuditCase(learner, variant, epsilon, delta, neighbours, instance, sample=None, exact=check,
                     component="per-step accounting", method=ACCOUNTANT, note=note, kind="accounting")


#: ``method`` of an exact-only case: ``exact()`` composes the laws the learner's own code
#: recorded (no runs: where sampling is unaffordable, e.g. ``dp_winnow`` at ε = 1)
RECORDED = "recorded_laws"
#: methods of rows computed, not sampled: judged on their exact values alone
COMPUTED = (ACCOUNTANT, RECORDED)


def recorded_exact_case(learner: str, variant: str, epsilon: float, delta: float, neighbours: str, instance: str,
                        exact: Callable[[], float], note: str = "") -> AuditCase:
    """An exact-only row of ``learner`` (``audit`` = ``exact``): ``exact()`` is the ε(δ) of
    the copy's output law composed from the laws its own code recorded; no sampled bound."""
    return AuditCase(learner, variant, epsilon, delta, neighbours, instance, sample=None, exact=exact,
                     component="exact from recorded laws", method=RECORDED, note=note, kind="exact")


def run_accounting_case(case: AuditCase, *, confidence: float) -> dict[str, object]:
    """The row of a computed case (:data:`COMPUTED`): no runs, no sampled bound. Per-step
    accounting: ``epsilon_exact`` the learner's accountant on the largest step its code took,
    ``step_ok`` (not a CSV column: the note says it) whether every step is within its
    calibrated budget; exact-only: ``epsilon_exact`` from the recorded laws."""
    if case.method == RECORDED:
        return {
            "learner": case.learner, "variant": case.variant, "epsilon_claimed": case.epsilon, "delta_claimed": case.delta,
            "neighbours": case.neighbours, "epsilon_lower_bound": math.nan, "epsilon_exact": float(case.exact()),
            "tightness": math.nan, "verdict": "", "audit": case.kind, "method": RECORDED, "runs": 0, "confidence": confidence,
            "instance": case.instance, "note": case.note,
        }
    acc = case.exact()
    row = {
        "learner": case.learner, "variant": case.variant, "epsilon_claimed": case.epsilon, "delta_claimed": case.delta,
        "neighbours": case.neighbours, "epsilon_lower_bound": math.nan, "epsilon_exact": acc.total, "tightness": math.nan,
        "verdict": "", "audit": case.kind, "method": ACCOUNTANT, "runs": 0, "confidence": confidence,
        "instance": case.instance, "note": "; ".join(part for part in (acc.describe(), case.note) if part), "step_ok": acc.step_ok,
    }
    return row


def accounting_fails(row: dict) -> bool:
    """A per-step accounting row fails: the composed total above the claim, or a step over
    its calibrated budget."""
    return exact_exceeds(row) or not row.get("step_ok", True)


def run_case(case: AuditCase, *, runs: int, confidence: float = 0.95, seed: int = 0) -> dict[str, object]:
    """Audit one case with ``runs`` runs per side; a row with :data:`AUDIT_COLUMNS`."""

    if case.method in COMPUTED:
        return run_accounting_case(case, confidence=confidence)
    runs = min(runs, case.runs_cap) if case.runs_cap else runs
    key = {"learner": case.learner, "variant": case.variant, "epsilon": case.epsilon, "delta": case.delta}
    if case.component:  # a component and an end-to-end case of one learner draw from different streams
        key["component"] = case.component
    a = np.asarray(case.sample(0, runs, make_rng(seed, "audit", {**key, "side": 0})))
    b = np.asarray(case.sample(1, runs, make_rng(seed, "audit", {**key, "side": 1})))
    if case.method == "gdp":
        result = gdp_lower_bound(a, b, delta=case.delta, confidence=confidence)
    elif case.method == "tradeoff":
        result = tradeoff_lower_bound(a, b, delta=case.delta, confidence=confidence, family=case.family)
    elif case.method == "pooled":
        result = case.family.lower_bound(a, b, delta=case.delta, confidence=confidence)
    else:
        result = audit(a, b, delta=case.delta, confidence=confidence)
    exact = float(case.exact()) if case.exact is not None else math.nan
    row = {
        "learner": case.learner,
        "variant": case.variant,
        "epsilon_claimed": case.epsilon,
        "delta_claimed": case.delta,
        "neighbours": case.neighbours,
        "epsilon_lower_bound": result.epsilon_lower,
        "epsilon_exact": exact,
        "tightness": result.epsilon_lower / exact if exact > 0 else math.nan,
        "verdict": "",
        "audit": audit_kind(case),
        "method": case.method,
        "runs": int(runs),
        "confidence": confidence,
        "instance": case.instance + (f" [component: {case.component}]" if case.component else "")
        + (f" [bound: {result.event}]" if hasattr(case.family, "fit") else ""),
    }
    row["note"] = "; ".join(part for part in (case.note, shortfall_note(row, case.explain)) if part)
    return row


#: tightness targets of a correct row (issue 19): pure-DP, Gaussian-noise (the trade-off
#: methods ``gdp``/``tradeoff``), every other learner
TIGHTNESS_TARGETS = {"pure": 0.95, "gaussian": 0.90, "other": 0.80}


def tightness_target(row: dict) -> float:
    """The tightness a correct row aims at: 0.95 for pure DP (δ = 0), 0.90 for a Gaussian
    (trade-off curve) statistic, 0.80 otherwise."""
    if float(row["delta_claimed"]) == 0:
        return TIGHTNESS_TARGETS["pure"]
    return TIGHTNESS_TARGETS["gaussian" if row["method"] in ("gdp", "tradeoff") else "other"]


def shortfall_note(row: dict, explain: Callable[[dict], str] | None = None) -> str:
    """Why a correct row falls short, generated from its numbers ('' if it does not): the
    analysis is loose (exact ε(δ) below 1/1.25 of the claim: no audit can come closer to the
    claim than the exact value), and/or the sampled bound is below its tightness target of
    the exact value (``explain(row)`` says why, e.g. the runs it would need)."""
    if row["variant"] != "correct":
        return ""
    claim, exact, bound = float(row["epsilon_claimed"]), float(row["epsilon_exact"]), float(row["epsilon_lower_bound"])
    parts = []
    if math.isfinite(exact) and 0 < exact < claim / 1.25:
        parts.append(f"analysis loose: exact eps {exact:.3g} < claim {claim:.3g} (claim/exact = {claim / exact:.3g})")
    target = tightness_target(row)
    if math.isfinite(exact) and exact > 0 and bound / exact < target:
        parts.append(f"bound {bound:.3g} = {bound / exact:.2f} of exact at {int(row['runs']):,} runs/side (target {target:g})"
                     + (f": {explain(row)}" if explain is not None else ""))
    return "; ".join(parts)


def audit_kind(case: AuditCase) -> str:
    """``end_to_end`` (the learner's own entry point), ``component`` (one mechanism inside a
    learner, an extra row) or ``mechanism`` (a mechanism audited on its own)."""

    if case.kind:
        return case.kind
    if case.component:
        return "component"
    return "end_to_end" if registry.is_learner(case.learner) else "mechanism"


def refuted(row: dict, tolerance: float = 1e-9) -> bool:
    """The row shows a loss above its claim: lower bound > claim, or exact ε(δ) > claim."""
    return caught_by_sampling(row) or exact_exceeds(row, tolerance)


def caught_by_sampling(row: dict) -> bool:
    """The row's sampled lower bound exceeds its claim (evidence from the runs alone)."""
    return float(row["epsilon_lower_bound"]) > float(row["epsilon_claimed"])


def exact_exceeds(row: dict, tolerance: float = 1e-9) -> bool:
    """The row's exact ε(δ) (computed, not sampled) exceeds its claim."""
    exact = float(row["epsilon_exact"])
    return math.isfinite(exact) and exact > float(row["epsilon_claimed"]) * (1 + tolerance)


def bound_exceeds_exact(row: dict, tolerance: float = 1e-6) -> bool:
    """The row's sampled lower bound exceeds its exact ε(δ) (relative ``tolerance``: the
    exact values are bisected to ~1e-9, or PLD upper bounds). The bound is valid for the law
    the code samples from, so this is evidence that the exact value is not that law's."""
    exact = float(row["epsilon_exact"])
    return math.isfinite(exact) and float(row["epsilon_lower_bound"]) > exact * (1 + tolerance) + tolerance


def exact_mismatch_note(row: dict) -> str:
    """The finding :func:`judge` adds to a row whose sampled bound exceeds its exact ε, with
    the chance that a correct row shows it at the row's own confidence c: each lower bound
    is valid with probability ≥ 2c − 1 (two one-sided Clopper–Pearson bounds at c), so a
    false alarm has probability ≤ 2(1 − c) (2e-3 at the workflow's and the CLI's 0.999)."""
    confidence = float(row.get("confidence", math.nan))
    chance = f" (a correct row shows this with probability <= {2 * (1 - confidence):.2g} at confidence {confidence:g})" \
        if math.isfinite(confidence) else ""
    return (f"sampled bound exceeds the exact ε: the code does not draw from the law the exact value describes "
            f"(bound {float(row['epsilon_lower_bound']):.4g} > exact {float(row['epsilon_exact']):.4g}){chance}")


def judge(rows: list[dict]) -> list[dict]:
    """Set ``verdict`` on the rows of one audit (its ``correct`` and ``broken`` rows):
    ``violation`` if the correct copy is refuted (its lower bound, or its exact ε(δ), above
    the claim) or if **any** row's sampled lower bound exceeds its exact ε(δ)
    (:func:`bound_exceeds_exact`: the exact value is not the law of the code that ran, so
    neither it nor a pass built on it can be trusted; the row's note says so,
    :func:`exact_mismatch_note`); else ``pass`` only if every broken copy is caught **by
    sampling** (its sampled lower bound above the claim: the runs alone could have failed
    the learner); else ``no_power`` (no broken copy, or one caught only by its exact ε,
    which is computed from the audit's own parameters and so cannot judge the sampled code)."""
    correct = [r for r in rows if r["variant"] == "correct"]
    broken = [r for r in rows if r["variant"] != "correct"]
    if rows and all(r.get("method") in COMPUTED for r in rows):  # computed rows (per-step accounting, exact only): no sampling
        verdict = VIOLATION if any(accounting_fails(r) for r in correct) else (
            PASS if broken and all(accounting_fails(r) for r in broken) else NO_POWER)
        return [{**r, "verdict": verdict} for r in rows]
    if any(refuted(r) for r in correct) or any(bound_exceeds_exact(r) for r in rows):
        verdict = VIOLATION
    elif not broken or not all(caught_by_sampling(r) for r in broken):
        verdict = NO_POWER
    else:
        verdict = PASS

    def noted(r: dict) -> dict:
        if not bound_exceeds_exact(r):
            return r
        return {**r, "note": "; ".join(part for part in (r.get("note", ""), exact_mismatch_note(r)) if part)}

    return [{**noted(r), "verdict": verdict} for r in rows]


def no_power_reason(rows: list[dict]) -> str:
    """Why an audit's rows have no power ('' if they have): no broken copy, or a broken copy
    whose sampled bound stays at or below the claim (caught by its exact ε only, or missed)."""
    broken = [r for r in rows if r["variant"] != "correct"]
    if not broken:
        return "no broken copy to show the audit can fail"
    if all(r.get("method") in COMPUTED for r in rows):
        return "" if all(accounting_fails(r) for r in broken) else "a broken copy's computed eps stays within the claim"
    weak = [r for r in broken if not caught_by_sampling(r)]
    if not weak:
        return ""
    r = weak[0]
    how = "caught by its exact eps only: more runs needed" if exact_exceeds(r) else "missed: more runs or a stronger instance needed"
    return (f"broken copy's sampled lower bound {float(r['epsilon_lower_bound']):.4g} <= claim "
            f"{float(r['epsilon_claimed']):.4g} at {r['runs']} runs ({how})")


def run_cases(cases: list[AuditCase], *, runs: int, confidence: float = 0.95, seed: int = 0) -> list[dict]:
    """Audit ``cases`` (``runs`` per side each) and judge them: rows of :data:`AUDIT_COLUMNS`
    with the verdict of their audit (the cases of one learner and component, :func:`judge`)."""
    rows = [run_case(case, runs=runs, confidence=confidence, seed=seed) for case in cases]
    groups: dict[tuple[str, str], list[int]] = {}
    for i, case in enumerate(cases):
        groups.setdefault((case.learner, case.component), []).append(i)
    for members in groups.values():
        for i, judged in zip(members, judge([rows[i] for i in members])):
            rows[i] = judged
    return rows


def cli_audit(learner: str, *, epsilon: float | None, delta: float | None, runs: int | None, seed: int) -> int:
    """``dpbench audit LEARNER``: audit the correct and broken copies, print the rows.

    ε and δ default to the audit's registered claim (:func:`dpbench.audits.default_claim`),
    ``runs`` (per side) to the audit's registered default (:func:`dpbench.audits.default_runs`,
    enough to catch its broken copy). Returns the exit status: 0 iff every audit's verdict
    is ``pass``; 1 if one is ``violation`` or ``no_power``; 2 for an unknown name, a claim
    the learner cannot make or ``--runs`` below :func:`minimum_runs` (one line on stderr, no
    traceback).
    """
    import sys


    floor = minimum_runs(CLI_CONFIDENCE)
    if runs is not None and int(runs) < floor:
        print(f"dpbench audit: --runs must be >= {floor} (runs per side: with fewer, no lower bound above 0 is possible "
              f"at confidence {CLI_CONFIDENCE}), got {runs}", file=sys.stderr)
        return 2
    try:
        default_eps, default_delta = default_claim(learner)
        eps = default_eps if epsilon is None else float(epsilon)
        dlt = default_delta if delta is None else check_audit_delta(learner, float(delta), default_delta)
        cases = cases_for(learner, epsilon=eps, delta=dlt, accounting=True)
    except (KeyError, ValueError) as exc:
        print(f"dpbench audit: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    rows = run_cases(cases, runs=int(runs or default_runs(learner)), confidence=CLI_CONFIDENCE, seed=seed)
    status = 0
    for row in rows:
        by = "bound" if caught_by_sampling(row) else "exact"
        if row.get("method") in COMPUTED:
            shown = "computed: FAILS" if accounting_fails(row) else "computed: ok"
        elif row["variant"] == "correct":
            shown = f"REFUTED by {by}" if refuted(row) else "ok"
        else:
            shown = "CAUGHT by bound" if caught_by_sampling(row) else ("exact only (no sampled power)" if exact_exceeds(row) else "missed")
        status |= int(row["verdict"] != PASS)
        print(
            f"{row['learner']:<20} {row['variant']:<8} {row['audit']:<10} claimed eps={row['epsilon_claimed']:.4g} "
            f"delta={row['delta_claimed']:.3g} ({row['neighbours']})  lower bound={row['epsilon_lower_bound']:.4g} ({row['method']})  "
            f"exact={row['epsilon_exact']:.4g}  runs={row['runs']}  {shown}  verdict={row['verdict']}"
        )
        print(f"    instance: {row['instance']}")
        if row["note"]:
            print(f"    note: {row['note']}")
    groups: dict[tuple[str, str], list[dict]] = {}
    for case, row in zip(cases, rows):
        groups.setdefault((case.learner, case.component), []).append(row)
    for (name, component), members in groups.items():
        if members[0]["verdict"] == NO_POWER:
            print(f"no_power: {name}{' [component]' if component else ''}: {no_power_reason(members)}")
    return status


#: ``dpbench audit --delta`` above 1/n for the smallest audited pair's n (the experts pairs:
#: T = 100 rounds, one record each) gets a warning: such a δ lets a mechanism publish a record
SMALLEST_PAIR_RECORDS = 100


def check_audit_delta(learner: str, delta: float, default_delta: float) -> float:
    """``--delta`` validated against the audit's kind: a pure-DP audit (registered δ = 0)
    accepts only δ = 0 (its bounds and exact values are of ε at δ = 0: another δ would be
    silently ignored); an (ε, δ) audit needs 0 < δ < 1 (δ ≥ 1 claims nothing, δ = 0 is not
    the learner's claim), with a warning on stderr above 1/n, n = :data:`SMALLEST_PAIR_RECORDS`.
    ``ValueError`` (one line) otherwise."""
    import sys

    if default_delta == 0:
        if delta != 0:
            raise ValueError(f"--delta: {learner}'s audit is of pure DP (delta = 0): --delta must be 0 or omitted, got {delta:g}")
        return 0.0
    if not (0 < delta < 1):
        raise ValueError(f"--delta: {learner}'s audit is of (eps, delta)-DP: --delta must satisfy 0 < delta < 1, got {delta:g}")
    if delta > 1 / SMALLEST_PAIR_RECORDS:
        print(f"dpbench audit: warning: --delta {delta:g} > 1/n for n = {SMALLEST_PAIR_RECORDS} records: a claim that permits "
              f"publishing a record outright", file=sys.stderr)
    return delta


def minimum_runs(confidence: float) -> int:
    """Fewest runs per side at which a ``threshold`` bound can exceed 0 at all (the held-out
    half, an event seen in every run on one side and never on the other): below it every
    audit is ``no_power`` by construction (20 at confidence 0.999)."""
    runs = 2
    while epsilon_lower_bound(runs // 2, runs // 2, 0, runs // 2, confidence=confidence) <= 0:
        runs += 2
    return runs


#: ``dpbench audit`` per-bound confidence (false alarm ≤ 2e-3 per row).
CLI_CONFIDENCE = 0.999
