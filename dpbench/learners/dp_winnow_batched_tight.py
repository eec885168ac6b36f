"""``dp_winnow_batched_tight`` (ours): :mod:`dpbench.learners.dp_winnow_batched` (DP-Winnow,
Bun & Fang, arXiv:2602.07370, 2026, Algorithm 4.2, with this project's batched update)
with the same (ε, δ) guarantee, but with (ε₀, η, K, threshold) calibrated by a tight
accountant (also ours).

Same algorithm and code path as :mod:`dpbench.learners.dp_winnow_batched`; only
:func:`dpbench.learners.dp_winnow.calibrate` differs (``accountant='zcdp'``):

- the target (ε, δ) is turned into the largest zCDP budget ρ_z whose RDP conversion
  (``dp-accounting``'s ``RdpAccountant``, via :mod:`dpbench.mechanisms.accounting`) is
  ≤ ε at δ; half goes to the sparse vector, half to the sampled weights;
- each AboveThreshold instance is ε₀-DP ⇒ ε₀²/2-zCDP, so ``ε₀ = sqrt(ρ_z/(M+1))``;
- each exponential-mechanism draw is 4η-bounded-range ⇒ 2η²-zCDP ([CR21]), so
  η is the largest rate with ``(M(η)+1)·K·2η² ≤ ρ_z/2``;
- the threshold uses the direct Laplace-tail accuracy
  (:func:`dpbench.mechanisms.sparse_vector.accuracy_tight`).

The composed guarantee is recomputed by :func:`~dpbench.learners.dp_winnow.composed_privacy`
and asserted ≤ the target. The gap between ``dp_winnow_batched`` and ``dp_winnow_batched_tight`` is what
the analysis (rather than the algorithm) costs.

No tight-accounting learner with the source's one-example rule is registered: the
accountant does not change what that rule achieves at any T the benchmark runs. At N = 2,
ρ = 1, T = 10⁶, δ = 10⁻⁶, ε = 10 zCDP raises η from 5.5·10⁻⁵ to 5.2·10⁻⁴ and lowers the
threshold from 4.4·10⁴ to 5.2·10³ cached examples, but the rule still needs
≈ ln N/(η(ρ − γ)) ≈ 2.7·10³ firings of ≈ 5·10³ examples, T ≈ 10⁷ (10⁹ with advanced
composition), to move its weights; the batched rule learns by T ≈ 10⁴ under either
accountant (tests/test_dp_winnow.py checks these calibrations). The two registered
comparisons isolate the two changes: ``dp_winnow`` vs ``dp_winnow_batched`` (the update
rule, same accountant), ``dp_winnow_batched`` vs ``dp_winnow_batched_tight`` (the
accountant, same rule).

Privacy: (ε, δ)-DP, replace-one neighbouring streams, oblivious adversary.
Utility: as ``dp_winnow_batched`` (same shape; smaller constants).

References
----------
.. [BS16] Bun & Steinke, TCC 2016. .. [CR21] Cesar & Rogers, ALT 2021.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dpbench.foundation.registry import register_learner
from dpbench.learners.dp_winnow_batched import DPWinnowBatched


@register_learner(name="dp_winnow_batched_tight")
@dataclass(frozen=True, kw_only=True)
class DPWinnowBatchedTight(DPWinnowBatched):
    """Batched DP-Winnow calibrated with zCDP/RDP accounting (same parameters as
    ``dp_winnow_batched``)."""

    accountant: ClassVar[str] = "zcdp"
