"""Grid cells and shards (docs/configuration.md, "Cells, shards and jobs").

A :class:`Cell` is one point of the grid: (experiment, problem + parameters, learner +
parameters, ε, δ, size) with its number of repetitions; its :meth:`Cell.key` (everything
but the repetitions) names its random streams, so seeds never depend on shard layout.
:func:`shard` packs the cells of an experiment into jobs by their predicted cost
(:mod:`dpbench.cost`): either a fixed number of jobs, or as many as it takes for each to
do about ``target_seconds`` of work.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import heapq
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from dpbench.cost import CellCost, cell_cost, cost_seconds
from dpbench.seeding import canonical, key_hash, key_string

Params = tuple[tuple[str, object], ...]


@contextlib.contextmanager
def gc_paused():
    """Python's cyclic garbage collector off inside the block (a decorator too), then as it
    was. Planning allocates millions of small objects (cells, key strings, costs) and no
    cycles, and the collector's full passes re-scan all of them as they accumulate: about
    a third of the CPU time of planning a 300,000-cell grid (issue 22)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def freeze(mapping: Mapping[str, object]) -> Params:
    """A hashable, order-independent form of a parameter mapping."""
    return tuple(sorted((str(k), mapping[k]) for k in mapping))


class _once:
    """``functools.cached_property`` without its lock: computed on first access and stored
    in the instance's ``__dict__`` (which later accesses read directly). Python 3.11's
    ``cached_property`` takes a lock on every first access; a plan computes three of these
    for each of hundreds of thousands of cells (issue 22), and cells are built in one thread."""

    def __init__(self, func):
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.func(instance)
        return value


