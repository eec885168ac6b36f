"""Config → validated grid of cells (docs/configuration.md).

``load(path)`` and ``from_dict(config)`` back both ``dpbench validate`` and the Snakefile,
so the CLI and the workflow cannot disagree. Checks run in two layers, both before any job
starts: the JSON schema ``dpbench/orchestration/schema.yaml`` (types, ranges, required keys), then the
registry-aware checks here (problem and learner names, their parameters, empty grids).
Every failure is a :class:`ConfigError` naming the dotted key, e.g.
``experiments.conjunctions.epsilon[2]: must be > 0 (inf allowed), got -1.0``.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import functools
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from dpbench.foundation import registry
from dpbench.foundation.cell import Cell, freeze, grid_cells
from dpbench.foundation.paths import nesting_error
from dpbench.foundation.seeding import key_hash
from dpbench.orchestration.cost import CellCost
from dpbench.orchestration.grid import gc_paused, layout

#: the config schema, shipped inside the package (package data: it works from a wheel too)
SCHEMA_PATH = Path(__file__).resolve().with_name("schema.yaml")


class ConfigError(ValueError):
    """An invalid config; ``key`` is the dotted path of the offending entry."""

    def __init__(self, key: str, message: str):
        self.key = key
        self.message = message
        super().__init__(f"{key}: {message}")


def error_line(source: str | Path, exc: ConfigError) -> str:
    """The one line a user sees for a bad config ``source`` (``dpbench`` and Snakemake alike):
    ``invalid config SOURCE: KEY: MESSAGE`` (the key is left out when it is the file itself)."""
    if exc.key == str(source):
        return f"invalid config {source}: {exc.message}"
    return f"invalid config {source}: {exc}"


def nearest(name: object, choices, what: str, of: str = "") -> str:
    """``unknown WHAT 'NAME' [OF]`` with the closest valid names (difflib), or all of them
    if they are few."""
    choices = sorted(str(c) for c in choices)
    close = difflib.get_close_matches(str(name), choices, n=3, cutoff=0.6)
    if close:
        hint = "did you mean " + " or ".join(repr(c) for c in close) + "?"
    elif len(choices) <= 8:
        hint = "allowed: " + ", ".join(choices)
    else:
        hint = "`dpbench list` shows all"
    return f"unknown {what} {name!r}{' ' + of if of else ''}; {hint}"


@dataclass(frozen=True)
class ExperimentPlan:
    """The cells of one experiment, and how they are split into jobs."""

    id: str
    cells: tuple[Cell, ...]
    n_shards: int
    config_hash: str
    #: ``shard_minutes`` × 60 if set (block, else top level): shards then hold about this
    #: many predicted seconds of work each (dpbench.orchestration.cost) and ``n_shards`` is ignored.
    target_seconds: float | None = None

    def shards(self) -> list[list[Cell]]:
        """The shards (``run_shard`` jobs): computed once per plan (cached)."""
        return self._layout[0]

    def shard_seconds(self) -> list[float]:
        """Predicted seconds of each shard's cells (:func:`dpbench.orchestration.cost.shard_seconds`)."""
        return self._layout[1]

    def cell_costs(self) -> dict[Cell, CellCost]:
        """Every cell's (and piece's) predicted cost, computed once per plan."""
        return self._layout[2]

    @functools.cached_property
    @gc_paused()
    def _layout(self) -> tuple[list[list[Cell]], list[float], dict[Cell, CellCost]]:
        costs: dict[Cell, CellCost] = {}
        shards, seconds = layout(self.cells, self.n_shards, target_seconds=self.target_seconds, costs=costs)
        return shards, seconds, costs


#: default of the config key ``cell_timeout_minutes``: generous (the longest cell of
#: config/paper.yaml is predicted well under it), a guard against a mis-set parameter
DEFAULT_CELL_TIMEOUT_MINUTES = 120.0


