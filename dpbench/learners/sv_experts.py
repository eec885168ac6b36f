"""``sv_experts``: sparse-vector private experts for the realizable setting (after
[AFKT23]). **[reconstructed]**: the constants and
the switching rule below are this package's instantiation, not the paper's.

Play one expert until the sparse-vector test says it has lost too much, then switch:

1. start with a uniformly random expert (no data used);
2. AboveThreshold ([DR14, Alg. 1], ε_s-DP): noisy threshold ``T̂ = Λ + Lap(2/ε_s)``;
   after each round t ask ``q_t = Σ_{s=τ..t} ℓ^s_{i}`` (the current expert's loss since
   the last switch τ; sensitivity 1) with fresh ``ν_t ~ Lap(4/ε_s)``; fire at the first
   ``q_t + ν_t ≥ T̂``;
3. on firing, choose the next expert by the exponential mechanism (ε_s-DP) with score
   ``−L_i`` (all cumulative losses so far, sensitivity 1); restart 2;
4. after ``K`` switches keep the current expert to the end.

``K = ⌈log₂ k⌉ + 1`` and ``Λ = 1 + (6/ε_s)·ln(2T/β)`` with ``β = 0.1`` (so a zero-loss
expert survives all T noisy tests w.p. ≥ 1 − β). At ε = ∞: switch at the first loss, to a
uniformly random current leader (the non-private twin).

Privacy: 2K adaptively composed ε_s-DP mechanisms (K AboveThreshold instances, K
exponential mechanisms); ε_s = ε/(2K) (basic composition) when δ = 0, else the largest
ε_s whose composition (:func:`dpbench.mechanisms.accounting.compose_pure_dp`) is ≤ (ε, δ).
Replace-one loss vector.
Utility (the ``realizable`` instance: one expert never loses, the others are fair coins):
total regret < 2Λ w.p. ≥ 1 − p, p ≤ 0.08 on the paper grid (:func:`dpbench.theory.sv_regret_bound`,
derived with constants there: one segment on a coin expert, then the perfect expert, which the
sparse vector never fires on); the generic shape is Õ(log² k · log T / ε)
(:func:`dpbench.theory.regret_sv_experts`); Asi et al. prove Õ(log^{1.5} k / ε).
Vectorised: the action is constant between switches, so each segment is a cumulative sum
of one column plus noise; the Python loop runs over switches (≤ K + 1), not rounds.

References
----------
.. [AFKT23] Asi, Feldman, Koren & Talwar, "Private online prediction from experts:
   separations and faster rates", COLT 2023.
.. [DR14] Dwork & Roth, §3.6 (AboveThreshold).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.learners.base import ClaimedDP, check_claim
from dpbench.learners.experts_common import ExpertsLosses, ExpertsTrace, check_losses, checkpoints
from dpbench.mechanisms.accounting import compose_pure_dp
from dpbench.mechanisms.exponential import ExponentialMechanism
from dpbench.theory.experts import EXPERTS_BETA, sv_epsilon_step, sv_switches, sv_threshold

#: failure probability the threshold Λ is calibrated for (the theory's, one value)
BETA = EXPERTS_BETA
CHUNK = 1 << 14


def max_switches(k: int) -> int:
    return sv_switches(k)


@dataclass(frozen=True)
class SvCalibration:
    epsilon_step: float
    switches: int
    threshold: float
    epsilon: float  # composed
    delta: float


@functools.lru_cache(maxsize=4096)
def calibrate(epsilon: float, delta: float, T: int, k: int) -> SvCalibration:
    """Per-mechanism ε_s, switch budget K, threshold Λ; composed (ε, δ) ≤ target (asserted):
    the calibration of :mod:`dpbench.theory.experts` (:func:`~dpbench.theory.experts.sv_switches`,
    :func:`~dpbench.theory.experts.sv_epsilon_step`, :func:`~dpbench.theory.experts.sv_threshold`),
    the one :func:`~dpbench.theory.experts.sv_regret_bound` is stated for."""
    epsilon, delta = check_claim(epsilon, delta)
    K = max_switches(k)
    if math.isinf(epsilon):
        return SvCalibration(math.inf, K, 1.0, math.inf, delta)
    eps_s, composed = sv_epsilon_step(epsilon, delta, k)
    assert composed <= epsilon * (1 + 1e-12), (composed, epsilon)
    return SvCalibration(eps_s, K, float(sv_threshold(eps_s, T, BETA)), composed, delta)


@register_learner(name="sv_experts", family="experts", problems=("experts",))
@dataclass(frozen=True, kw_only=True)
class SVExperts(ClaimedDP):
    # guarantee(): the configured (ε, δ); calibrate() composes the 2K switches to at most it (asserted)

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0, "delta": 0.0}
        yield {"epsilon": 1.0, "delta": 1e-6}
        yield {"epsilon": math.inf}

    def supports_horizon(self, T: int, k: int) -> str | None:
        return None

    def privacy_of(self, epsilon_step: float, mechanisms: int) -> float:
        """The learner's accountant: total ε at its δ of ``mechanisms`` ε_s-DP mechanisms (the
        sparse-vector instances and switches): basic, or for δ > 0 the better of basic and
        :func:`~dpbench.mechanisms.accounting.compose_pure_dp` (what :func:`calibrate`
        inverts; the audit's per-step accounting check)."""
        basic = mechanisms * epsilon_step
        return basic if self.delta == 0 else min(basic, compose_pure_dp(epsilon_step, mechanisms, self.delta))

    def switch_mechanism(self, epsilon_step: float) -> ExponentialMechanism:
        """The switch: the exponential mechanism on ``−(cumulative loss)`` (sensitivity 1, one
        round's loss in [0, 1]) at the per-switch budget ``epsilon_step``."""
        return ExponentialMechanism(epsilon=epsilon_step, sensitivity=1.0)

    def switch_for(self, T: int, k: int) -> ExponentialMechanism:
        """The switch :meth:`run` uses on a ``T``-round, ``k``-expert stream: :meth:`switch_mechanism`
        at the calibrated per-mechanism budget (:func:`calibrate`); the privacy audit samples it."""
        return self.switch_mechanism(calibrate(self.epsilon, self.delta, T, k).epsilon_step)

    def run(self, losses: ExpertsLosses, *, rng: np.random.Generator, n_checkpoints: int = 1) -> ExpertsTrace:
        check_losses(losses)
        T, k = losses.T, losses.k
        cal = calibrate(self.epsilon, self.delta, T, k)
        private = math.isfinite(cal.epsilon_step)
        mech = self.switch_for(T, k)
        codes = losses.codes
        actions = np.empty(T, dtype=np.int64)
        cum = np.zeros(k, dtype=np.int64)  # cumulative codes up to `start`
        current = int(rng.integers(k))
        start, switches = 0, 0
        scale_q = 1.0 / losses.scale  # queries in loss units
        while start < T:
            if switches >= cal.switches:
                actions[start:] = current
                break
            noisy_threshold = cal.threshold + (rng.laplace(0.0, 2.0 / cal.epsilon_step) if private else 0.0)
            fired_at = -1
            q0 = 0.0
            pos = start
            while pos < T:
                stop = min(T, pos + CHUNK)
                q = q0 + np.cumsum(codes[pos:stop, current], dtype=np.int64) / scale_q
                noisy = q + rng.laplace(0.0, 4.0 / cal.epsilon_step, size=stop - pos) if private else q
                hits = np.flatnonzero(noisy >= noisy_threshold)
                if len(hits):
                    fired_at = pos + int(hits[0])
                    break
                q0 = float(q[-1])
                pos = stop
            if fired_at < 0:
                actions[start:] = current
                break
            actions[start : fired_at + 1] = current
            cum += codes[start : fired_at + 1].sum(axis=0, dtype=np.int64)
            current = mech.select(-cum.astype(float) * losses.scale, rng=rng)
            switches += 1
            start = fired_at + 1
        marks = checkpoints(T, n_checkpoints)
        played = codes[np.arange(T), actions].astype(np.int64)
        alg = np.cumsum(played)[marks - 1] * losses.scale
        best = np.array([codes[:m].sum(axis=0, dtype=np.int64).min() for m in marks]) * losses.scale
        return ExpertsTrace(
            t=marks,
            alg_loss=alg.astype(float),
            expected_loss=alg.astype(float),  # the played distribution is a point mass given the history
            best_loss=best.astype(float),
            counts=np.bincount(actions, minlength=k),
            diagnostics={"updates": switches},
        )
