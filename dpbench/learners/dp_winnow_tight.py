"""``dp_winnow_tight``: DP-Winnow ([BF26, Alg. 4.2]) with the same (ε, δ) guarantee, but
with (ε₀, η, K, threshold) calibrated by a tight accountant ([BS16]; [CR21]).

Same algorithm and code path as :mod:`dpbench.learners.dp_winnow`; only
:func:`dpbench.learners.dp_winnow.calibrate` differs (``accountant='zcdp'``):

- the target (ε, δ) is turned into the largest zCDP budget ρ_z whose RDP conversion
  (``dp-accounting``'s ``RdpAccountant``, via :mod:`dpbench.mechanisms.accounting`) is
  ≤ ε at δ; half goes to the sparse vector, half to the sampled weights;
- each AboveThreshold instance is ε₀-DP ⇒ ε₀²/2-zCDP, so ``ε₀ = sqrt(ρ_z/(M+1))``;
- each exponential-mechanism draw is 4η-bounded-range ⇒ 2η²-zCDP (Cesar–Rogers 2021), so
  η is the largest rate with ``(M(η)+1)·K·2η² ≤ ρ_z/2``;
- the threshold uses the direct Laplace-tail accuracy
  (:func:`dpbench.mechanisms.sparse_vector.accuracy_tight`).

The composed guarantee is recomputed by :func:`~dpbench.learners.dp_winnow.composed_privacy`
and asserted ≤ the target. The gap between ``dp_winnow`` and ``dp_winnow_tight`` is what
the analysis (rather than the algorithm) costs.

Privacy: (ε, δ)-DP, replace-one neighbouring streams, oblivious adversary.
Utility: as ``dp_winnow`` (same shape; smaller constants).

References
----------
.. [BS16] Bun & Steinke, TCC 2016. .. [CR21] Cesar & Rogers, ALT 2021.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dpbench.learners.dp_winnow import DPWinnow
from dpbench.registry import register_learner


@register_learner
@dataclass(frozen=True, kw_only=True)
class DPWinnowTight(DPWinnow):
    """DP-Winnow calibrated with zCDP/RDP accounting (same parameters as ``dp_winnow``)."""

    name: ClassVar[str] = "dp_winnow_tight"
    accountant: ClassVar[str] = "zcdp"
