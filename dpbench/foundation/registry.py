"""One registry of problems, learners and experiments, filled by decorators.

A new learner is one module in ``dpbench/learners/`` with ``@register_learner``; it is
found by :func:`load_all` (which imports every module of the three packages), listed by
``dpbench list`` and accepted by the config validation. Lookups by name are lazy: since a
module is named after what it registers, :func:`learner` first imports just
``dpbench.learners.<name>`` and scans every module only if that does not register it — so a
shard job imports the code of its own cells, not the whole catalogue. Names are the catalogue's names
(``exp_mech_erm``, ``privdl``, ...): module, registry key, config, Parquet and legend agree.

Plugins: a learner or problem written outside dpbench registers itself with the same
decorators when its module is imported. Such modules are found (1) through the entry point
group :data:`PLUGIN_GROUP` (``dpbench.plugins``) of an installed package — every process
that misses a name or lists the registry loads them, shard jobs included — and (2) by name,
from a config's ``plugins: [module, ...]`` key (:func:`load_plugins`; cells carry the list
to the shard jobs, see :attr:`dpbench.foundation.cell.Cell.plugins`). :func:`origin` says where a
registered class came from; :func:`resolve_learner` also accepts ``module:Class``.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from collections.abc import Iterable
from importlib.metadata import entry_points
from typing import Any

PROBLEMS: dict[str, type] = {}
LEARNERS: dict[str, type] = {}
EXPERIMENTS: dict[str, Any] = {}

_PACKAGES = ("dpbench.problems", "dpbench.learners", "dpbench.experiments")
#: Entry point group through which installed packages declare their plugin modules.
PLUGIN_GROUP = "dpbench.plugins"
_loaded = False
_entry_points_loaded = False
#: Plugin modules imported so far (by entry point or by name), in import order.
PLUGIN_MODULES: list[str] = []


class PluginError(ImportError):
    """A plugin module (entry point or ``plugins:`` entry) could not be imported."""


def _add(table: dict, name: str, obj: Any, kind: str) -> None:
    if name in table and table[name] is not obj:
        raise ValueError(f"{kind} {name!r} registered twice")
    table[name] = obj


#: What a registration may declare of the class: the ClassVars of
#: :class:`dpbench.problems.base.Problem` and :class:`dpbench.learners.base.Learner`.
_DECLARABLE = {"problem": ("name", "family"), "learner": ("name", "family", "private", "problems", "twin")}


def _register(table: dict, kind: str, cls: type | None, declared: dict[str, Any]) -> Any:
    """``@register_<kind>`` on a class that sets its own ClassVars, or
    ``@register_<kind>(name=..., family=..., ...)``: set those ClassVars on the class, then
    register it (one shared header instead of a run of ``name: ClassVar[str] = ...`` lines)."""
    unknown = sorted(set(declared) - set(_DECLARABLE[kind]))
    if unknown or (cls is not None and declared):
        raise TypeError(f"register_{kind}: takes a class, or the keywords {', '.join(_DECLARABLE[kind])}; got {unknown}")

    def register(cls: type) -> type:
        for key, value in declared.items():
            setattr(cls, key, value)
        _add(table, cls.name, cls, kind)
        return cls

    return register if cls is None else register(cls)


def register_problem(cls: type | None = None, /, **declared: Any) -> Any:
    """Class decorator: register a problem under ``cls.name``; with keywords
    (``@register_problem(name="logistic", family="batch")``) it first sets those ClassVars."""
    return _register(PROBLEMS, "problem", cls, declared)


def register_learner(cls: type | None = None, /, **declared: Any) -> Any:
    """Class decorator: register a learner under ``cls.name``; with keywords it first sets those
    ClassVars: ``name``, ``family``, ``private``, ``problems`` and ``twin`` (the learner whose
    ε → ∞ limit this one is, which ``dpbench check`` compares), as in
    ``@register_learner(name="exp_mech_erm", family="batch", private=True, twin="erm", ...)``."""
    return _register(LEARNERS, "learner", cls, declared)


def register_experiment(experiment: Any) -> Any:
    """Register an :class:`dpbench.experiments.base.Experiment` under its ``id``."""
    _add(EXPERIMENTS, experiment.id, experiment, "experiment")
    return experiment


def load_all() -> None:
    """Import every problem, learner and experiment module of the catalogue and every
    plugin declared by an installed package's entry point (idempotent)."""
    global _loaded
    if not _loaded:
        for package_name in _PACKAGES:
            package = importlib.import_module(package_name)
            for info in pkgutil.iter_modules(package.__path__):
                if not info.name.startswith("_"):
                    importlib.import_module(f"{package_name}.{info.name}")
        _loaded = True
    load_entry_points()