@dataclass(frozen=True)
class Cell:
    """One grid point, or a contiguous range of its repetitions
    (``first_rep … first_rep + repetitions − 1``): a cell too costly for one job is split
    into such pieces (:func:`shard`). Repetition ``r`` draws its streams from the key and
    ``r`` alone, so a piece's rows are exactly the rows of those repetitions of the whole
    cell. The key and problem id are computed once per cell (cached), and a piece
    (:meth:`piece`) takes them from its cell."""

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
    #: the first repetition this (piece of a) cell runs; not part of the key
    first_rep: int = 0
    #: the config's ``plugins:`` modules, so that a job decoding the cell imports them
    #: (:func:`dpbench.registry.load_plugins`); not part of the key, the seeds or equality
    plugins: tuple[str, ...] = field(default=(), compare=False)

    def problem_key(self) -> dict[str, object]:
        """Identity of the distribution: the problem name and its parameters."""
        return {"problem": self.problem, **dict(self.problem_params)}

    @_once
    def problem_id(self) -> str:
        """File-name-safe id of the distribution (``conjunction-3f2a…``)."""
        return _problem_id(self.problem, self.problem_params)

    @property
    def reps(self) -> range:
        """The repetitions this cell (or piece) runs."""
        return range(self.first_rep, self.first_rep + self.repetitions)

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
        return self._key_string

    @_once
    def _key_string(self) -> str:
        # = key_string(self.key()), from a template shared by the cells that differ only
        # in ε, δ and size (a large grid has few templates and many cells)
        template = _key_template(self.experiment, self.problem, self.problem_params, self.learner, self.learner_params, self.options)
        return template.format(_json_value(self.epsilon), _json_value(self.delta), _json_value(self.size))

    def __hash__(self) -> int:  # computed once (cells key many dicts)
        return self._hash

    @_once
    def _hash(self) -> int:
        return _cell_hash(self._key_string, self.repetitions, self.first_rep)

    def piece(self, first_rep: int, repetitions: int) -> "Cell":
        """The same cell running repetitions ``first_rep … first_rep + repetitions − 1``
        (= ``dataclasses.replace(self, first_rep=…, repetitions=…)``): the key is the
        cell's, so its cached key string and problem id are copied, not recomputed."""
        return self._copy(first_rep=first_rep, repetitions=repetitions, _hash=_cell_hash(self._key_string, repetitions, first_rep))

    def _copy(self, **state) -> "Cell":
        """This cell with ``state`` replacing fields and cached values (``problem_id``,
        ``_key_string``, ``_hash``) in its ``__dict__``: ``dataclasses.replace`` without
        ``__init__``, for callers that set every cached value the changes make stale."""
        other = object.__new__(Cell)
        vars(other).update(vars(self), **state)
        return other

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (Snakemake params, CLI)."""
        return {
            "experiment": self.experiment,
            "problem": self.problem,
            "problem_params": dict(_canonical_params(self.problem_params)),
            "learner": self.learner,
            "learner_params": dict(_canonical_params(self.learner_params)),
            "epsilon": canonical(self.epsilon),
            "delta": self.delta,
            "size": self.size,
            "repetitions": self.repetitions,
            "options": dict(_canonical_params(self.options)),
            **({"first_rep": self.first_rep} if self.first_rep else {}),
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
            first_rep=int(data.get("first_rep", 0)),
            plugins=plugins,
        )


#: The fields that differ most between cells (ε, δ, size, repetitions): a cell's key text
#: and JSON text are filled into templates (:func:`_key_template`, :func:`_json_template`)
#: that hold these placeholders where they go, as strings and as JSON writes them.
_FIELDS = ("epsilon", "delta", "size", "repetitions")
_RAW_MARKS = tuple(f"\x1f{name}\x1f" for name in _FIELDS)
_MARKS = tuple(json.dumps(m) for m in _RAW_MARKS)


def _cell_hash(key_string: str, repetitions: int, first_rep: int) -> int:
    """A cell's hash: the key string stands for every compared field but the other two
    (equal cells have equal key strings), and a plan has it already."""
    return hash((key_string, repetitions, first_rep))


def grid_cells(experiment: str, problem: str, problem_params: Sequence[Params], learner: str, learner_params: Params,
               epsilon: float, delta: float, sizes: Sequence[int], repetitions: int, options: Params = ()) -> list[Cell]:
    """The cells of one learner setting at one (ε, δ): each problem parameters × each size,
    in that order; their key strings, problem ids and hashes are filled in from one
    template per problem parameters (a grid of hundreds of thousands of cells has few)."""
    epsilon_text, delta_text = _json_value(epsilon), _json_value(delta)
    cells = []
    for params in problem_params:
        template = _key_template(experiment, problem, params, learner, learner_params, options)
        first = Cell(experiment, problem, params, learner, learner_params, epsilon, delta, 0, repetitions, options)
        vars(first)["problem_id"] = _problem_id(problem, params)
        for size in sizes:
            key = template.format(epsilon_text, delta_text, _json_value(size))
            cells.append(first._copy(size=size, _key_string=key, _hash=_cell_hash(key, repetitions, 0)))
    return cells


def _json_value(value: object, canon: bool = True) -> str:
    """``json.dumps(canonical(value))`` (``canon=False``: ``json.dumps(value)``), fast for
    the finite floats and ints of ε, δ, size and repetitions."""
    if type(value) is float and math.isfinite(value):
        return repr(value)  # what json writes for a float
    if type(value) is int:
        return str(value)
    return json.dumps(canonical(value) if canon else value)


def _format_template(text: str, n: int) -> str:
    """``text`` as a :meth:`str.format` template: its braces doubled, the first ``n``
    placeholders (:data:`_MARKS`) replaced by ``{0}`` … ``{n-1}``."""
    text = text.replace("{", "{{").replace("}", "}}")
    for i, mark in enumerate(_MARKS[:n]):
        text = text.replace(mark, f"{{{i}}}", 1)
    return text


@functools.lru_cache(maxsize=65536)
def _canonical_params(params: Params) -> dict[str, object]:
    """``canonical(dict(params))``, once per distinct parameters (a grid has few, shared by
    many cells); callers copy it."""
    return canonical(dict(params))


@functools.lru_cache(maxsize=None)
def _problem_id(problem: str, problem_params: Params) -> str:
    return f"{problem}-{key_hash({'problem': problem, **dict(problem_params)})}"


@functools.lru_cache(maxsize=65536)
def _key_template(experiment: str, problem: str, problem_params: Params, learner: str, learner_params: Params, options: Params) -> str:
    """The canonical key text of the cells with these fields, as a :meth:`str.format`
    template: ``{0}``, ``{1}``, ``{2}`` where ε, δ and size go."""
    cell = Cell(experiment, problem, problem_params, learner, learner_params, 0.0, 0.0, 0, 1, options)
    return _format_template(key_string({**cell.key(), **dict(zip(_FIELDS[:3], _RAW_MARKS))}), 3)


@functools.lru_cache(maxsize=65536)
def _json_template(experiment: str, problem: str, problem_params: Params, learner: str, learner_params: Params, options: Params) -> str:
    """``json.dumps(cell.to_dict())`` of the cells with these fields, as a :meth:`str.format`
    template: ``{0}`` … ``{3}`` where ε, δ, size and repetitions go, ``{4}`` where first_rep
    and plugins go if set (before the closing brace)."""
    cell = Cell(experiment, problem, problem_params, learner, learner_params, 0.0, 0.0, 0, 1, options)
    text = _format_template(json.dumps({**cell.to_dict(), **dict(zip(_FIELDS, _RAW_MARKS))}), 4)
    return text[: -len("}}")] + "{4}}}"


def cells_to_json(cells: Iterable[Cell]) -> str:
    """``json.dumps([c.to_dict() for c in cells])`` (a shard's ``cells`` parameter), each
    cell's text filled into its template (:func:`_json_template`)."""
    return "[" + ", ".join(map(_cell_json, cells)) + "]"


def _cell_json(cell: Cell) -> str:
    """``json.dumps(cell.to_dict())``."""
    template = _json_template(cell.experiment, cell.problem, cell.problem_params, cell.learner, cell.learner_params, cell.options)
    tail = ""
    if cell.first_rep:
        tail += ', "first_rep": ' + _json_value(cell.first_rep, canon=False)
    if cell.plugins:
        tail += ', "plugins": ' + json.dumps(list(cell.plugins))
    return template.format(_json_value(cell.epsilon), _json_value(cell.delta, canon=False), _json_value(cell.size, canon=False),
                           _json_value(cell.repetitions, canon=False), tail)  # fmt: skip


def cells_from_json(text: str) -> list[Cell]:
    return [Cell.from_dict(d) for d in json.loads(text)]


def _order(cell: Cell) -> tuple:
    return (cell.problem_id, cell.size, cell.first_rep, cell.learner, cell.key_string())


def sort_cells(cells: Iterable[Cell]) -> list[Cell]:
    """Deterministic order that keeps cells sharing a sample (problem, size, repetitions)
    together."""
    return sorted(cells, key=_order)


def estimated_cost(cell: Cell) -> float:
    """Predicted seconds of a cell if it ran alone in its shard (:mod:`dpbench.cost`:
    the learner's own ``cost(cell)`` hook, else the calibrated per-learner model, else a
    per-family default)."""
    return cell_cost(cell).alone


#: cells with their predicted costs (:func:`dpbench.cost.cell_cost`), in order
Group = list[tuple[Cell, CellCost]]


def _seconds(group: Group, *, jobs: bool = False) -> float:
    """:func:`dpbench.cost.shard_seconds` of the group's cells (by default without the
    per-job keys)."""
    return cost_seconds([cost for _, cost in group], jobs=jobs)


def _pair_order(pair: tuple[Cell, CellCost]) -> tuple:
    return _order(pair[0])


def _runs(ordered: Group) -> list[Group]:
    """Maximal runs of consecutive cells that see the same samples (problem, size, reps)."""
    runs: list[Group] = []
    last = None
    for pair in ordered:
        cell = pair[0]
        sample = (cell.problem_id, cell.size, cell.first_rep)
        if runs and sample == last:
            runs[-1].append(pair)
        else:
            runs.append([pair])
            last = sample
    return runs


def _split_reps(group: Group, seconds: float, target_seconds: float, costs: dict[Cell, CellCost]) -> list[tuple[Group, float]]:
    """Cut a group of cells sharing samples (predicted ``seconds``, :func:`_seconds`) into
    ranges of repetitions, each predicted at most about ``target_seconds`` (at most one piece
    per repetition), with their predicted seconds; every piece keeps the group's cells
    together, so their shared work is still paid once per piece. The pieces' costs go into
    ``costs`` (scaled from the whole cells': a cell's cost is per repetition)."""
    reps = max(cell.repetitions for cell, _ in group)
    pieces = min(reps, math.ceil(seconds / target_seconds))
    if pieces <= 1:
        return [(group, seconds)]
    out = []
    for k in range(pieces):
        lo, hi = k * reps // pieces, (k + 1) * reps // pieces
        piece = []
        for cell, cost in group:
            if lo >= cell.repetitions:
                continue
            part = cell.piece(cell.first_rep + lo, min(hi, cell.repetitions) - lo)
            costs[part] = part_cost = cost.scaled(part.repetitions / cell.repetitions, part)
            piece.append((part, part_cost))
        out.append((piece, _seconds(piece)))
    return out


def _units(ordered: Group, target_seconds: float | None, costs: dict[Cell, CellCost]) -> list[tuple[Group, float]]:
    """Groups of cells that share work (same samples), with their predicted cost (without
    the per-job keys, :func:`dpbench.cost.job_costs`: paid once by whichever job they land in).

    A run of cells sharing a sample is kept whole (its shared work is paid once) unless it
    costs more than ``target_seconds``. Then, if its cells' own work alone exceeds the
    target, it is cut into consecutive pieces of about that much own work (each piece
    pays the shared work again; splitting a run whose cost is mostly shared work would only
    repeat that work in every job); and a piece (or run) still above the target is cut
    into ranges of repetitions (:func:`_split_reps`), so no job need be much longer than
    the target, whatever one cell costs.
    """
    units = []
    for run in _runs(ordered):
        seconds = _seconds(run)
        if target_seconds is None or seconds <= target_seconds:
            units.append((run, seconds))
            continue
        own = sum(cost.own for _, cost in run)
        if own <= target_seconds or len(run) == 1:
            chunks = [run]
        else:
            pieces = max(1, min(len(run), math.ceil(own / target_seconds)))
            chunks = [[] for _ in range(pieces)]
            acc = 0.0
            for pair in run:
                c = pair[1].own
                chunks[min(int((acc + c / 2) / own * pieces), pieces - 1)].append(pair)
                acc += c
        for chunk in chunks:
            if chunk:
                units += _split_reps(chunk, seconds if chunk is run else _seconds(chunk), target_seconds, costs)
    return units


def shard(
    cells: Sequence[Cell],
    n_shards: int | None = None,
    *,
    target_seconds: float | None = None,
    costs: dict[Cell, CellCost] | None = None,
) -> list[list[Cell]]:
    """Pack cells into shards of similar predicted cost.

    With ``target_seconds`` (from the config's ``shard_minutes``) the number of shards is
    ``ceil(predicted total / target_seconds)``, so each job does about that much work, and
    a cell costing more than that is split into ranges of its repetitions (rows identical
    to the whole cell's: seeds depend on the cell's key and the repetition only);
    otherwise it is ``n_shards`` (the config's ``shards``). Either way it is at most the
    number of units and never depends on the repetitions' layout: cells, their keys and
    hence their seeds are the same whatever the shards. Cells that share a sample stay in
    one job (their data-derived statistics are computed once, see :func:`_units`); units
    are packed longest-first into the least-loaded shard; each shard lists its cells in
    :func:`sort_cells` order, and the shards are ordered by their first cell.

    ``costs`` (cell → :func:`dpbench.cost.cell_cost`) may be given to reuse predictions;
    the costs of pieces are added to it.
    """
    return layout(cells, n_shards, target_seconds=target_seconds, costs=costs)[0]


def layout(
    cells: Sequence[Cell],
    n_shards: int | None = None,
    *,
    target_seconds: float | None = None,
    costs: dict[Cell, CellCost] | None = None,
) -> tuple[list[list[Cell]], list[float]]:
    """The shards of :func:`shard` and the predicted seconds of each
    (:func:`dpbench.cost.shard_seconds`), from the costs the packing used."""
    if costs is None:
        costs = {}
    pairs = []
    for cell in cells:
        cost = costs.get(cell)
        if cost is None:
            cost = costs[cell] = cell_cost(cell)
        pairs.append((cell, cost))
    ordered = sorted(pairs, key=_pair_order)  # = sort_cells(cells)
    if not ordered:
        return [], []
    if target_seconds is not None and not target_seconds > 0:
        raise ValueError(f"target_seconds must be > 0, got {target_seconds!r}")
    units = _units(ordered, target_seconds, costs)
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
    shards: list[Group] = [[] for _ in range(n_shards)]
    for index in sorted(range(len(units)), key=lambda u: (-units[u][1], u)):
        load, i = heapq.heappop(loads)
        shards[i].extend(units[index][0])
        heapq.heappush(loads, (load + units[index][1], i))
    out = sorted((sorted(s, key=_pair_order) for s in shards if s), key=lambda s: _pair_order(s[0]))
    return [[cell for cell, _ in s] for s in out], [_seconds(s, jobs=True) for s in out]
