"""Tight privacy accounting on top of ``dp-accounting`` ([Mir17]; [BS16]; [CR21]).

The sources ([DR14, Thm 11.2]; [BF26, Appendix C]) calibrate T-fold compositions with the
advanced composition theorem ([DRV10]), which is loose by a constant factor. This module composes the
same mechanisms with a Rényi-DP accountant (``dp_accounting.rdp.RdpAccountant``, whose
RDP → (ε, δ) conversion is the improved one of [CKS20]) and inverts
the composition: the largest per-step parameter whose T-fold composition stays within a
target (ε, δ).

Events (per step, with respect to one neighbour relation):

- **ρ-zCDP** ([BS16]): ``ZCDpEvent(rho)``; T-fold composition is Tρ-zCDP.
- **pure ε₀-DP**: ε₀-DP implies ε₀²/2-zCDP ([BS16, Prop. 3.3]).
- **ε₀-bounded-range** (e.g. the exponential mechanism, which is ε₀-DP *and* ε₀-BR when
  its score has range-sensitivity ε₀/η; [DR19]): ε₀-BR implies ε₀²/8-zCDP
  ([CR21, Lemma 3.2]). One round of RWM with rate η changes every expert's
  cumulative loss by at most 1, so its log-probability ratios span an interval of width at
  most 2η: it is 2η-BR, hence (2η)²/8 = η²/2-zCDP. ``dp-accounting`` 0.6 has no
  exponential-mechanism event, so the zCDP event is used.
- **Gaussian** with noise multiplier σ/Δ₂: ``GaussianDpEvent``; it is 1/(2(σ/Δ₂)²)-zCDP.
- **Poisson-subsampled Gaussian** (DP-SGD): composed with ``dp-accounting``'s privacy-loss
  distribution (PLD) accountant, which is tight up to its (pessimistic, hence still valid)
  discretisation and supports the replace-one relation (:func:`poisson_gaussian_epsilon`).

:func:`calibrate_noise_multiplier` inverts any such accountant and **refuses a degenerate
answer** (ε ≤ 0, non-finite, or far below the target at the calibrated point — the signature
of an accountant outside its numerical range, e.g. RDP orders that stop at 128 report
ε = 0 for huge noise at ε ≈ 0.03, δ = 1e-6).

For pure-DP and bounded-range steps, :func:`compose_pure_dp` / :func:`compose_bounded_range`
return the best of basic composition, advanced composition and the zCDP route, so the
result is never worse than the closed forms. Every function returns an ε that is a valid
upper bound on the privacy loss at the given δ; the tests check the accountant against the
closed form ``ρ + 2 sqrt(ρ ln(1/δ))`` (Bun–Steinke Prop. 1.3), which it must not exceed.

References
----------
.. [BS16] Bun & Steinke, "Concentrated differential privacy: simplifications, extensions,
   and lower bounds", TCC 2016.
.. [CKS20] Canonne, Kamath & Steinke, "The discrete Gaussian for differential privacy",
   NeurIPS 2020 (RDP/zCDP → (ε, δ) conversion).
.. [CR21] Cesar & Rogers, "Bounding, concentrating, and truncating: unifying privacy loss
   composition for data analytics", ALT 2021.
.. [DRV10] Dwork, Rothblum & Vadhan, "Boosting and differential privacy", FOCS 2010.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dpbench.foundation.validation import check_delta, check_epsilon, check_positive, check_positive_int
from dpbench.mechanisms.composition import advanced

if TYPE_CHECKING:
    import dp_accounting

# dp_accounting is imported where it is used: importing it costs ~0.7 s (its PLD package
# imports scipy.signal), which the planner (every Snakemake start, `dpbench plan`/`validate`)
# and the summarise jobs would otherwise pay for nothing.

__all__ = [
    "RDP_ORDERS",
    "Calibration",
    "zcdp_to_epsilon",
    "zcdp_to_epsilon_closed_form",
    "compose_zcdp",
    "pure_dp_to_zcdp",
    "bounded_range_to_zcdp",
    "compose_pure_dp",
    "compose_bounded_range",
    "compose_gaussian",
    "exponential_mechanism_event",
    "largest_per_step",
    "poisson_gaussian_epsilon",
    "calibrate_noise_multiplier",
]

#: RDP orders: dense near 1 (large ρ) and far out (ρ down to ~1e-8 at δ = 1e-10).
RDP_ORDERS: tuple[float, ...] = tuple(
    np.unique(np.concatenate([np.linspace(1.01, 2.0, 50), np.geomspace(2.0, 1e6, 400)])).tolist()
)

def rdp_accountant() -> dp_accounting.rdp.RdpAccountant:
    """An RDP accountant over :data:`RDP_ORDERS`, replace-one neighbours."""
    import dp_accounting
    from dp_accounting import rdp

    return rdp.RdpAccountant(orders=list(RDP_ORDERS), neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)


def _check_delta_positive(delta: float) -> float:
    delta = check_delta(delta)
    if delta == 0:
        raise ValueError("delta must be > 0 for approximate-DP accounting, got 0.0")
    return delta


def zcdp_to_epsilon_closed_form(rho: float, delta: float) -> float:
    """Bun–Steinke conversion: ρ-zCDP ⇒ (ρ + 2 sqrt(ρ ln(1/δ)), δ)-DP.

    .. math:: \\varepsilon = \\rho + 2\\sqrt{\\rho \\ln(1/\\delta)}

    Source: [BS16] Prop. 1.3. A valid but loose bound; the accountant must not exceed it.
    """
    delta = _check_delta_positive(delta)
    rho = float(rho)
    if rho < 0:
        raise ValueError(f"rho must be >= 0, got {rho!r}")
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


def zcdp_to_epsilon(rho: float, delta: float) -> float:
    """ε such that a ρ-zCDP mechanism is (ε, δ)-DP, via ``dp_accounting``'s RDP conversion.

    Never larger than :func:`zcdp_to_epsilon_closed_form` (the minimum of the two is returned,
    so an order grid too coarse for an extreme ρ cannot make it worse).
    """
    delta = _check_delta_positive(delta)
    rho = float(rho)
    if rho < 0:
        raise ValueError(f"rho must be >= 0, got {rho!r}")
    if rho == 0:
        return 0.0
    if math.isinf(rho):
        return math.inf
    import dp_accounting

    acc = rdp_accountant()
    acc.compose(dp_accounting.ZCDpEvent(rho))
    return float(min(acc.get_epsilon(delta), zcdp_to_epsilon_closed_form(rho, delta)))


def compose_zcdp(rho: float, T: int, delta: float) -> float:
    """ε of the T-fold (adaptive) composition of ρ-zCDP steps at δ: (Tρ)-zCDP → (ε, δ).

    Composed as ``SelfComposedDpEvent(ZCDpEvent(rho), T)`` in the RDP accountant.
    """
    T = check_positive_int(T, name="T")
    delta = _check_delta_positive(delta)
    if rho == 0:
        return 0.0
    if math.isinf(rho):
        return math.inf
    import dp_accounting

    acc = rdp_accountant()
    acc.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.ZCDpEvent(float(rho)), T))
    return float(min(acc.get_epsilon(delta), zcdp_to_epsilon_closed_form(T * float(rho), delta)))


def pure_dp_to_zcdp(epsilon0: float) -> float:
    """ε₀-DP ⇒ ε₀²/2-zCDP ([BS16] Prop. 3.3)."""
    return 0.5 * check_epsilon(epsilon0, name="epsilon0") ** 2


def bounded_range_to_zcdp(epsilon0: float) -> float:
    """ε₀-bounded-range ⇒ ε₀²/8-zCDP ([CR21] Lemma 3.2); the exponential mechanism with an
    ε₀-DP calibration is ε₀-BR."""
    return check_epsilon(epsilon0, name="epsilon0") ** 2 / 8


def _compose_best(epsilon0: float, T: int, delta: float, rho: float) -> float:
    epsilon0 = check_epsilon(epsilon0, name="epsilon0")
    T = check_positive_int(T, name="T")
    delta = _check_delta_positive(delta)
    if math.isinf(epsilon0):
        return math.inf
    basic = T * epsilon0
    adv = advanced(epsilon0, T, delta)[0] if epsilon0 < 100 else math.inf  # e^{ε₀} overflows
    return float(min(basic, adv, compose_zcdp(rho, T, delta)))


def compose_pure_dp(epsilon0: float, T: int, delta: float) -> float:
    """ε at δ of T adaptively composed ε₀-DP steps: min(basic Tε₀, advanced [DRV10],
    zCDP route with ε₀²/2 per step)."""
    return _compose_best(epsilon0, T, delta, pure_dp_to_zcdp(epsilon0))


def compose_bounded_range(epsilon0: float, T: int, delta: float) -> float:
    """ε at δ of T adaptively composed ε₀-DP, ε₀-bounded-range steps (exponential
    mechanisms): min(basic, advanced, zCDP route with ε₀²/8 per step [CR21])."""
    return _compose_best(epsilon0, T, delta, bounded_range_to_zcdp(epsilon0))


def compose_gaussian(noise_multiplier: float, T: int, delta: float) -> float:
    """ε at δ of T Gaussian mechanisms with σ = noise_multiplier · Δ₂ (RDP accountant)."""
    noise_multiplier = check_positive(noise_multiplier, name="noise_multiplier")
    T = check_positive_int(T, name="T")
    delta = _check_delta_positive(delta)
    import dp_accounting

    acc = rdp_accountant()
    acc.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(noise_multiplier), T))
    return float(acc.get_epsilon(delta))


def exponential_mechanism_event(epsilon0: float, T: int = 1) -> dp_accounting.DpEvent:
    """The ``DpEvent`` of T composed ε₀-DP exponential mechanisms (as ε₀²/8-zCDP each)."""
    import dp_accounting

    event = dp_accounting.ZCDpEvent(bounded_range_to_zcdp(epsilon0))
    return event if T == 1 else dp_accounting.SelfComposedDpEvent(event, int(T))


@dataclass(frozen=True)
class Calibration:
    """A per-step parameter and the composed guarantee it achieves (≤ the target)."""

    per_step: float
    epsilon: float
    delta: float
    target_epsilon: float
    target_delta: float


def _log_bisect(meets: Callable[[float], bool], good: float, bad: float, rtol: float) -> float:
    """Bisection on ``log x`` between ``good`` (meets the target) and ``bad`` (does not), in
    either order, until they are within a factor ``1 + rtol``: the last point that meets it."""
    while max(good, bad) / min(good, bad) > 1 + rtol:
        mid = math.sqrt(good * bad)
        if meets(mid):
            good = mid
        else:
            bad = mid
    return good


def largest_per_step(
    compose: Callable[[float], float],
    *,
    epsilon: float,
    delta: float,
    upper: float,
    rtol: float = 1e-9,
) -> Calibration:
    """Largest per-step parameter ``x ∈ (0, upper]`` with ``compose(x) ≤ epsilon``.

    ``compose`` maps the per-step parameter to the composed ε at ``delta`` and must be
    non-decreasing. Bisection in log space; the returned point always satisfies the
    target (checked), so the result is conservative by at most a factor ``1 + rtol``.

    Raises
    ------
    ValueError
        if even a vanishing per-step parameter cannot meet the target.
    """
    epsilon = check_epsilon(epsilon)
    upper = check_positive(upper, name="upper")
    if math.isinf(epsilon):
        return Calibration(math.inf, math.inf, delta, epsilon, delta)
    if compose(upper) <= epsilon:
        return Calibration(upper, float(compose(upper)), delta, epsilon, delta)
    lo, hi = upper * 1e-12, upper
    if compose(lo) > epsilon:
        raise ValueError(f"epsilon={epsilon!r} cannot be met at delta={delta!r} even with per-step {lo:.3g}")
    lo = _log_bisect(lambda x: compose(x) <= epsilon, lo, hi, rtol)
    achieved = float(compose(lo))
    assert achieved <= epsilon, (achieved, epsilon)
    return Calibration(lo, achieved, delta, epsilon, delta)


def poisson_gaussian_epsilon(
    noise_multiplier: float, q: float, steps: int, delta: float, *, neighbours: str = "replace-one", resolution: float | None = None
) -> float:
    """ε at δ of ``steps`` Poisson-subsampled (rate ``q``) Gaussian mechanisms, PLD accountant.

    Each step releases ``Σ_{i∈B} g_i + N(0, (z·C)² I)`` with ``‖g_i‖ ≤ C`` and ``B`` a Poisson
    sample of rate ``q`` (``q = 1``: the full data). ``neighbours``: ``"replace-one"`` (the
    dominating pair ``(1−q)N(0, z²) + qN(−1, z²)`` vs ``(1−q)N(0, z²) + qN(1, z²)``, i.e.
    sensitivity 2C when ``q = 1``) or ``"add/remove-one"`` (sensitivity C). Composed by
    ``dp_accounting.pld.PLDAccountant`` with pessimistic discretisation ``resolution`` of the
    privacy loss (default: 1/1000 of a coarse first answer, at least 1e-5 — relative, so a
    large ε is not resolved to digits nobody reads: it was also capped at 1e-3 before
    2026-11-26, which made ε = 10 cost 8 CPU-s a calibration): the result is a valid upper
    bound at any resolution, tight to about the resolution.
    """
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    noise_multiplier = check_positive(noise_multiplier, name="noise_multiplier")
    if not 0 < q <= 1:
        raise ValueError(f"q must be in (0, 1], got {q!r}")
    steps = check_positive_int(steps, name="steps")
    delta = _check_delta_positive(delta)
    relations = {"replace-one": dp_accounting.NeighboringRelation.REPLACE_ONE, "add/remove-one": dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE}
    if neighbours not in relations:
        raise ValueError(f"neighbours must be one of {sorted(relations)}, got {neighbours!r}")
    if resolution is None:
        coarse = poisson_gaussian_epsilon(noise_multiplier, q, steps, delta, neighbours=neighbours, resolution=1e-2)
        resolution = float(max(1e-5, coarse / 1000))
        if resolution >= 1e-2:  # the coarse answer is already that fine (ε ≥ 10)
            return coarse
    acc = pld_privacy_accountant.PLDAccountant(neighboring_relation=relations[neighbours], value_discretization_interval=resolution)
    step = dp_accounting.GaussianDpEvent(noise_multiplier)
    event = step if q >= 1 else dp_accounting.PoissonSampledDpEvent(q, step)
    acc.compose(dp_accounting.SelfComposedDpEvent(event, steps))
    return float(acc.get_epsilon(delta))


def _memoised(fn: Callable[[float], float]) -> Callable[[float], float]:
    """``fn`` with its answers kept per argument (``fn`` deterministic)."""
    answers: dict[float, float] = {}

    def memo(x: float) -> float:
        if x not in answers:
            answers[x] = fn(x)
        return answers[x]

    return memo


def calibrate_noise_multiplier(
    compose: Callable[[float], float],
    *,
    epsilon: float,
    delta: float,
    rtol: float = 1e-3,
    smallest: float = 1e-2,
    guess: float = 1.0,
) -> tuple[float, float]:
    """``(z, ε_achieved)``: the smallest noise multiplier ``z ≥ smallest`` (to ``rtol``) whose
    composed ε at δ, ``compose(z)``, is ≤ ``epsilon``.

    ``compose`` must be non-increasing in ``z``. A bracket is grown from ``guess`` by
    factors of 4, then bisected in log space. The answer is checked: ``ε_achieved ≤ epsilon``
    always, and unless the cap ``z = smallest`` is reached, ``epsilon/2 ≤ ε_achieved`` — an
    accountant that jumps across the target (from above it to 0, say) is outside its
    numerical range.

    Raises
    ------
    ValueError
        (naming ``epsilon`` and ``delta``) if the accountant's answer is degenerate or no
        noise multiplier up to 10¹⁴ meets the target.
    """
    epsilon = check_epsilon(epsilon)
    compose = _memoised(compose)  # the search asks some points twice; an accountant call can take seconds
    hi = max(float(guess), smallest)
    while not compose(hi) <= epsilon:  # NaN counts as "not met"
        hi *= 4
        if hi > 1e14:
            raise ValueError(f"epsilon={epsilon!r} cannot be met at delta={delta!r} with any noise multiplier up to 1e14")
    lo = hi
    while lo > smallest and compose(lo) <= epsilon:
        lo = max(lo / 4, smallest)
    capped = compose(lo) <= epsilon  # lo == smallest already meets the target
    if capped:
        hi = lo
    hi = _log_bisect(lambda z: compose(z) <= epsilon, hi, lo, rtol)
    achieved = float(compose(hi))
    if not (math.isfinite(achieved) and achieved > 0 and achieved <= epsilon and (capped or achieved >= epsilon / 2)):
        raise ValueError(
            f"degenerate privacy accounting at epsilon={epsilon!r}, delta={delta!r}: the accountant reports "
            f"epsilon={achieved!r} at noise multiplier {hi:.4g} (outside its numerical range; use a tighter accountant)"
        )
    return hi, achieved
