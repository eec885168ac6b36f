"""δ at a given ε of T composed bounded-range steps (the inverse direction of
:func:`dpbench.mechanisms.accounting.compose_bounded_range`).

Each ε₀-bounded-range step (one round of Hedge / MW with ε₀ = 2η, an exponential
mechanism) is ε₀²/8-zCDP ([CR21, Lemma 3.2]); T adaptive steps are
Tε₀²/8-zCDP, converted to δ(ε) by ``dp_accounting``'s RDP accountant (the conversion of
[CKS20]). Basic composition gives δ = 0 whenever Tε₀ ≤ ε; the smaller
of the two is returned, so this is a valid upper bound on the δ of every such mechanism.
"""

from __future__ import annotations

import math

from dpbench.foundation.validation import check_epsilon, check_positive_int
from dpbench.mechanisms.accounting import bounded_range_to_zcdp, rdp_accountant


def bounded_range_delta(epsilon0: float, T: int, epsilon: float) -> float:
    """Certified δ at ``epsilon`` of T adaptively composed ε₀-bounded-range steps."""
    epsilon0 = check_epsilon(epsilon0, name="epsilon0")
    T = check_positive_int(T, name="T")
    epsilon = check_epsilon(epsilon)
    if T * epsilon0 <= epsilon:
        return 0.0
    if math.isinf(epsilon0):
        return 1.0
    import dp_accounting  # imported on use (see dpbench.mechanisms.accounting)

    acc = rdp_accountant()
    acc.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.ZCDpEvent(bounded_range_to_zcdp(epsilon0)), T))
    return float(min(1.0, acc.get_delta(epsilon)))
