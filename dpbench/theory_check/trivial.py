"""Trivial levels that depend on the drawn target: data, not theory.

The theory check and the figures compare every curve with the trivial predictor's value —
the level a learner must get clearly below to have learnt anything. Where that value is a
formula of the problem's parameters it lives in :mod:`dpbench.theory`
(:func:`~dpbench.theory.trivial_error_of`, :func:`~dpbench.theory.trivial_regret_of`);
where it is a property of the *drawn* target (a decision list drawn by rejection sampling,
whose label balance is not a function of the parameters) it is computed here, from the
target the results row records (:func:`dpbench.problems.base.target_of_row`: the same
target every shard drew, redrawn from the row's ``root_seed`` and problem key; a few
milliseconds per problem, cached).
"""

from __future__ import annotations

import numpy as np

from dpbench.problems.base import target_of_row

_DL_ERROR: dict[tuple[int, str], float] = {}
_DL_RATE: dict[tuple[int, str], float] = {}


def _target(row):

    return target_of_row(row)


def dl_trivial_error_of(row) -> float:
    r"""Error of the best constant predictor (the majority label) in the decision-list
    distribution a results row records: :math:`\eta + (1 - 2\eta)\min(P[f = 1], P[f = 0])`,
    on the same held-out sample as the learners' error (0.13–0.5 on the default grid)."""
    key = (int(row["root_seed"]), str(row["problem_id"]))
    if key not in _DL_ERROR:
        target = _target(row)
        _, f = target._holdout_sample()
        positive = float(np.mean(f))
        _DL_ERROR[key] = target.noise + (1 - 2 * target.noise) * min(positive, 1 - positive)
    return _DL_ERROR[key]


def trivial_mistake_rate_of(row) -> float:
    """Mistake rate per round of the best constant predictor on the stream a results row
    records. ``halfspace`` streams: ½ (their labels are balanced: 0.49–0.51 positive on the
    default grid's targets). ``dl_as_halfspace``: the drawn list's majority-label rate
    (:meth:`~dpbench.problems.dl_as_halfspace.DecisionListHalfspaceTarget.constant_error`)."""
    if row["problem"] != "dl_as_halfspace":
        return 0.5
    key = (int(row["root_seed"]), str(row["problem_id"]))
    if key not in _DL_RATE:
        _DL_RATE[key] = _target(row).constant_error()
    return _DL_RATE[key]
