"""Grid cells and shards (design.md "Data flow").

A :class:`Cell` is one point of the grid: (experiment, problem + parameters, learner +
parameters, ε, δ, size) with its number of repetitions; its :meth:`Cell.key` (everything
but the repetitions) names its random streams, so seeds never depend on shard layout.
:func:`shard` packs the cells of an experiment into a fixed number of jobs, independent of
the number of repetitions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from dpbench.seeding import canonical, key_hash, key_string

Params = tuple[tuple[str, object], ...]


def freeze(mapping: Mapping[str, object]) -> Params:
    """A hashable, order-independent form of a parameter mapping."""
    return tuple(sorted((str(k), mapping[k]) for k in mapping))


@dataclass(frozen=True)
class Cell:
    """One grid point; all its repetitions run in one process."""

    experiment: str
    problem: str
    problem_params: Params
    learner: str
    learner_params: Params
    epsilon: float
    delta: float
    size: int  # n (batch) or T (online, experts)
    repetitions: int
    options: Params = ()  # experiment-level settings (e.g. checkpoints), part of the key

    def problem_key(self) -> dict[str, object]:
        """Identity of the distribution: the problem name and its parameters."""
        return {"problem": self.problem, **dict(self.problem_params)}

    @property
    def problem_id(self) -> str:
        """File-name-safe id of the distribution (``conjunction-3f2a…``)."""
        return f"{self.problem}-{key_hash(self.problem_key())}"

    def key(self) -> dict[str, object]:
        """Identity of the cell (without the number of repetitions)."""
        return {
            "experiment": self.experiment,
            **self.problem_key(),
            "learner": self.learner,
            "learner_params": dict(self.learner_params),
            "epsilon": self.epsilon,
            "delta": self.delta,
            "size": self.size,
            "options": dict(self.options),
        }

    def key_string(self) -> str:
        return key_string(self.key())

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (Snakemake params, CLI)."""
        return {
            "experiment": self.experiment,
            "problem": self.problem,
            "problem_params": canonical(dict(self.problem_params)),
            "learner": self.learner,
            "learner_params": canonical(dict(self.learner_params)),
            "epsilon": canonical(self.epsilon),
            "delta": self.delta,
            "size": self.size,
            "repetitions": self.repetitions,
            "options": canonical(dict(self.options)),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> "Cell":
        def decode(v: object) -> object:
            return math.inf if v == "inf" else v

        return cls(
            experiment=data["experiment"],
            problem=data["problem"],
            problem_params=freeze({k: decode(v) for k, v in data["problem_params"].items()}),
            learner=data["learner"],
            learner_params=freeze({k: decode(v) for k, v in data["learner_params"].items()}),
            epsilon=float(decode(data["epsilon"])),
            delta=float(data["delta"]),
            size=int(data["size"]),
            repetitions=int(data["repetitions"]),
            options=freeze({k: decode(v) for k, v in data.get("options", {}).items()}),
        )


def cells_to_json(cells: Iterable[Cell]) -> str:
    return json.dumps([c.to_dict() for c in cells])


def cells_from_json(text: str) -> list[Cell]:
    return [Cell.from_dict(d) for d in json.loads(text)]


def sort_cells(cells: Iterable[Cell]) -> list[Cell]:
    """Deterministic order that keeps cells sharing a sample (problem, size) together."""
    return sorted(cells, key=lambda c: (c.problem_id, c.size, c.learner, c.key_string()))


def estimated_cost(cell: Cell) -> float:
    """Relative cost of a cell, used to balance shards: the learner's own ``cost`` if it
    has one (seconds per repetition), else proportional to the sample size."""
    from dpbench import registry

    learner_cls = registry.learner(cell.learner)
    per_rep = getattr(learner_cls, "cost", None)
    seconds = per_rep(cell) if per_rep else 1e-6 * cell.size
    return max(seconds, 1e-4) * cell.repetitions


def shard(cells: Sequence[Cell], n_shards: int) -> list[list[Cell]]:
    """Split sorted cells into at most ``n_shards`` contiguous shards of similar cost.

    Contiguity keeps cells that share a sample in one job (their data-derived statistics
    are computed once). The number of shards does not depend on the repetitions.
    """
    ordered = sort_cells(cells)
    if not ordered:
        return []
    n_shards = max(1, min(n_shards, len(ordered)))
    costs = [estimated_cost(c) for c in ordered]
    total = sum(costs)
    shards: list[list[Cell]] = [[] for _ in range(n_shards)]
    acc = 0.0
    for cell, cost in zip(ordered, costs):
        # place by the midpoint of the cell's cost interval
        index = min(int((acc + cost / 2) / total * n_shards), n_shards - 1)
        shards[index].append(cell)
        acc += cost
    return [s for s in shards if s]
