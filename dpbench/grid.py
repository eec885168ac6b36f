"""Grid cells and shards (docs/configuration.md, "Cells, shards and jobs").

A :class:`Cell` is one point of the grid: (experiment, problem + parameters, learner +
parameters, ε, δ, size) with its number of repetitions; its :meth:`Cell.key` (everything
but the repetitions) names its random streams, so seeds never depend on shard layout.
:func:`shard` packs the cells of an experiment into jobs by their predicted cost
(:mod:`dpbench.cost`): either a fixed number of jobs, or as many as it takes for each to
do about ``target_seconds`` of work.
"""

from __future__ import annotations

import heapq
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

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
    #: the config's ``plugins:`` modules, so that a job decoding the cell imports them
    #: (:func:`dpbench.registry.load_plugins`); not part of the key, the seeds or equality
    plugins: tuple[str, ...] = field(default=(), compare=False)

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
            **({"plugins": list(self.plugins)} if self.plugins else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> "Cell":
        def decode(v: object) -> object:
            return math.inf if v == "inf" else v

        plugins = tuple(data.get("plugins", ()))
        if plugins:
            from dpbench.registry import load_plugins

            load_plugins(plugins)
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
            plugins=plugins,
        )


def cells_to_json(cells: Iterable[Cell]) -> str:
    return json.dumps([c.to_dict() for c in cells])


def cells_from_json(text: str) -> list[Cell]:
    return [Cell.from_dict(d) for d in json.loads(text)]


def sort_cells(cells: Iterable[Cell]) -> list[Cell]:
    """Deterministic order that keeps cells sharing a sample (problem, size) together."""
    return sorted(cells, key=lambda c: (c.problem_id, c.size, c.learner, c.key_string()))


def estimated_cost(cell: Cell) -> float:
    """Predicted seconds of a cell if it ran alone in its shard (:mod:`dpbench.cost`:
    the learner's own ``cost(cell)`` hook, else the calibrated per-learner model, else a
    per-family default)."""
    from dpbench.cost import cell_cost

    return cell_cost(cell).alone


def _units(ordered: Sequence[Cell], target_seconds: float | None) -> list[tuple[list[Cell], float]]:
    """Runs of consecutive cells that share work (same sample), with their predicted cost.

    A run is kept whole (its shared work is paid once) unless its cells' own work alone
    exceeds ``target_seconds``; then it is cut into consecutive pieces of about that much
    own work, each piece paying the shared work again (splitting a run whose cost is
    mostly shared work would only repeat that work in every job).
    """
    from dpbench.cost import cell_cost, shard_seconds

    costs = {cell: cell_cost(cell) for cell in ordered}
    runs: list[list[Cell]] = []
    for cell in ordered:
        if runs and (runs[-1][-1].problem_id, runs[-1][-1].size) == (cell.problem_id, cell.size):
            runs[-1].append(cell)
        else:
            runs.append([cell])
    units = []
    for run in runs:
        own = sum(costs[cell].own for cell in run)
        if target_seconds is None or own <= target_seconds or len(run) == 1:
            units.append((run, shard_seconds(run, costs)))
            continue
        pieces = max(1, min(len(run), math.ceil(own / target_seconds)))
        chunks: list[list[Cell]] = [[] for _ in range(pieces)]
        acc = 0.0
        for cell in run:
            c = costs[cell].own
            chunks[min(int((acc + c / 2) / own * pieces), pieces - 1)].append(cell)
            acc += c
        units += [(chunk, shard_seconds(chunk, costs)) for chunk in chunks if chunk]
    return units


def shard(cells: Sequence[Cell], n_shards: int | None = None, *, target_seconds: float | None = None) -> list[list[Cell]]:
    """Pack cells into shards of similar predicted cost.

    With ``target_seconds`` (from the config's ``shard_minutes``) the number of shards is
    ``ceil(predicted total / target_seconds)``, so each job does about that much work;
    otherwise it is ``n_shards`` (the config's ``shards``). Either way it is at most the
    number of cells and never depends on the repetitions' layout: cells, their keys and
    hence their seeds are the same whatever the shards. Cells that share a sample stay in
    one job (their data-derived statistics are computed once, see :func:`_units`); units
    are packed longest-first into the least-loaded shard; each shard lists its cells in
    :func:`sort_cells` order, and the shards are ordered by their first cell.
    """
    ordered = sort_cells(cells)
    if not ordered:
        return []
    if target_seconds is not None and not target_seconds > 0:
        raise ValueError(f"target_seconds must be > 0, got {target_seconds!r}")
    units = _units(ordered, target_seconds)
    total = sum(cost for _, cost in units)
    if target_seconds is not None:
        wanted = math.ceil(total / target_seconds)
    elif n_shards is not None:
        wanted = n_shards
    else:
        raise ValueError("give n_shards or target_seconds")
    n_shards = max(1, min(int(wanted), len(units)))
    # longest-processing-time-first: each unit, largest first, to the least-loaded shard
    # (ties: the lower index), which keeps every shard within 4/3 of the best layout
    loads = [(0.0, i) for i in range(n_shards)]
    heapq.heapify(loads)
    shards: list[list[Cell]] = [[] for _ in range(n_shards)]
    for index in sorted(range(len(units)), key=lambda u: (-units[u][1], u)):
        load, i = heapq.heappop(loads)
        shards[i].extend(units[index][0])
        heapq.heappush(loads, (load + units[index][1], i))
    position = {cell: i for i, cell in enumerate(ordered)}
    out = [sorted(s, key=position.__getitem__) for s in shards if s]
    return sorted(out, key=lambda s: position[s[0]])
