"""Code fingerprints: which source files a cell's rows (and an experiment's summary) depend
on, and one hash of their contents.

Snakemake re-runs a job when its rule's code or parameters change, but it does not see the
package a rule script imports. So every ``run_shard`` job gets the fingerprint of its
cells' code as a parameter (a changed learner changes the parameter of exactly the shards
that run it), and every row records its cell's fingerprint (column ``code_hash``), so a
results file says which code made it. Likewise every ``summarise_*`` job gets the
fingerprint of the experiment's analysis and plotting code.

What a cell depends on (:func:`cell_modules`): the modules of its learner, its problem and
its experiment, and the shard loop (``dpbench.experiments.base``, ``dpbench.foundation.results``), each
with everything it imports, transitively — found by reading the ``import`` statements of
the source (every one, including imports inside functions), following only
modules of dpbench and of the packages the cell's learner, problem and experiment come from
(third-party libraries are the environment's business: ``numpy_version`` and the lock
file). The closure of a cell stops at the analysis side (:data:`SUMMARY_PACKAGES`: theory
check, figures), which cannot change a row; the summary's closure (:func:`summary_modules`)
follows everything, from the experiment module, its figure recipes and ``dpbench.reporting.pipeline``.

The fingerprint is the first 16 hex digits of SHA-256 over the sorted (module, SHA-256 of
the file's bytes) pairs: the same files give the same fingerprint wherever the checkout is.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import pkgutil
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from dpbench.foundation import registry

#: modules that only read results (theory checks, figures, their writers): a cell's
#: fingerprint does not follow imports into them
SUMMARY_PACKAGES = ("dpbench.theory_check.analysis", "dpbench.theory", "dpbench.plotting", "dpbench.reporting.pipeline", "dpbench.check")

#: the shard loop every cell runs through
SHARD_MODULES = ("dpbench.experiments.base", "dpbench.foundation.results", "dpbench.orchestration.grid", "dpbench.foundation.seeding")


def _top(module: str) -> str:
    return module.partition(".")[0]


@functools.cache
def module_file(module: str) -> str | None:
    """The source file of ``module`` (None if it is not a module with a ``.py`` source),
    found on disk from its top-level package's location, without importing anything."""
    top, _, rest = module.partition(".")
    mod = sys.modules.get(top)
    if mod is None:
        try:
            spec = importlib.util.find_spec(top)  # a top-level name: imports nothing
        except (ImportError, ValueError):
            return None
        if spec is None or spec.origin is None:
            return None
        origin = Path(spec.origin)
    elif getattr(mod, "__file__", None) is None:
        return None
    else:
        origin = Path(mod.__file__)
    if not rest:
        return str(origin) if origin.suffix == ".py" else None
    if origin.name != "__init__.py":
        return None  # a plain module has no submodules
    base = origin.parent.joinpath(*rest.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return str(path)
    return None


_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w., \t]+)", re.M)
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)", re.M)


@functools.cache
def _imports(module: str) -> tuple[tuple[str, ...], ...]:
    """The import statements of ``module``'s source (every one, including those inside
    functions; a line in a docstring that reads like one counts too, which only adds), each
    as the absolute names it may import, most specific first: ``from a import b`` gives
    ``(a.b, a)`` — the caller takes the first that is a module, so nothing outside the
    followed packages is ever looked up. A regular expression, not :mod:`ast`: ~20× faster,
    and this runs on every ``snakemake`` start."""
    path = module_file(module)
    if path is None:
        return ()
    text = Path(path).read_text(encoding="utf-8")
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    out = []
    for match in _IMPORT.finditer(text):
        out += [(part.split()[0],) for part in match.group(1).split(",") if part.strip()]
    for match in _FROM.finditer(text):
        base, names = match.group(1), match.group(2).strip("() \t\n")
        level = len(base) - len(base.lstrip("."))
        base = base[level:]
        if level:
            parent = package.split(".")
            base = ".".join(parent[: len(parent) - level + 1] + ([base] if base else []))
        for part in names.split(","):
            name = part.split()[0] if part.split() else ""
            out.append((f"{base}.{name}", base) if name and name != "*" else (base,))
    return tuple(dict.fromkeys(out))


def imported_modules(module: str, packages: Iterable[str]) -> list[str]:
    """The modules ``module``'s import statements name within the top-level ``packages``
    (for ``from a import b``: ``a.b`` if it is a module, else ``a``)."""
    packages = set(packages)
    found = (next((m for m in names if module_file(m) is not None), None) for names in _imports(module) if _top(names[0]) in packages)
    return list(dict.fromkeys(m for m in found if m is not None))


