r"""``privdl``: the private Rivest-style decision-list learner of Bun & Fang ([BF26, §3.1,
Appendix A]) **[reconstructed constants]**.

.. code-block:: text

    S_1 = S, F_1 = F (conjunctions of ≤ k literals and the constant-true function)
    for i = 1 .. |F|:
        pos_i(f), neg_i(f) = # positive / negative examples of S_i with f(x) = 1
        q_i(f, 1) = −neg_i(f);  q_i(f, 0) = −pos_i(f)      # mistakes of "if f then b" on S_i
        (f_i, b_i) ~ P ∝ exp(λ·q_i(f, b))  over F_i × {0, 1}
        S_{i+1} = {(x, y) ∈ S_i : f_i(x) = 0};  F_{i+1} = F_i \ {f_i}
    return (f_1, b_1), (f_2, b_2), …   (truncated after the constant-true rule)

Counts are kept incrementally (:class:`dpbench.learners.rivest.CoverState`): a run costs
``O(n|F| + |F|²)``. Once ``S_i`` is empty every score is 0, so the remaining rounds draw a
uniformly random order of the remaining features with uniform bits; that tail is sampled in
one go (``rng.permutation``), which has exactly the distribution of the remaining rounds.

Privacy: not by composition over the |F| rounds. The score family satisfies the conditions
of [BF26, Lemma A.1] (a candidate that covers an example changes its score by at most 1 when the
example is added; a candidate that does not cover it is unchanged), so the set-cover argument
([GLMRT10]) makes the whole run (ε', δ')-DP for **add/remove-one** neighbours with
``λ = ε' / (2 ln(e/δ'))`` **[reconstructed]** (:func:`dpbench.theory.privdl_lambda_value`).
For **replace-one** neighbours (the default; a replacement is a removal then an addition)
group privacy gives ``(2ε', (1 + e^{ε'})δ')``; :func:`privdl_calibration` therefore sets
``ε' = ε/2`` and ``δ' = δ/(1 + e^{ε/2})``, i.e.

.. math:: \lambda = \frac{\varepsilon}{4\ln\big(e(1 + e^{\varepsilon/2})/\delta\big)},

the ``ε/(4 ln(e/δ))`` one gets from [BF26, Lemma A.1] by group privacy with δ's group-privacy factor accounted for (λ is
smaller by a factor ``1 + ln(1+e^{ε/2})/ln(e/δ)``, ≈ 7% at ε = 1, δ = 10⁻⁶). δ must be > 0
for finite ε; ``epsilon = inf`` gives λ = ∞ (uniform among the zero-mistake pairs: a
consistent learner).

Utility (Theorem 3.5 shape, **[reconstructed]**, realizable):
``n = O(|F| log(|F|/β) log(1/δ)/(αε) + (|F| log|F| + log(1/β))/α)``; k-DL (Cor. A.8):
``n = Õ(d^k log(1/δ)/(αε))`` — :func:`dpbench.theory.rate_privdl`.

References
----------
.. [BF26] M. Bun, W. Fang, "Privately Learning Decision Lists and a Differentially Private
   Winnow", arXiv:2602.07370, 2026, §3 and Appendix A.
.. [GLMRT10] A. Gupta, K. Ligett, F. McSherry, A. Roth, K. Talwar, "Differentially private
   combinatorial optimization", SODA 2010.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpbench.foundation.registry import register_learner
from dpbench.foundation.validation import check_delta, check_epsilon, normalise
from dpbench.learners.base import ADD_REMOVE, REPLACE_ONE, Guarantee
from dpbench.learners.rivest import (
    CoverLearner,
    feature_class,
    feature_counts,
    feature_matrix,
    run_cover,
)
from dpbench.mechanisms.exponential import gumbel_max, uniform_argmax
from dpbench.mechanisms.laws import recorder
from dpbench.problems.base import Sample
from dpbench.problems.decision_list import DecisionList
from dpbench.theory.decision_lists import privdl_lambda_value, privdl_replace_one_delta

NEIGHBOURS = (REPLACE_ONE, ADD_REMOVE)


def set_cover_privacy(lam: float, delta_prime: float, neighbours: str) -> tuple[float, float]:
    r"""Total ``(ε, δ)`` of the covering run with parameter ``λ`` ([BF26, Lemma A.1]
    **[reconstructed]**): add/remove ``(2λ ln(e/δ'), δ')``; replace-one, by group privacy of
    two add/remove steps, ``(2ε', (1 + e^{ε'})δ')`` with ``ε' = 2λ ln(e/δ')``."""
    if math.isinf(lam):
        return math.inf, 0.0
    eps1 = 2 * lam * math.log(math.e / delta_prime)
    if neighbours == ADD_REMOVE:
        return eps1, delta_prime
    return 2 * eps1, (1 + math.exp(eps1)) * delta_prime


def add_remove_delta(epsilon: float, delta: float, neighbours: str) -> float:
    """δ' of the add/remove analysis behind a target (ε, δ): δ itself for add/remove
    neighbours; ``δ/(1 + e^{ε/2})`` for replace-one (group privacy of two steps)."""
    return delta if neighbours == ADD_REMOVE else privdl_replace_one_delta(epsilon, delta)


def privdl_calibration(epsilon: float, delta: float, neighbours: str = REPLACE_ONE) -> tuple[float, float, float]:
    """``(λ, ε_total, δ_total)`` for target ``(ε, δ)``: λ from the set-cover analysis, the total
    recomputed by :func:`set_cover_privacy` and checked to be ≤ the target.

    Raises
    ------
    ValueError
        if δ = 0 with finite ε (the set-cover analysis needs δ > 0), or the neighbours are unknown.
    """
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    if neighbours not in NEIGHBOURS:
        raise ValueError(f"neighbours must be one of {list(NEIGHBOURS)}, got {neighbours!r}")
    if math.isinf(epsilon):
        return math.inf, math.inf, 0.0
    if delta == 0:
        raise ValueError("delta must be > 0 for privdl with finite epsilon (set-cover analysis), got 0.0")
    delta_prime = add_remove_delta(epsilon, delta, neighbours)
    lam = privdl_lambda_value(epsilon if neighbours == ADD_REMOVE else epsilon / 2, delta_prime)
    eps_total, delta_total = set_cover_privacy(lam, delta_prime, neighbours)
    if not (eps_total <= epsilon * (1 + 1e-12) and delta_total <= delta * (1 + 1e-12)):
        raise AssertionError(f"privdl calibration exceeds the target: ({eps_total}, {delta_total}) > ({epsilon}, {delta})")
    return lam, eps_total, delta_total


def selection_logits(pos: npt.NDArray, neg: npt.NDArray, available: npt.NDArray, lam: float) -> npt.NDArray[np.float64]:
    """Unnormalised log-probabilities of one covering round, index ``b·|F| + f``:
    ``λ·q(f, b)`` with ``q(f, 1) = −neg(f)``, ``q(f, 0) = −pos(f)``, ``−∞`` for used features
    (the law :func:`exp_mech_select` draws from)."""
    scores = np.concatenate([-pos, -neg]).astype(np.float64)
    mask = np.concatenate([available, available])
    return np.where(mask, lam * scores, -np.inf)


def exp_mech_select(pos: npt.NDArray, neg: npt.NDArray, available: npt.NDArray, rng: np.random.Generator, lam: float) -> tuple[int, int]:
    """One draw of ``(f, b)`` with ``P ∝ exp(λ·q(f, b))`` over the available features,
    ``q(f, 1) = −neg(f)``, ``q(f, 0) = −pos(f)`` (Gumbel-max; λ = ∞: uniform argmax).
    Inside :func:`dpbench.mechanisms.laws.recording_laws` the law drawn from is appended to
    the recording (a ``(1, 2|F|)`` log-pmf; the privacy audit composes it)."""
    recording = recorder()
    if math.isinf(lam):
        scores = np.concatenate([-pos, -neg]).astype(np.float64)  # index b·|F| + f
        scores[~np.concatenate([available, available])] = -np.inf
        if recording is not None:  # uniform over the maximisers
            top = scores == scores.max()
            recording.append(np.where(top, -math.log(top.sum()), -np.inf)[None, :])
        index = uniform_argmax(scores, rng=rng)
    else:
        logits = selection_logits(pos, neg, available, lam)
        if recording is not None:
            recording.append((logits - np.logaddexp.reduce(logits))[None, :])
        index = gumbel_max(logits, rng=rng)
    m = len(pos)
    return index % m, index // m


def covering_list(sample: Sample, lam: float, *, rng: np.random.Generator, incremental: bool = True) -> DecisionList:
    """Run the exponential-mechanism covering loop with parameter ``λ`` on ``sample``."""
    packed = feature_matrix(sample)
    def select(p, n, a, r):
        return exp_mech_select(p, n, a, r, lam)

    counts = feature_counts(sample) if incremental else None
    features, bits, state = run_cover(packed, sample.y, feature_class(sample).size, select, rng=rng, incremental=incremental, counts=counts)
    rest = np.flatnonzero(state.available)
    if len(rest):  # S is empty: every remaining round is uniform over the remaining pairs
        order = rng.permutation(rest)
        tail_bits = rng.integers(0, 2, size=len(order))
        features = features + order.tolist()
        bits = bits + tail_bits.tolist()
    return DecisionList.from_features(feature_class(sample), features, bits, 0)


@register_learner(name="privdl", family="batch", private=True, problems=("decision_list",))
@dataclass(frozen=True, kw_only=True)
class PrivDL(CoverLearner):
    """(ε, δ)-DP decision-list learner, set-cover calibration (module docstring).

    ``neighbours``: ``'replace-one'`` (default) or ``'add/remove-one'``.
    """

    epsilon: float
    delta: float
    neighbours: str = REPLACE_ONE

    def __post_init__(self) -> None:
        normalise(self, epsilon=check_epsilon(self.epsilon), delta=check_delta(self.delta))
        privdl_calibration(self.epsilon, self.delta, self.neighbours)  # raises on δ = 0, bad neighbours

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0, "delta": 1e-6}
        yield {"epsilon": 0.5, "delta": 1e-3, "neighbours": ADD_REMOVE}
        yield {"epsilon": math.inf}

    def lam(self) -> float:
        """The exponential mechanism's λ (``P ∝ exp(λ q)``)."""
        return privdl_calibration(self.epsilon, self.delta, self.neighbours)[0]

    def privacy_of(self, lam: float) -> tuple[float, float]:
        """The learner's accountant: total (ε, δ) of the covering run at selection rate
        ``lam`` (:func:`set_cover_privacy` at this learner's δ'; the audit's per-step
        accounting check feeds it the rate its mechanism actually drew with)."""
        return set_cover_privacy(lam, add_remove_delta(self.epsilon, self.delta, self.neighbours), self.neighbours)

    def guarantee(self) -> Guarantee:
        _, eps, delta = privdl_calibration(self.epsilon, self.delta, self.neighbours)
        return Guarantee(epsilon=eps, delta=delta, neighbours=self.neighbours)


    def fit(self, sample: Sample, *, rng: np.random.Generator) -> DecisionList:
        return covering_list(sample, self.lam(), rng=rng)
