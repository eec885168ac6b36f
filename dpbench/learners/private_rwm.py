"""``private_rwm``: RWM with the privacy calibration of [DR14, Thm 11.2].

.. math:: \\eta = \\min\\Big(\\frac{\\varepsilon}{\\sqrt{32\\,T \\ln(1/\\delta)}},\\; \\sqrt{\\ln k/T}\\Big)

Each round samples from the exponential mechanism with score ``−L_i`` (sensitivity 1 when
one loss vector in [0, 1]^k changes), which is ``2η``-DP; the T rounds compose adaptively
(advanced composition, Dwork–Rothblum–Vadhan) to ``(ε, δ)``. :func:`calibrate` computes
the composed (ε, δ) of the η it returns and asserts it is within the target; where the
source's formula would overshoot (ε ≳ 4 ln(1/δ), outside Thm 11.2's ε ≤ 1) it falls back to
the largest per-step ε₀ whose advanced/basic composition meets the target. The cap at the
non-private rate ``sqrt(ln k / T)`` only lowers η (more private, never worse regret),
and makes ``ε = ∞`` exactly :mod:`rwm`.

Privacy: (ε, δ)-DP w.r.t. changing one round's loss vector (replace-one), for every
oblivious sequence; the actions a_1..a_T are the output.
Utility: ``E[Regret] ≤ η + ln k/(ηT)`` ([DR14, Thm 11.1]), i.e.
``≤ sqrt(128 ln(1/δ)) ln k / (ε sqrt T)`` (Thm 11.3); w.p. 1−β add ``sqrt(ln(k/β)/T)``
(Thm 11.4).

References
----------
.. [DR14] Dwork & Roth, §11.2, Theorems 11.2–11.4.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar

from dpbench.foundation.registry import register_learner
from dpbench.learners.base import ClaimedDP, check_claim
from dpbench.learners.experts_common import HedgeLearner, rwm_eta
from dpbench.mechanisms.accounting import exponential_mechanism_event, largest_per_step
from dpbench.mechanisms.composition import advanced


@dataclass(frozen=True)
class RwmCalibration:
    """``eta`` used; ``eta_privacy`` the largest η the calibration allows (before the cap);
    ``epsilon``/``delta``: composed guarantee of T rounds at ``eta`` (≤ target)."""

    eta: float
    eta_privacy: float
    epsilon: float
    delta: float


def check_private_params(epsilon: float, delta: float) -> tuple[float, float]:
    """The claim of an (ε, δ) composition over T rounds: :func:`~dpbench.learners.base.check_claim`, and δ > 0 at finite ε."""
    epsilon, delta = check_claim(epsilon, delta)
    if math.isfinite(epsilon) and delta == 0:
        raise ValueError("delta must be > 0 for (ε, δ) composition over T rounds, got 0.0")
    return epsilon, delta


def advanced_composed_epsilon(epsilon0: float, T: int, delta: float) -> float:
    """min(basic, advanced) ε of T rounds of ε₀-DP at δ (advanced overflows beyond ε₀ ≈ 700)."""
    adv = advanced(epsilon0, T, delta)[0] if epsilon0 < 100 else math.inf
    return min(T * epsilon0, adv)


@functools.lru_cache(maxsize=4096)
def calibrate(epsilon: float, delta: float, T: int, k: int) -> RwmCalibration:
    """η of ``private_rwm`` for horizon T and k experts, with its composed guarantee.

    Raises AssertionError if the composed (ε, δ) exceeds the target (it cannot).
    """
    epsilon, delta = check_private_params(epsilon, delta)
    cap = rwm_eta(T, k)
    if math.isinf(epsilon):
        return RwmCalibration(eta=cap, eta_privacy=math.inf, epsilon=math.inf, delta=delta)
    seeds = epsilon / math.sqrt(32 * T * math.log(1 / delta))
    if advanced_composed_epsilon(2 * seeds, T, delta) > epsilon:
        seeds = largest_per_step(lambda e0: advanced_composed_epsilon(e0, T, delta), epsilon=epsilon, delta=delta, upper=epsilon).per_step / 2
    eta = min(seeds, cap)
    composed = advanced_composed_epsilon(2 * eta, T, delta)
    assert composed <= epsilon * (1 + 1e-12), (composed, epsilon)
    return RwmCalibration(eta=eta, eta_privacy=seeds, epsilon=composed, delta=delta)


@dataclass(frozen=True, kw_only=True)
class PrivateExperts(HedgeLearner, ClaimedDP):
    """The experts learners whose claim is an (ε, δ) composition over the T rounds
    (``private_rwm``, ``private_rwm_tight``, ``private_mw_001``): δ is required, and > 0 at
    finite ε (:func:`check_private_params`)."""

    family: ClassVar[str] = "experts"
    problems: ClassVar[tuple[str, ...]] = ("experts",)
    check_claim: ClassVar = staticmethod(check_private_params)
    delta: float = field()  # required (no default)


@dataclass(frozen=True, kw_only=True)
class PrivateHedge(PrivateExperts):
    """Shared shape of the (ε, δ)-DP Hedge learners (replace-one: one round's loss vector
    changed): ε and δ are validated once; η(T, k) comes from the class's ``calibrate_fn``,
    which computes the composed (ε, δ) of the T rounds and asserts it is ≤ the target.
    The guarantee, (ε, δ), holds for every horizon: :meth:`calibration` picks η(T) so that
    the T-fold composition meets the target (asserted there)."""

    calibrate_fn: ClassVar = staticmethod(calibrate)
    #: the accountant ``calibrate_fn`` certifies with: ε at δ of T rounds of a per-round loss
    #: ``(per_round, T, delta) -> ε`` (the audit's per-step accounting check feeds it the
    #: losses the kernel actually drew with)
    compose_rounds: ClassVar = staticmethod(advanced_composed_epsilon)

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0, "delta": 1e-6}
        yield {"epsilon": math.inf, "delta": 1e-6}

    def calibration(self, T: int, k: int) -> RwmCalibration:
        return self.calibrate_fn(self.epsilon, self.delta, int(T), int(k))

    def eta(self, T: int, k: int) -> float:
        return self.calibration(T, k).eta

    def dp_event(self, T: int, k: int):
        """``dp_accounting`` event of the T rounds (each a 2η exponential mechanism)."""
        return exponential_mechanism_event(2 * self.eta(T, k), T)


@register_learner(name="private_rwm", twin="rwm", problems=("experts",))
@dataclass(frozen=True, kw_only=True)
class PrivateRWM(PrivateHedge):
    """Private RWM with η from advanced composition (the :class:`PrivateHedge` defaults)."""