@dataclass(frozen=True)
class Grid:
    seed: int
    experiments: dict[str, ExperimentPlan]
    #: the config's ``output`` key (None: derived from the config file, dpbench.foundation.paths)
    output: str | None = None
    #: wall-clock seconds one cell may take before it is recorded as ``timeout``
    cell_timeout_seconds: float = 60.0 * DEFAULT_CELL_TIMEOUT_MINUTES
    #: the config's ``figures_pdf`` key: write each figure's PDF beside its PNG
    figures_pdf: bool = False

    def problem_cells(self) -> dict[str, Cell]:
        """One representative cell per distinct problem (problem_id → cell), e.g. to draw
        every target once when running cells in-process (tests, figures fixtures)."""
        out: dict[str, Cell] = {}
        for plan in self.experiments.values():
            for cell in plan.cells:
                out.setdefault(cell.problem_id, cell)
        return out


def read_yaml(path: str | Path) -> Any:
    """The parsed YAML file; a missing/unreadable file or a syntax error is a
    :class:`ConfigError` whose key is the path (line and column of a syntax error)."""
    try:
        with open(path) as fh:
            text = fh.read()
    except FileNotFoundError:
        raise ConfigError(str(path), "no such file") from None
    except IsADirectoryError:
        raise ConfigError(str(path), "is a directory, not a YAML file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), f"cannot be read ({exc})") from None
    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml's parser, if built with it
    except yaml.YAMLError:
        pass  # the error as the pure-Python parser words and places it
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(str(path), f"YAML syntax error{where}: {problem}") from None


def exit_on_yaml_error(path: str | Path) -> None:
    """Where ``path`` exists but is not valid YAML: print its one line (file, line and
    column, :func:`error_line`) and exit with status 2. The Snakefile calls it before its
    ``configfile:`` directive, whose own error names none of them."""
    import sys

    if not Path(path).is_file():
        return  # Snakemake says the file is missing
    try:
        read_yaml(path)
    except ConfigError as exc:
        print(error_line(path, exc), file=sys.stderr)
        sys.exit(2)


def load(path: str | Path) -> Grid:
    """Read, validate and expand a YAML config."""
    return from_dict(read_yaml(path))


@functools.cache
def _schema() -> dict:
    """The config schema, read once per process (every block's sweep check asks for it; read
    only, never modified)."""
    with open(SCHEMA_PATH) as fh:
        return yaml.safe_load(fh)


def _dotted(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<config>"


def check_schema(config: Any) -> None:
    """JSON-schema check; the first error (deepest path) becomes a ConfigError."""
    if not isinstance(config, Mapping):
        raise ConfigError("<config>", f"must be a mapping, got {type(config).__name__}")
    validator = jsonschema.Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(config), key=lambda e: (-len(e.absolute_path), str(e.absolute_path)))
    if errors:
        err = errors[0]
        if err.validator == "oneOf" and err.context:  # report the most specific sub-error
            best = max(err.context, key=lambda e: len(e.absolute_path))
            path = list(err.absolute_path) + list(best.relative_path)
            raise ConfigError(_dotted(path), f"{best.message} (got {best.instance!r})")
        if err.validator == "additionalProperties" and isinstance(err.instance, Mapping):
            allowed = err.schema.get("properties", {})
            extra = sorted(k for k in err.instance if k not in allowed)[0]
            raise ConfigError(_dotted([*err.absolute_path, extra]), nearest(extra, allowed, "key"))
        if err.validator == "enum":  # e.g. an experiment id (propertyNames)
            what = "experiment" if list(err.absolute_path) == ["experiments"] else "value"
            raise ConfigError(_dotted(err.absolute_path), nearest(err.instance, err.validator_value, what))
        raise ConfigError(_dotted(err.absolute_path), err.message)


def _as_list(value: object) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _merge(block: Mapping, sweep: Mapping) -> dict:
    merged = copy.deepcopy(dict(block))
    merged.pop("sweeps", None)
    if "problem" in sweep and sweep["problem"] != block.get("problem"):
        merged.pop("problem_params", None)  # another problem brings its own parameters
    for key, value in sweep.items():
        if key in ("problem_params", "options") and isinstance(value, Mapping):
            merged[key] = {**merged.get(key, {}), **value}
        elif key == "learner_params" and isinstance(value, Mapping):
            lp = dict(merged.get(key, {}))
            for name, params in value.items():
                lp[name] = {**lp.get(name, {}), **params}
            merged[key] = lp
        else:
            merged[key] = value
    return merged


def _product(params: Mapping[str, object]) -> list[dict[str, object]]:
    names = sorted(params)
    return [dict(zip(names, combo)) for combo in itertools.product(*(_as_list(params[k]) for k in names))]


def _expand_units(experiment, block: Mapping, where: str, problems: list, epsilons: list, deltas: list, sizes: list,
                  repetitions: int, options) -> list[Cell]:
    """Cells of an experiment whose units are not learners (``experiment.units``: e.g. the
    audits of ``privacy_audit``), listed under ``units.key``; each checked at every claim."""
    units = experiment.units
    frozen_problems = [freeze(pp) for pp in problems]
    no_params = freeze({})
    cells = []
    for i, name in enumerate(_as_list(block[units.key])):
        for eps, delta in itertools.product(epsilons, deltas):
            try:
                units.check(name, eps, delta)
            except (KeyError, ValueError) as exc:
                raise ConfigError(f"{where}.{units.key}[{i}]", str(exc.args[0] if exc.args else exc)) from None
            cells += grid_cells(experiment.id, block["problem"], frozen_problems, name, no_params, eps, delta, sizes, repetitions, options)
    return cells


def _expand_block(exp_id: str, block: Mapping, where: str) -> list[Cell]:
    experiment = registry.experiment(exp_id)
    unit_key = experiment.units.key if experiment.units is not None else "learners"
    for key in ("problem", unit_key, "epsilon", experiment.size):
        if key not in block:
            raise ConfigError(f"{where}.{key}", "is required")
    problem_name = block["problem"]
    if not registry.runs_on(experiment.problems, problem_name):
        raise ConfigError(f"{where}.problem", nearest(problem_name, experiment.problems, "problem", f"for experiment {exp_id!r}"))
    problem_cls = registry.problem(problem_name)
    raw_params = block.get("problem_params", {})
    for name in raw_params:
        if name not in problem_cls.param_names():
            raise ConfigError(
                f"{where}.problem_params.{name}", nearest(name, problem_cls.param_names(), "parameter", f"of problem {problem_name!r}")
            )
    problems = []
    for params in _product(raw_params):
        try:
            problems.append(problem_cls(**params).params())
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{where}.problem_params", str(exc)) from None

    epsilons = [float(e) for e in _as_list(block["epsilon"])]
    deltas = [float(d) for d in _as_list(block.get("delta", 0.0))]
    sizes = [int(s) for s in _as_list(block[experiment.size])]
    repetitions = int(block.get("repetitions", 10))
    options = freeze(block.get("options", {}))
    if experiment.units is not None:
        for key in ("learners", "learner_params"):
            if key in block:
                raise ConfigError(f"{where}.{key}", f"experiment {exp_id!r} lists {unit_key}, not learners")
        return _expand_units(experiment, block, where, problems, epsilons, deltas, sizes, repetitions, options)
    learner_params = block.get("learner_params", {})
    for name in learner_params:
        if name not in block["learners"]:
            raise ConfigError(f"{where}.learner_params.{name}", f"is not in {where}.learners")

    frozen_problems = [freeze(pp) for pp in problems]
    cells = []
    for i, name in enumerate(block["learners"]):
        if name in block["learners"][:i]:
            first = list(block["learners"]).index(name)
            raise ConfigError(f"{where}.learners[{i}]", f"learner {name!r} is listed twice (also {where}.learners[{first}])")
        if not registry.is_learner(name):
            raise ConfigError(f"{where}.learners[{i}]", nearest(name, registry.LEARNERS, "learner"))
        learner_cls = registry.learner(name)
        if not registry.runs_on(learner_cls.problems, problem_name):
            raise ConfigError(
                f"{where}.learners[{i}]", f"learner {name!r} does not run on problem {problem_name!r} (runs on {list(learner_cls.problems)})"
            )
        names = learner_cls.field_names()
        for param in learner_params.get(name, {}):
            if param not in names or param in ("epsilon", "delta"):
                valid = [n for n in names if n not in ("epsilon", "delta")]
                raise ConfigError(f"{where}.learner_params.{name}.{param}", nearest(param, valid, "parameter", f"of learner {name!r}"))
        eps_grid = epsilons if "epsilon" in names else [float("inf")]
        delta_grid = deltas if "delta" in names else [0.0]
        for params in _product(learner_params.get(name, {})):
            frozen = freeze(params)
            for eps, delta in itertools.product(eps_grid, delta_grid):
                try:
                    learner_cls.from_cell(epsilon=eps, delta=delta, params=params)
                except (TypeError, ValueError) as exc:
                    raise ConfigError(f"{where}.learner_params.{name}", str(exc)) from None
                cells += grid_cells(exp_id, problem_name, frozen_problems, name, frozen, eps, delta, sizes, repetitions, options)
    return cells


def _target_seconds(shard_minutes: object) -> float | None:
    return None if shard_minutes is None else 60.0 * float(shard_minutes)


def load_config_plugins(config: Mapping[str, Any]) -> tuple[str, ...]:
    """Import the config's ``plugins: [module, ...]`` (learners and problems defined outside
    dpbench, registered by the same decorators); a module that fails is a ConfigError
    naming ``plugins[i]``. Returns the module names, which every cell then carries."""
    modules = tuple(config.get("plugins", ()))
    for i, module in enumerate(modules):
        try:
            registry.load_plugins([module])
        except registry.PluginError as exc:
            raise ConfigError(f"plugins[{i}]", str(exc)) from None
    return modules


def _check_sweep_keys(block: Mapping, where: str) -> None:
    """A sweep may set any key of a block except the job sizing and nested sweeps (the
    schema only says that a sweep is a mapping, so a typo would otherwise be ignored)."""
    allowed = set(_schema()["$defs"]["block"]["properties"]) - {"sweeps", "shards", "shard_minutes"}
    for i, sweep in enumerate(block.get("sweeps", [])):
        for key in sweep:
            if key not in allowed:
                raise ConfigError(f"{where}.sweeps[{i}].{key}", nearest(key, allowed, "key", "in a sweep"))


@gc_paused()
def from_dict(config: Mapping[str, Any]) -> Grid:
    """Validate a config mapping and expand it into cells; raise :class:`ConfigError`."""
    check_schema(config)
    plugins = load_config_plugins(config)
    plans = {}
    for exp_id, block in config["experiments"].items():
        where = f"experiments.{exp_id}"
        try:
            registry.experiment(exp_id)
        except KeyError:
            raise ConfigError("experiments", nearest(exp_id, registry.EXPERIMENTS, "experiment")) from None
        _check_sweep_keys(block, where)
        blocks = (
            [(_merge(block, s), f"{where}.sweeps[{i}]") for i, s in enumerate(block["sweeps"])]
            if "sweeps" in block
            else [(block, where)]
        )
        cells: dict[str, Cell] = {}
        for sub, sub_where in blocks:
            for cell in _expand_block(exp_id, sub, sub_where):
                cells.setdefault(cell.key_string(), dataclasses.replace(cell, plugins=plugins) if plugins else cell)
        if not cells:
            raise ConfigError(where, "the grid is empty")
        plans[exp_id] = ExperimentPlan(
            id=exp_id,
            cells=tuple(cells.values()),
            n_shards=int(block.get("shards", 4)),
            target_seconds=_target_seconds(block.get("shard_minutes", config.get("shard_minutes"))),
            config_hash=key_hash({"seed": config["seed"], "block": block}),
        )
    if config.get("output"):

        nested = nesting_error(str(config["output"]))
        if nested:
            raise ConfigError("output", nested)
    return Grid(
        seed=int(config["seed"]),
        experiments=plans,
        output=config.get("output"),
        cell_timeout_seconds=60.0 * float(config.get("cell_timeout_minutes", DEFAULT_CELL_TIMEOUT_MINUTES)),
        figures_pdf=bool(config.get("figures_pdf", False)),
    )
