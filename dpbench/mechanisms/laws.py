"""The privacy audit's hook into a learner: the laws its random draws are made from.

A learner whose output is a sequence of random draws (Hedge's action in each round, the
exponential-mechanism rounds of ``privdl``, the K-draw releases of DP-Winnow) reports, inside :func:`recording_laws`, the
log-pmf of every draw **as its own code computed it, at the point where it samples** (the
compiled Hedge kernel's normalised weights; the logits ``privdl`` passes to Gumbel-max).
The audit runs the learner's public entry point (``run``/``fit``) on each side of a
neighbouring pair inside the block and composes the recorded laws exactly
(:func:`dpbench.mechanisms.exact.product_law_epsilon`), so a calibration error anywhere
in the learner's code (η doubled in the kernel, λ doubled in the covering loop) moves the
audited exact ε(δ).

Outside the block nothing is recorded: the learner's results are unchanged (the hook only
reads what the draw uses) and its cost is one context-variable look-up per call.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

_RECORDING: ContextVar[list[np.ndarray] | None] = ContextVar("dpbench_recorded_laws", default=None)
_RELEASES: ContextVar[list[dict] | None] = ContextVar("dpbench_recorded_releases", default=None)


@contextmanager
def recording_laws() -> Iterator[list[np.ndarray]]:
    """Within the block, learners append to the yielded list one ``(rounds, outcomes)``
    array of log-probabilities per batch of draws, in the order they draw."""
    laws: list[np.ndarray] = []
    token = _RECORDING.set(laws)
    try:
        yield laws
    finally:
        _RECORDING.reset(token)


def recorder() -> list[np.ndarray] | None:
    """The open recording (a list to append ``(rounds, outcomes)`` log-pmfs to), or ``None``."""
    return _RECORDING.get()


@contextmanager
def recording_releases() -> Iterator[list[dict]]:
    """Within the block, closed-form releases (Laplace, ℓ2-Laplace, Gaussian noise; the noisy
    descent's steps) append to the yielded list one dict per release with the parameters
    they actually draw with (``mechanism``, the noise ``scale`` and the ``sensitivity`` it
    was calibrated for, ...): the per-step accounting check (:mod:`dpbench.audits.step_accounting`)
    recomputes each step's loss from them."""
    releases: list[dict] = []
    token = _RELEASES.set(releases)
    try:
        yield releases
    finally:
        _RELEASES.reset(token)


def release_recorder() -> list[dict] | None:
    """The open release recording (a list to append parameter dicts to), or ``None``."""
    return _RELEASES.get()
