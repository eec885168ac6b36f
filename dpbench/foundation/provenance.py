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
check, figures), which cannot change a row — but not at ``dpbench.theory``: learners and
problems compute rows with it (privdl's λ, the logistic objective and its optimum, the
excess population risk, class sizes), so a theory module a cell imports is in its closure;
the summary's closure (:func:`summary_modules`)
follows everything, from the experiment module, its figure recipes and ``dpbench.reporting.pipeline``.

The fingerprint is the first 16 hex digits of SHA-256 over the sorted (module, SHA-256 of
the file's bytes) pairs: the same files give the same fingerprint wherever the checkout is
(:mod:`dpbench.foundation.sources` reads the files, the imports and the digests; the numba
cache directory of :mod:`dpbench.kernels.numba_cache` is keyed by the same fingerprint).
"""

from __future__ import annotations

import functools
import importlib.util
import pkgutil
import sys
from collections.abc import Iterable

from dpbench.foundation import registry
from dpbench.foundation.sources import closure, fingerprint, import_statements, top_level

#: modules that only read results (theory checks, figures, their writers): a cell's
#: fingerprint does not follow imports into them
SUMMARY_PACKAGES = ("dpbench.theory_check.analysis", "dpbench.plotting", "dpbench.reporting.pipeline", "dpbench.check")

#: the shard loop every cell runs through
SHARD_MODULES = ("dpbench.experiments.base", "dpbench.foundation.results", "dpbench.orchestration.grid", "dpbench.foundation.seeding")


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
    modules = closure(roots, {"dpbench", *map(top_level, roots)}, stop=SUMMARY_PACKAGES)
    if any(DYNAMIC_PACKAGE in names for names in import_statements(roots[0])):  # the experiment runs the audits, which
        # the package imports by listing its modules: no import statement shows them
        locations = importlib.util.find_spec(DYNAMIC_MODULES).submodule_search_locations
        roots += [f"{DYNAMIC_MODULES}.{info.name}" for info in pkgutil.iter_modules(locations)]
        modules = closure(roots, {"dpbench", *map(top_level, roots)}, stop=SUMMARY_PACKAGES)
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
    everything its experiment module, its theory check, its figure recipes and
    dpbench.reporting.pipeline import (a check or recipe registered by name, ``"module:function"``,
    is a :class:`dpbench.experiments.base.Lazy`, which names its module as a function does)."""
    exp = registry.experiment(experiment)
    roots = [experiment_module(experiment), "dpbench.reporting.pipeline", "dpbench.foundation.results", "dpbench.theory_check.analysis"]
    roots += [exp.theory_check.__module__, *(f.draw.__module__ for f in exp.figures.values())]
    return tuple(closure(roots, {"dpbench", *map(top_level, roots)}))


def summary_code_hash(experiment: str) -> str:
    return fingerprint(summary_modules(experiment))
