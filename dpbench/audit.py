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

Cases: per learner or mechanism a module of :mod:`dpbench.audits` registers
:class:`AuditCase` pairs (``correct`` and a ``broken`` copy claiming the same ε);
:func:`run_case` turns one into a row of :data:`AUDIT_COLUMNS` and :func:`cli_audit`
prints them (``dpbench audit NAME``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpbench.analysis import clopper_pearson


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
    "runs",
    "confidence",
    "instance",
]


@dataclass(frozen=True)
class AuditCase:
    """One audited neighbouring pair: a learner (or the component mechanism that carries its
    privacy) run on ``D`` (side 0) and ``D'`` (side 1).

    ``sample(side, runs, rng) -> array (runs,)`` returns one scalar output (or a statistic of
    the output fixed in advance) per run; the harness turns the two arrays into a
    Clopper–Pearson lower bound on ε. ``variant`` is ``"correct"`` or ``"broken"`` (a copy
    whose noise is halved, or whose η / λ is doubled, claiming the same ε). ``exact``
    returns the exact ε(δ) of this pair where the output law is computable. ``component``
    says why a component mechanism is audited instead of the whole learner (empty if not).
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


def run_case(case: AuditCase, *, runs: int, confidence: float = 0.95, seed: int = 0) -> dict[str, object]:
    """Audit one case with ``runs`` runs per side; a row with :data:`AUDIT_COLUMNS`."""
    from dpbench.seeding import make_rng

    key = {"learner": case.learner, "variant": case.variant, "epsilon": case.epsilon, "delta": case.delta}
    a = np.asarray(case.sample(0, runs, make_rng(seed, "audit", {**key, "side": 0})))
    b = np.asarray(case.sample(1, runs, make_rng(seed, "audit", {**key, "side": 1})))
    result = audit(a, b, delta=case.delta, confidence=confidence)
    return {
        "learner": case.learner,
        "variant": case.variant,
        "epsilon_claimed": case.epsilon,
        "delta_claimed": case.delta,
        "neighbours": case.neighbours,
        "epsilon_lower_bound": result.epsilon_lower,
        "epsilon_exact": float(case.exact()) if case.exact is not None else math.nan,
        "runs": runs,
        "confidence": confidence,
        "instance": case.instance,
    }


def cli_audit(learner: str, *, epsilon: float | None, delta: float | None, runs: int | None, seed: int) -> int:
    """``dpbench audit LEARNER``: audit the correct and broken copies, print the rows.

    ε and δ default to the audit's registered claim (:func:`dpbench.audits.default_claim`),
    ``runs`` (per side) to :data:`CLI_RUNS`. Returns the exit status: 0 iff the correct
    copy's lower bound is ≤ its claim (and the broken copy, if any, is reported as caught
    or missed); 1 if the correct copy is refuted; 2 for an unknown name or a claim the
    learner cannot make (one line on stderr, no traceback).
    """
    import sys

    from dpbench.audits import cases_for, default_claim

    try:
        default_eps, default_delta = default_claim(learner)
        eps = default_eps if epsilon is None else float(epsilon)
        dlt = default_delta if delta is None else float(delta)
        cases = cases_for(learner, epsilon=eps, delta=dlt)
    except (KeyError, ValueError) as exc:
        print(f"dpbench audit: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    rows = [run_case(case, runs=int(runs or CLI_RUNS), confidence=CLI_CONFIDENCE, seed=seed) for case in cases]
    status = 0
    for case, row in zip(cases, rows):
        above = row["epsilon_lower_bound"] > row["epsilon_claimed"]
        verdict = ("CAUGHT" if above else "missed") if row["variant"] != "correct" else ("REFUTED" if above else "ok")
        status |= int(row["variant"] == "correct" and above)
        print(
            f"{row['learner']:<20} {row['variant']:<8} claimed eps={row['epsilon_claimed']:.4g} delta={row['delta_claimed']:.3g} "
            f"({row['neighbours']})  lower bound={row['epsilon_lower_bound']:.4g}  exact={row['epsilon_exact']:.4g}  "
            f"runs={row['runs']}  confidence={row['confidence']:g}  {verdict}"
        )
        print(f"    instance: {row['instance']}" + (f"\n    component: {case.component}" if case.component else ""))
    return status


#: ``dpbench audit`` defaults: runs per side and per-bound confidence (false alarm ≤ 2e-3).
CLI_RUNS = 1_000_000
CLI_CONFIDENCE = 0.999
