"""Per-step accounting check of a private learner (issue 30): the privacy loss of every step
the learner's own code actually took, composed by the learner's own accountant.

A learner is private because each of its steps has a bounded privacy loss and its
accountant composes those bounds into its recorded total (ε, δ). The check re-does that
arithmetic from what the code *did*, not from what its calibration says it should do:

- for a learner that records the laws of its draws (:mod:`dpbench.mechanisms.laws`: the Hedge
  kernel's inverse-CDF tables, ``privdl``'s selection logits, DP-Winnow's release laws), the
  learner runs on a neighbouring pair and each step's loss is the **log-ratio range** of its
  two recorded laws, ``max_o ln(p_D(o)/p_D'(o)) − min_o ln(p_D(o)/p_D'(o))``
  (:func:`log_ratio_range`). For an exponential mechanism with scores of sensitivity Δ and
  rate λ it is at most ``2λΔ`` on every pair, with equality where the scores move by ±Δ in
  opposite directions (the pairs the audits use), and it bounds the step's pure-DP loss
  ``max_o |ln(p_D/p_D')|`` as well as its bounded-range parameter (Durfee & Rogers,
  "Practical differentially private top-k selection with pay-what-you-get composition",
  NeurIPS 2019, Def. 3; Cesar & Rogers, "Bounding, concentrating, and truncating: unifying
  privacy loss composition for data analytics", ALT 2021), so feeding it to the learner's
  accountant is valid whichever of the two the accountant assumes;
- for a closed-form release (Laplace, Gaussian, exponential), the per-step loss is the noise
  scale and sensitivity the learner actually uses at release time (its ε = Δ/b, σ/Δ, …).

The largest step loss, for the number of steps the learner takes, goes to the learner's
own accountant. The check fails when that total exceeds the recorded guarantee, or when a
step exceeds the calibrated per-step budget (a learner whose analysis has slack can
over-spend per step and still fit its total: the check still catches the calibration
error). It needs no sampled runs, and it does not depend on how well the pair exposes the
learner's loss over many steps (only on one step's law, which the pairs attain).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpbench.mechanisms.laws import recording_laws, recording_releases

#: relative tolerance of the per-step comparison (recorded laws are rounded to double
#: precision; the inverse-CDF differences to ~1e-15 relative)
STEP_TOLERANCE = 1e-6


@dataclass(frozen=True)
class StepAccount:
    """``step``: the largest per-step privacy loss the code took; ``budget``: the per-step
    loss its calibration allows; ``steps``: how many the learner composes; ``total``: the
    learner's own accountant at ``step`` for ``steps`` (at its δ); ``what``: how ``step`` was
    obtained and which accountant composed it."""

    step: float
    budget: float
    steps: int
    total: float
    what: str

    @property
    def step_ok(self) -> bool:
        return self.step <= self.budget * (1 + STEP_TOLERANCE) + 1e-15

    def describe(self) -> str:
        mark = "<=" if self.step_ok else "> (step over budget)"
        return (f"per-step accounting: largest step loss {self.step:.6g} {mark} calibrated {self.budget:.6g}; "
                f"{self.steps} steps composed by the learner's accountant: eps {self.total:.6g}; {self.what}")


def log_ratio_range(logp: np.ndarray, logq: np.ndarray) -> np.ndarray:
    """Per row (one step's law on D and on D′, log-pmfs over the same outcomes), the range of
    the log-likelihood ratio over outcomes possible on either side: ``+∞`` if an outcome is
    possible on one side only, 0 for a row whose two laws agree."""
    logp, logq = np.atleast_2d(np.asarray(logp, dtype=np.float64)), np.atleast_2d(np.asarray(logq, dtype=np.float64))
    if logp.shape != logq.shape:
        raise ValueError(f"step laws of different shapes on the two sides: {logp.shape} vs {logq.shape}")
    either = np.isfinite(logp) | np.isfinite(logq)
    both = np.isfinite(logp) & np.isfinite(logq)
    with np.errstate(invalid="ignore"):
        ratio = np.where(both, logp - logq, np.nan)
    out = np.nanmax(np.where(both, ratio, -np.inf), axis=1) - np.nanmin(np.where(both, ratio, np.inf), axis=1)
    out = np.where(both.any(axis=1), out, 0.0)
    return np.where((either & ~both).any(axis=1), np.inf, out)


def largest_step(logp: np.ndarray, logq: np.ndarray) -> float:
    """The largest per-step loss (:func:`log_ratio_range`) over the recorded steps."""
    ranges = log_ratio_range(logp, logq)
    return float(ranges.max()) if ranges.size else 0.0


def account(step: float, budget: float, steps: int, accountant: Callable[[float], float], what: str) -> StepAccount:
    """:class:`StepAccount` of ``steps`` steps of loss ``step`` composed by ``accountant``
    (the learner's own: per-step loss → total ε at the learner's δ)."""
    total = math.inf if not math.isfinite(step) else float(accountant(step))
    return StepAccount(step=float(step), budget=float(budget), steps=int(steps), total=total, what=what)


def recorded_release(learner, sample) -> dict:
    """The parameters of the one closed-form release ``learner.release(sample, runs=1)``
    draws with (:func:`dpbench.mechanisms.laws.recording_releases`); ``ValueError`` unless
    exactly one release is recorded."""

    with recording_releases() as releases:
        learner.release(sample, rng=np.random.default_rng(0), runs=1)
    if len(releases) != 1:
        raise ValueError(f"{type(learner).__name__} recorded {len(releases)} releases in one run, expected 1")
    return releases[0]


def recorded_draw_laws(learner, pair) -> tuple[np.ndarray, np.ndarray]:
    """The laws of the draws ``learner.release(side, runs=1)`` makes on the two sides of
    ``pair`` (:func:`dpbench.mechanisms.laws.recording_laws`), stacked per side."""

    out = []
    for sample in pair:
        with recording_laws() as laws:
            learner.release(sample, rng=np.random.default_rng(0), runs=1)
        if not laws:
            raise ValueError(f"{type(learner).__name__} recorded no law in one release")
        out.append(np.concatenate(laws))
    return out[0], out[1]


def one_release(step: float, claim: float, what: str) -> StepAccount:
    """A learner that releases once at per-step loss ``step`` (its total), against its claim."""
    return account(step, claim, 1, lambda e: e, what)