def _import_plugin(module: str, source: str) -> None:
    if module in sys.modules and module in PLUGIN_MODULES:
        return
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        # a module file in the working directory (where snakemake and its jobs run) is
        # found even when the directory is not on sys.path
        if exc.name == module.split(".")[0] and os.getcwd() not in sys.path:
            sys.path.append(os.getcwd())
            return _import_plugin(module, source)
        raise PluginError(f"cannot import plugin module {module!r} ({source}): {exc}") from None
    except Exception as exc:  # the plugin's own import-time error, reported on one line
        raise PluginError(f"plugin module {module!r} ({source}) failed on import: {type(exc).__name__}: {exc}") from None
    if module not in PLUGIN_MODULES:
        PLUGIN_MODULES.append(module)


def load_entry_points() -> None:
    """Import the modules declared in entry point group ``dpbench.plugins`` (once).

    An entry point's value is a module (``my_pkg.learners``) or ``module:attribute``;
    importing the module registers its classes through the decorators."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for ep in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        _import_plugin(ep.module, f"entry point {ep.name!r} of {ep.dist.name if ep.dist else 'an installed package'}")


def load_plugins(modules: Iterable[str], *, source: str = "config key plugins") -> None:
    """Import plugin modules by name (a config's ``plugins:`` list; idempotent).

    Raises :class:`PluginError` naming the module when one cannot be imported."""
    for i, module in enumerate(modules):
        _import_plugin(module, f"{source}[{i}]")


def origin(cls: type) -> str:
    """``catalogue`` for dpbench's own classes, else the plugin module defining ``cls``."""
    module = cls.__module__
    return "catalogue" if module == "dpbench" or module.startswith("dpbench.") else module


def resolve_learner(target: str) -> type:
    """A learner class from a registry name or ``module:Class``.

    A ``module:Class`` whose class is not registered (e.g. defined without the decorator)
    is registered under its ``name``, so that the experiments' cell runners find it."""
    if ":" not in target:
        return learner(target)
    module, _, attribute = target.partition(":")
    _import_plugin(module, f"{target!r}")
    try:
        cls = getattr(sys.modules[module], attribute)
    except AttributeError:
        raise KeyError(f"module {module!r} has no attribute {attribute!r}") from None
    if not isinstance(cls, type) or not isinstance(getattr(cls, "name", None), str):
        raise KeyError(f"{target!r} is not a learner class (it needs a class attribute 'name')")
    if LEARNERS.get(cls.name) is not cls:
        register_learner(cls)
    return cls


def _find(table: dict, name: str, package: str) -> Any:
    """The class (or experiment) registered as ``name``, or None: a catalogue entry lives in
    the module of its own name (``dpbench.learners.dp_gd``; tests/test_registry.py checks
    every one), a plugin's in a module its entry point or the config names. So only the
    module of that name and the entry points are imported — not the whole catalogue, which a
    lookup of a name that is no learner (an audited mechanism: ``laplace``) used to import."""
    if name not in table and isinstance(name, str) and name.isidentifier():
        try:
            importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise
    if name not in table:
        load_entry_points()
    return table.get(name)


def _get(table: dict, name: str, kind: str, package: str) -> Any:
    found = _find(table, name, package)
    if found is None:
        load_all()  # the message lists every name
        raise KeyError(f"unknown {kind} {name!r}; known: {', '.join(sorted(table))}")
    return found


def problem(name: str) -> type:
    """The problem class registered as ``name``."""
    return _get(PROBLEMS, name, "problem", "dpbench.problems")


def learner(name: str) -> type:
    """The learner class registered as ``name``."""
    return _get(LEARNERS, name, "learner", "dpbench.learners")


def experiment(name: str) -> Any:
    """The experiment registered as ``name``."""
    return _get(EXPERIMENTS, name, "experiment", "dpbench.experiments")


def is_learner(name: str) -> bool:
    """Whether ``name`` is a registered learner (:func:`_find`: without importing the catalogue)."""
    return _find(LEARNERS, name, "dpbench.learners") is not None


def runs_on(problems: Iterable[str], name: str) -> bool:
    """Whether an experiment or learner declared for ``problems`` runs on problem ``name``:
    ``name`` is one of them, or its class is a subclass of one of theirs — a variant of a
    problem (a plugin's, with parameters of its own) draws targets of the same kind, so
    whatever runs on the problem runs on it."""
    problems = tuple(problems)
    if name in problems:
        return True
    try:
        cls = problem(name)
    except KeyError:
        return False
    return any(issubclass(cls, problem(p)) for p in problems)
