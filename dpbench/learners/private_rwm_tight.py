"""``private_rwm_tight``: RWM with η from a tight accountant (beyond
the sources: [CR21]; [BS16]).

Same algorithm as :mod:`private_rwm`; each round is a ``2η``-DP exponential mechanism that
is also ``2η``-bounded-range, hence ``(2η)²/8 = η²/2``-zCDP ([CR21]). The
T rounds are composed in ``dp_accounting``'s RDP accountant
(:func:`dpbench.mechanisms.accounting.compose_bounded_range`, which also takes the
minimum with basic and advanced composition), and η is the largest value whose
composition stays within (ε, δ) (:func:`dpbench.mechanisms.accounting.largest_per_step`),
capped at the non-private ``sqrt(ln k / T)``:

.. math:: \\eta = \\min\\big(\\max\\{\\eta : \\varepsilon_{RDP}(T \\cdot \\eta^2/2, \\delta) \\le \\varepsilon\\},\\ \\sqrt{\\ln k / T}\\big)

For small ε this is ``η ≈ ε / sqrt(2T ln(1/δ))``-ish, ≈ 4× [DR14, Thm 11.2]'s ``ε/sqrt(32 T ln(1/δ))``.
``eta_gain`` (diagnostic) is the ratio to ``private_rwm``'s η.

Privacy: (ε, δ)-DP, replace-one loss vector (same as ``private_rwm``).
Utility: ``E[Regret] ≤ η + ln k/(ηT)`` ([DR14, Thm 11.1]) at the larger η.

References
----------
.. [CR21] Cesar & Rogers, ALT 2021 (bounded range ⇒ zCDP).
.. [BS16] Bun & Steinke, TCC 2016 (zCDP).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import ClassVar

from dpbench.foundation.registry import register_learner
from dpbench.learners.experts_common import rwm_eta
from dpbench.learners.private_rwm import PrivateHedge, RwmCalibration, check_private_params
from dpbench.learners.private_rwm import calibrate as calibrate_seeds
from dpbench.mechanisms.accounting import compose_bounded_range, largest_per_step


@functools.lru_cache(maxsize=4096)
def calibrate(epsilon: float, delta: float, T: int, k: int) -> RwmCalibration:
    """η of ``private_rwm_tight``; the composed ε (RDP accountant) is ≤ the target."""
    epsilon, delta = check_private_params(epsilon, delta)
    cap = rwm_eta(T, k)
    if math.isinf(epsilon):
        return RwmCalibration(eta=cap, eta_privacy=math.inf, epsilon=math.inf, delta=delta)
    compose = lambda e0: compose_bounded_range(e0, T, delta)  # noqa: E731  (per-step ε₀ = 2η)
    cal = largest_per_step(compose, epsilon=epsilon, delta=delta, upper=max(2 * cap, epsilon), rtol=1e-6)
    eta_privacy = cal.per_step / 2
    eta = min(eta_privacy, cap)
    composed = compose(2 * eta)
    assert composed <= epsilon, (composed, epsilon)
    return RwmCalibration(eta=eta, eta_privacy=eta_privacy, epsilon=composed, delta=delta)


def eta_gain(epsilon: float, delta: float, T: int, k: int) -> float:
    """Ratio of the tight η to the advanced-composition η of ``private_rwm`` (before caps)."""
    return calibrate(epsilon, delta, T, k).eta_privacy / calibrate_seeds(epsilon, delta, T, k).eta_privacy


@register_learner(name="private_rwm_tight", twin="rwm", problems=("experts",))
@dataclass(frozen=True, kw_only=True)
class PrivateRWMTight(PrivateHedge):
    """Private RWM with η from the tight (RDP/zCDP) accountant: :func:`calibrate`."""

    calibrate_fn: ClassVar = staticmethod(calibrate)
    compose_rounds: ClassVar = staticmethod(compose_bounded_range)  # calibrate's accountant (per-round 2η bounded range)
