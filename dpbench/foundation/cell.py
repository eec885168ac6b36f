"""Grid cells: one point of the grid (docs/configuration.md, "Cells, shards and jobs").

A :class:`Cell` is (experiment, problem + parameters, learner + parameters, ε, δ, size) with
its number of repetitions; its :meth:`Cell.key` (everything but the repetitions) names its
random streams, so seeds never depend on shard layout. Cells travel to shard jobs as JSON
(:func:`cells_to_json`, :func:`cells_from_json`). The grid that expands a config into cells
and packs them into shards is :mod:`dpbench.orchestration.grid`.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from dpbench.foundation.registry import load_plugins
from dpbench.foundation.seeding import canonical, key_hash, key_string

Params = tuple[tuple[str, object], ...]


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
    #: (:func:`dpbench.foundation.registry.load_plugins`); not part of the key, the seeds or equality
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


