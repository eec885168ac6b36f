"""Generic audit instances, one per learner family, for private learners that declare none
(``dpbench check``; the catalogue's worst-case instances live in :mod:`dpbench.audits`).

A generic instance treats the learner as a black box: it builds a small neighbouring pair
from the learner's first declared problem (its first ``test_params``, fixed seeds), runs
the learner on each side and reduces every output to one integer fixed in advance — a
post-processing of the output, so the learner's (ε, δ) bounds its distribution shift.
Small data make one changed record matter as much as it can in a generic setting; the
instances are not worst cases (a declared ``audit_cases`` is always stronger).

- ``batch``: D = 16 examples of the problem; D' replaces the last one by its label flip
  (replace-one), or drops it (add/remove). Output statistic: the predictions on the changed
  input and 5 fixed probe inputs, as a 6-bit code.
- ``online``: a stream of 32 rounds; D' flips the label of round 1. Output statistic: the
  mistakes on rounds 2..32 (labels identical on both sides, so a function of the
  predictions alone).
- ``experts``: 32 rounds of losses; D' complements round 1's loss vector. Output
  statistic: how often expert 0 was played.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from dpbench.audits.engine import AuditCase
from dpbench.foundation import registry
from dpbench.learners.base import ADD_REMOVE
from dpbench.problems.base import Sample
from dpbench.problems.losses import ExpertsLosses

BATCH_SIZE = 16
PROBES = 5
HORIZON = 32


def _learner_and_target(cls: type, family: str, *, epsilon: float, delta: float):
    problem = next(p for p in cls.problems if registry.problem(p).family == family)
    problem_cls = registry.problem(problem)
    params = dict(next(iter(problem_cls.test_params())))
    target = problem_cls(**params).draw_target(rng=np.random.default_rng(0))
    rest = {k: v for k, v in next(iter(cls.test_params())).items() if k not in ("epsilon", "delta")}
    learner = cls.from_cell(epsilon=epsilon, delta=delta, params=rest)
    reason = learner.supports(target)
    if reason is not None:
        raise ValueError(f"generic {family} instance on {problem} {params}: {reason}")
    return learner, target, f"{problem} {params}"


def _flip(y: np.ndarray) -> np.ndarray:
    return -y if y.min() < 0 else 1 - y


def _batch(cls: type, *, epsilon: float, delta: float) -> tuple[Callable, str]:

    learner, target, where = _learner_and_target(cls, "batch", epsilon=epsilon, delta=delta)
    d = target.sample(BATCH_SIZE, rng=np.random.default_rng(1))
    if learner.guarantee().neighbours == ADD_REMOVE:
        d_prime, change = d.prefix(BATCH_SIZE - 1), "last example removed"
    else:
        y = np.array(d.y)
        y[-1] = _flip(y[-1:])[0]
        d_prime, change = Sample(np.array(d.X), y, d.concept_class), "last label flipped"
    probes = np.concatenate([d.X[-1:], target.sample(PROBES, rng=np.random.default_rng(2)).X])
    weights = 2 ** np.arange(len(probes))
    sides = (d, d_prime)

    def sample(side: int, runs: int, rng: np.random.Generator) -> np.ndarray:
        out = np.empty(runs, dtype=np.int64)
        for i in range(runs):
            h = learner.fit(sides[side], rng=rng)
            out[i] = int(weights @ (np.asarray(h.predict(probes)) > 0))
        return out

    return sample, f"generic batch: {where}, n={BATCH_SIZE}, {change}; statistic: predictions on 6 probes"


def _online(cls: type, *, epsilon: float, delta: float) -> tuple[Callable, str]:
    from dpbench.problems.halfspace import OnlineStream  # deferred: imports numba and scipy

    learner, target, where = _learner_and_target(cls, "online", epsilon=epsilon, delta=delta)
    stream = target.stream(HORIZON, rng=np.random.default_rng(1))
    X, y = (np.concatenate(parts) for parts in zip(*stream.blocks()))
    y_prime = y.copy()
    y_prime[0] = -y_prime[0]
    checkpoints = np.array([1, HORIZON], dtype=np.int64)

    def make(labels: np.ndarray) -> OnlineStream:
        return OnlineStream(T=HORIZON, n_features=stream.n_features, rho=stream.rho, make_block=lambda b, rng: (X, labels),
                            rng=np.random.default_rng(0), checkpoints=checkpoints, block_size=HORIZON)

    sides = (make(y), make(y_prime))

    def sample(side: int, runs: int, rng: np.random.Generator) -> np.ndarray:
        out = np.empty(runs, dtype=np.int64)
        for i in range(runs):
            trace = learner.run(sides[side], rng=rng)
            out[i] = int(trace.mistakes[-1] - trace.mistakes[0])
        return out

    return sample, f"generic online: {where}, T={HORIZON}, label of round 1 flipped; statistic: mistakes in rounds 2..T"


def _experts(cls: type, *, epsilon: float, delta: float) -> tuple[Callable, str]:

    learner, target, where = _learner_and_target(cls, "experts", epsilon=epsilon, delta=delta)
    losses = target.losses(HORIZON, rng=np.random.default_rng(1))
    top = int(round(1 / losses.scale))
    codes = losses.codes.copy()
    codes[0] = top - codes[0]
    sides = (losses, ExpertsLosses(codes, losses.scale))

    def sample(side: int, runs: int, rng: np.random.Generator) -> np.ndarray:
        return np.array([int(learner.run(sides[side], rng=rng).counts[0]) for _ in range(runs)])

    return sample, f"generic experts: {where}, T={HORIZON}, round 1's losses complemented; statistic: plays of expert 0"


GENERIC = {"batch": _batch, "online": _online, "experts": _experts}


#: the generic broken copy: the same learner calibrated for this multiple of the claimed ε
BROKEN_FACTOR = 8.0


def generic_cases(cls: type, *, epsilon: float, delta: float) -> list[AuditCase]:
    """The generic ``correct`` case of a private learner's family and its ``broken`` copy:
    the same learner built at ``BROKEN_FACTOR·ε`` claiming ε (a black box can only be broken
    through its calibration). If the instance cannot catch that copy, the audit reports
    ``no_power`` (:func:`dpbench.audits.engine.judge`): its pass would mean nothing."""
    if not math.isfinite(epsilon):
        return []
    g = cls.from_cell(epsilon=epsilon, delta=delta,
                      params={k: v for k, v in next(iter(cls.test_params())).items() if k not in ("epsilon", "delta")}).guarantee()
    cases = []
    for variant, eps in (("correct", epsilon), ("broken", BROKEN_FACTOR * epsilon)):
        sample, instance = GENERIC[cls.family](cls, epsilon=eps, delta=delta)
        cases.append(AuditCase(learner=cls.name, variant=variant, epsilon=g.epsilon, delta=g.delta, neighbours=g.neighbours,
                               instance=instance, sample=sample,
                               note="" if variant == "correct" else f"broken: built at {BROKEN_FACTOR:g}*eps, claiming eps"))
    return cases
