"""One registry of problems, learners and experiments, filled by decorators.

A new learner is one module in ``dpbench/learners/`` with ``@register_learner``; it is
found by :func:`load_all` (which imports every module of the three packages), listed by
``dpbench list`` and accepted by the config validation. Lookups by name are lazy: since a
module is named after what it registers, :func:`learner` first imports just
``dpbench.learners.<name>`` and scans every module only if that does not register it — so a
shard job imports the code of its own cells, not the whole catalogue. Names are the catalogue's names
(``exp_mech_erm``, ``privdl``, ...): module, registry key, config, Parquet and legend agree.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

PROBLEMS: dict[str, type] = {}
LEARNERS: dict[str, type] = {}
EXPERIMENTS: dict[str, Any] = {}

_PACKAGES = ("dpbench.problems", "dpbench.learners", "dpbench.experiments")
_loaded = False


def _add(table: dict, name: str, obj: Any, kind: str) -> None:
    if name in table and table[name] is not obj:
        raise ValueError(f"{kind} {name!r} registered twice")
    table[name] = obj


def register_problem(cls: type) -> type:
    """Class decorator: register a problem under ``cls.name``."""
    _add(PROBLEMS, cls.name, cls, "problem")
    return cls


def register_learner(cls: type) -> type:
    """Class decorator: register a learner under ``cls.name``."""
    _add(LEARNERS, cls.name, cls, "learner")
    return cls


def register_experiment(experiment: Any) -> Any:
    """Register an :class:`dpbench.experiment.Experiment` under its ``id``."""
    _add(EXPERIMENTS, experiment.id, experiment, "experiment")
    return experiment


def load_all() -> None:
    """Import every problem, learner and experiment module (idempotent)."""
    global _loaded
    if _loaded:
        return
    for package_name in _PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_"):
                importlib.import_module(f"{package_name}.{info.name}")
    _loaded = True


def _get(table: dict, name: str, kind: str, package: str) -> Any:
    if name not in table and isinstance(name, str) and name.isidentifier():
        try:
            importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise
    if name not in table:
        load_all()
    try:
        return table[name]
    except KeyError:
        raise KeyError(f"unknown {kind} {name!r}; known: {', '.join(sorted(table))}") from None


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
    try:
        learner(name)
    except KeyError:
        return False
    return True
