r"""``privdl_composition``: the ablation of ``privdl`` calibrated by composition over the
|F| rounds instead of the set-cover analysis ([BF26, §3]; [DRV10]).

Same covering loop as :mod:`dpbench.learners.privdl`; round ``i`` is the exponential
mechanism ``P ∝ exp(ε₀·q_i(f, b)/2)`` (score sensitivity 1 under replace-one neighbours:
given the earlier outputs, ``S_i`` and ``S'_i`` differ in at most one example), so each round
is ε₀-DP and the |F| rounds compose adaptively:

- ``delta > 0``: advanced composition ([DRV10]), ε₀ the largest value with
  ``ε₀·sqrt(2|F| ln(1/δ)) + |F|·ε₀(e^{ε₀} − 1) ≤ ε`` (or ``ε/|F|`` if basic is better:
  :func:`dpbench.mechanisms.composition.advanced_per_step`);
- ``delta = 0``: basic composition, ``ε₀ = ε/|F|``

(:func:`dpbench.theory.privdl_composition_round_epsilon`, which the theory's bound uses too).

All |F| rounds are counted, including those after the sample is exhausted. Since
``ε₀ ≈ ε/sqrt(2|F| ln(1/δ))`` (δ > 0, ε₀ ≪ 1), each round errs on ``O(sqrt(|F| log(1/δ)) log|F| / ε)``
examples and the total error grows like ``|F|^{3/2}`` — the point of the ablation.

Privacy: (ε, δ)-DP, replace-one (:func:`composition_calibration`).
Utility (realizable): a bound with its constants, [BF26, Lemma A.4]'s argument at λ = ε₀/2:
with probability ≥ 1 − β the population error is ≤ α once
``n ≥ (K + L + sqrt(L² + 2KL))/α`` with ``K = 2(|F| ln(2|F|) + Γ⁻¹_|F|(1 − β/2))/ε₀`` and
``L = ln|C| + ln(2/β)`` — ``O(|F|^{3/2} sqrt(ln(1/δ)) ln|F|/(αε))``
(:func:`dpbench.theory.n_privdl_composition_run`).

References
----------
.. [DRV10] C. Dwork, G. Rothblum, S. Vadhan, "Boosting and differential privacy", FOCS 2010.
.. [BF26] M. Bun, W. Fang, "Privately Learning Decision Lists and a Differentially Private
   Winnow", arXiv:2602.07370, 2026, §3 and Appendix A.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.learners.base import ClaimedDP, check_claim
from dpbench.learners.privdl import covering_list
from dpbench.learners.rivest import (
    CoverLearner,
    feature_class,
)
from dpbench.mechanisms.composition import basic, composed_rounds
from dpbench.problems.base import Sample
from dpbench.problems.decision_list import DecisionList
from dpbench.theory.decision_lists import privdl_composition_round_epsilon


def composition_calibration(epsilon: float, delta: float, rounds: int) -> tuple[float, float, float]:
    """``(ε₀, ε_total, δ_total)`` for ``rounds`` ε₀-DP rounds: the composed total is recomputed
    (the better of basic and advanced composition) and checked to be ≤ ``(ε, δ)``."""
    epsilon, delta = check_claim(epsilon, delta)
    if math.isinf(epsilon):
        return math.inf, math.inf, 0.0
    eps0 = privdl_composition_round_epsilon(epsilon, delta, rounds)
    total = basic([eps0] * rounds) if delta == 0 else composed_rounds(eps0, rounds, delta)
    if not (total[0] <= epsilon * (1 + 1e-9) and total[1] <= delta * (1 + 1e-12)):
        raise AssertionError(f"composition calibration exceeds the target: {total} > ({epsilon}, {delta})")
    return eps0, total[0], total[1]


@register_learner(name="privdl_composition", family="batch", problems=("decision_list",))
@dataclass(frozen=True, kw_only=True)
class PrivDLComposition(CoverLearner, ClaimedDP):
    """``privdl``'s loop with per-round ε₀ from composition over |F| rounds (module docstring)."""

    # guarantee(): the configured (ε, δ), for every |F| (ε₀ is chosen per sample to meet the target)

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0, "delta": 1e-6}
        yield {"epsilon": 1.0}
        yield {"epsilon": math.inf}


    def privacy_of(self, eps0: float, n_features: int) -> tuple[float, float]:
        """The learner's accountant: total (ε, δ) of the |F| = ``n_features`` rounds at a
        per-round loss ``eps0`` (:func:`composed_rounds`; the audit's per-step accounting check)."""
        return composed_rounds(eps0, n_features, self.delta)

    def lam(self, n_features: int) -> float:
        """``λ = ε₀/2`` for a feature class of size ``n_features`` (``P ∝ exp(ε₀ q/2)``)."""
        return composition_calibration(self.epsilon, self.delta, n_features)[0] / 2

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> DecisionList:
        return covering_list(sample, self.lam(feature_class(sample).size), rng=rng)