def closure(roots: Iterable[str], packages: Iterable[str], stop: Iterable[str] = ()) -> list[str]:
    """Modules reachable from ``roots`` through imports, within the top-level ``packages``,
    not entering modules under ``stop`` (unless they are roots); sorted. A module's parent
    packages are included too (importing it runs their ``__init__``)."""
    packages, stop = set(packages), tuple(stop)
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        module = todo.pop()
        if module in seen or _top(module) not in packages or module_file(module) is None:
            continue
        seen.add(module)
        parts = module.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]
        todo += [found for found in imported_modules(module, packages) if not found.startswith(stop) or found in roots]
    return sorted(seen)


@functools.cache
def file_digest(path: str) -> str:
    """SHA-256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def fingerprint(modules: Iterable[str]) -> str:
    """16 hex digits of SHA-256 over the sorted (module, file digest) pairs."""
    h = hashlib.sha256()
    for module in sorted(modules):
        h.update(f"{module}\0{file_digest(module_file(module))}\n".encode())
    return h.hexdigest()[:16]


@functools.cache
def experiment_module(experiment: str) -> str:
    """The module that registers the experiment (``dpbench.experiments.{id}`` for the
    catalogue's; any imported module whose globals hold it for a plugin's)."""
    exp = registry.experiment(experiment)
    for name in (f"dpbench.experiments.{experiment}", *list(sys.modules)):
        module = sys.modules.get(name)
        if module is not None and any(value is exp for value in vars(module).values()):
            return name
    raise LookupError(f"no module holds experiment {experiment!r}")


#: A package that loads its modules by listing them (``dpbench.audits.load_all``: the audit
#: registry): a cell of an experiment that imports it depends on every module of
#: :data:`DYNAMIC_MODULES`.
DYNAMIC_PACKAGE = "dpbench.audits"
DYNAMIC_MODULES = "dpbench.audits.cases"


@functools.cache
def cell_modules(experiment: str, learner: str, problem: str, plugins: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The modules a cell's rows depend on (see the module docstring). A plugin module
    counts where the cell's learner, problem or experiment comes from it (or imports it),
    not merely because the config loads it: editing a plugin learner re-runs its shards only.
    ``plugins`` is part of the cache key only."""
    roots = [experiment_module(experiment), registry.problem(problem).__module__, *SHARD_MODULES]
    if registry.is_learner(learner):  # (a privacy_audit cell may name an audited mechanism instead)
        roots.append(registry.learner(learner).__module__)
    modules = closure(roots, {"dpbench", *map(_top, roots)}, stop=SUMMARY_PACKAGES)
    if any(DYNAMIC_PACKAGE in names for names in _imports(roots[0])):  # the experiment runs the audits, which
        # the package imports by listing its modules: no import statement shows them
        locations = importlib.util.find_spec(DYNAMIC_MODULES).submodule_search_locations
        roots += [f"{DYNAMIC_MODULES}.{info.name}" for info in pkgutil.iter_modules(locations)]
        modules = closure(roots, {"dpbench", *map(_top, roots)}, stop=SUMMARY_PACKAGES)
    return tuple(modules)


@functools.cache
def _modules_hash(modules: frozenset[str]) -> str:
    return fingerprint(modules)


def cell_code_hash(cell) -> str:
    """Fingerprint of the code a :class:`dpbench.foundation.cell.Cell` runs."""
    return _modules_hash(frozenset(cell_modules(cell.experiment, cell.learner, cell.problem, tuple(cell.plugins))))


def shard_code_hash(cells: Iterable) -> str:
    """Fingerprint of a shard: of the union of its cells' modules."""
    modules = set()
    for cell in cells:
        modules.update(cell_modules(cell.experiment, cell.learner, cell.problem, tuple(cell.plugins)))
    return _modules_hash(frozenset(modules))


@functools.cache
def summary_modules(experiment: str) -> tuple[str, ...]:
    """The modules an experiment's summary (collection, theory check, figures) depends on:
    everything its experiment module, its figure recipes and dpbench.reporting.pipeline import."""
    exp = registry.experiment(experiment)
    roots = [experiment_module(experiment), "dpbench.reporting.pipeline", "dpbench.foundation.results", "dpbench.theory_check.analysis"]
    roots += [f.draw.partition(":")[0] if isinstance(f.draw, str) else f.draw.__module__ for f in exp.figures.values()]
    return tuple(closure(roots, {"dpbench", *map(_top, roots)}))


def summary_code_hash(experiment: str) -> str:
    return fingerprint(summary_modules(experiment))
