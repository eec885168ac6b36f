"""``dpbench shrink CONFIG -o OUT``: a config of the same shape that runs in minutes.

Before spending cluster hours on a grid, run its *shape* — every experiment, sweep,
problem (with its parameters), learner (with its parameters), ε and δ — at small sizes:
every theory check and figure recipe then meets exactly the groups, sweeps and learner
mixes it will meet on the full grid, and a crash shows in minutes instead of at the end.

What changes, per experiment block and each of its sweeps:

- the size list (``n`` or ``T``): sizes above a cap are dropped and at most
  :data:`MAX_SIZES` are kept, evenly spread over the remaining list (ends included: the
  lists are geometric grids, so the kept sizes are too); a list that would keep fewer than ``min(3, len)`` sizes instead keeps its
  smallest ``min(3, len)`` sizes scaled down so the largest equals the cap (kept distinct,
  so at least 1, 2, 3) — every curve of ≥ 3 sizes keeps ≥ 3, and no size grows;
- the cap is the largest of the block's sizes (over its sweeps), or below the smallest
  the smallest halved up to :data:`MAX_HALVINGS` times, for which the predicted CPU
  seconds of the block's cells (:func:`dpbench.orchestration.cost.shard_seconds`, shared work counted
  once) are within ``budget_seconds``; if none is, the last tried;
- ``repetitions`` becomes ``min(repetitions, reps)`` (at least 2, so fits over
  repetitions have a spread);
- job sizing: ``shards`` and ``shard_minutes`` of the blocks are dropped and the top-level
  ``shard_minutes`` is :data:`SHARD_MINUTES`.

The ``output`` key is dropped: the shrunk config writes under the directory its own file
name gives it (``results/<name>/``, dpbench.foundation.paths), never into the full run's. Every other
key (seed, options, plugins, ...) is copied unchanged. The input is validated
first (:func:`dpbench.orchestration.config.from_dict`), so a bad config fails here with its key.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import numpy as np

from dpbench.foundation import registry
from dpbench.orchestration.config import ConfigError, from_dict
from dpbench.orchestration.cost import shard_seconds

#: at most this many sizes per size list after shrinking
MAX_SIZES = 4

#: how far below its smallest size a block may be cut (a factor 2**MAX_HALVINGS)
MAX_HALVINGS = 10

#: predicted CPU-minutes per shard job of a shrunk config (a handful of jobs per experiment)
SHARD_MINUTES = 0.25


def shrink_sizes(sizes: list[int], cap: int) -> list[int]:
    """The sizes of one list under ``cap`` (see the module docstring)."""
    sizes = sorted({int(s) for s in sizes})
    want = min(3, len(sizes))
    kept = [s for s in sizes if s <= cap]
    if len(kept) < want:  # scale the smallest `want` down to the cap, keeping them distinct
        kept = []
        for s in sizes[:want]:
            kept.append(max(len(kept) + 1, kept[-1] + 1 if kept else 1, round(s * cap / sizes[want - 1])))
    if len(kept) > MAX_SIZES:
        index = np.unique(np.round(np.linspace(0, len(kept) - 1, MAX_SIZES)).astype(int))
        kept = [kept[i] for i in index]
    return kept


def _sized(block: Mapping[str, Any], size_key: str, cap: int, reps: int) -> dict[str, Any]:
    """A copy of an experiment block (and its sweeps) with sizes capped and repetitions cut."""
    out = copy.deepcopy(dict(block))
    out.pop("shards", None)
    out.pop("shard_minutes", None)
    for part in [out, *out.get("sweeps", [])]:
        if size_key in part:
            part[size_key] = shrink_sizes(part[size_key], cap)
        if "repetitions" in part or part is out:
            part["repetitions"] = max(2, min(int(part.get("repetitions", 10)), reps))
    return out


def _block_sizes(block: Mapping[str, Any], size_key: str) -> list[int]:
    sizes = set(block.get(size_key, []))
    for sweep in block.get("sweeps", []):
        sizes |= set(sweep.get(size_key, []))
    return sorted(int(s) for s in sizes)


def predicted_seconds(config: Mapping[str, Any], exp_id: str) -> float:
    """Predicted CPU-seconds of the cells of one experiment of ``config`` (dpbench.orchestration.cost)."""

    plan = from_dict({**config, "experiments": {exp_id: config["experiments"][exp_id]}}).experiments[exp_id]
    return shard_seconds(list(plan.cells))


def shrink(config: Mapping[str, Any], *, budget_seconds: float = 20.0, repetitions: int = 2) -> dict[str, Any]:
    """The shrunk copy of a config mapping (see the module docstring).

    Raises :class:`dpbench.orchestration.config.ConfigError` if ``config`` is invalid or the options are.
    """
    if repetitions < 2:
        raise ConfigError("--reps", f"must be >= 2, got {repetitions}")
    if not budget_seconds > 0:
        raise ConfigError("--budget", f"must be > 0, got {budget_seconds}")
    from_dict(config)  # validate the input first: errors name the input's keys
    out = copy.deepcopy(dict(config))
    out.pop("output", None)  # its own directory, not the full run's
    out["shard_minutes"] = SHARD_MINUTES
    for exp_id, block in config["experiments"].items():
        size_key = registry.experiment(exp_id).size
        sizes = _block_sizes(block, size_key)
        caps = sizes[::-1] + [max(1, sizes[0] >> k) for k in range(1, MAX_HALVINGS + 1)]
        for cap in caps:
            out["experiments"][exp_id] = _sized(block, size_key, cap, repetitions)
            if predicted_seconds(out, exp_id) <= budget_seconds:
                break
    return out
