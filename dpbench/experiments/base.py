"""Run cells: the code behind the ``run_shard`` rule.

An :class:`Experiment` (one module per experiment in ``dpbench/experiments/``) says which
problems it runs, whether its size axis is ``n`` or ``T``, how one cell turns into rows,
how its theory check is computed and which figures it draws. This module holds what all
experiments share: drawing targets, the shard loop, and the batch (PAC) cell runner with
its sample sharing across cells.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import logging
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dpbench.foundation import registry
from dpbench.foundation.cell import Cell
from dpbench.foundation.provenance import cell_code_hash
from dpbench.foundation.results import make_row, problem_param_columns, write_rows
from dpbench.foundation.seeding import make_rng
from dpbench.foundation.validation import normalise
from dpbench.problems.base import redraw_target

log = logging.getLogger(__name__)


class Lazy:
    """A function named ``"module:function"``, imported on its first call: what an experiment
    registers for its theory check and figures, so that importing the experiment (as every
    shard job does) does not import pandas, matplotlib or the analysis code.

    Like a function, it says where it is defined (``__module__``, ``__name__``: provenance
    follows the module into the summary's fingerprint); ``function`` is the function itself.
    """

    def __init__(self, ref: str):
        module, _, name = ref.partition(":")
        if not module or not name.isidentifier():
            raise ValueError(f"expected 'module:function', got {ref!r}")
        self.__module__, self.__name__ = module, name

    @functools.cached_property
    def function(self) -> Callable[..., Any]:
        return getattr(importlib.import_module(self.__module__), self.__name__)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lazy) and (other.__module__, other.__name__) == (self.__module__, self.__name__)

    def __hash__(self) -> int:
        return hash((self.__module__, self.__name__))

    def __repr__(self) -> str:
        return f"Lazy({self.__module__}:{self.__name__})"


def lazy(function: Callable[..., Any] | str) -> Callable[..., Any]:
    """``function`` itself, or a :class:`Lazy` if it is given as ``"module:function"``."""
    return Lazy(function) if isinstance(function, str) else function


@dataclass(frozen=True)
class Figure:
    """A figure recipe: ``draw(df) -> matplotlib Figure``; ``caption`` goes into the report.

    ``draw`` may be given as ``"module:function"`` (a :class:`Lazy`, imported on first use) so
    that importing an experiment does not import matplotlib.
    """

    draw: Callable[..., Any] | str
    caption: str

    def __post_init__(self) -> None:
        normalise(self, draw=lazy(self.draw))

    def __call__(self, df: Any) -> Any:
        return self.draw(df)


@dataclass(frozen=True)
class Experiment:
    """An experiment of the design table (docs/experiments.md).

    ``run_cell(cell, target, root_seed) -> rows``; ``theory_check(df) -> DataFrame`` with the
    columns of :func:`dpbench.theory_check.analysis.theory_rows`, given as ``"module:function"``
    (a :class:`Lazy`: the check and its pandas are imported by the summarise job only, not by
    the shard jobs) or as the function; ``figures`` maps a figure name to its
    recipe (files ``results/figures/{id}_{name}.pdf|png``); ``test_size`` is a small n or
    T used by the registry-wide conformance tests.
    """

    id: str
    problems: tuple[str, ...]
    size: str  # "n" or "T"
    run_cell: Callable[[Cell, Any, int], list[dict]]
    theory_check: Callable[[Any], Any] | str
    figures: Mapping[str, Figure] = field(default_factory=dict)
    test_size: int = 200  # a small n or T for the conformance tests
    #: columns of the theory-check CSV if not :data:`dpbench.theory_check.analysis.THEORY_COLUMNS`
    theory_columns: tuple[str, ...] | None = None
    #: an experiment whose cells are not learners (``privacy_audit``): ``check(name, ε, δ)``
    #: raises ValueError for a name it cannot run, ``cost(cell)`` predicts seconds; the config
    #: block lists the names under ``units.key`` instead of ``learners``
    units: Any = None
    #: ``run_repetition(cell, target, root_seed, rep, *, sharers) -> rows`` of one repetition
    #: (optional): :func:`run_shard` then runs each run of consecutive cells of this
    #: experiment with the same problem and size repetition-outer, cell-inner, telling each
    #: call how many cells read that repetition's data (``sharers``), so data they all read
    #: (a stream: :func:`shared_stream`) is made once per repetition. Must give the rows
    #: ``run_cell`` gives for that repetition.
    run_repetition: Callable[..., list[dict]] | None = None

    def __post_init__(self) -> None:
        normalise(self, theory_check=lazy(self.theory_check))


# --------------------------------------------------------------------------- targets


def draw_target(cell: Cell, root_seed: int) -> Any:
    """Draw the cell's distribution from its ``target`` stream.

    The stream is keyed by the problem and its parameters only, so every shard (and
    ``dpbench run``) that needs this problem draws the same target: every learner faces
    the same distribution without a file passed between jobs.
    """
    return redraw_target(cell.problem, dict(cell.problem_params), root_seed)


# --------------------------------------------------------------------------- shards


class CellTimeout(BaseException):
    """A cell ran past its time limit (raised inside it by :func:`time_limit`; a
    BaseException, so a learner's ``except Exception`` cannot swallow it)."""


@contextlib.contextmanager
def time_limit(seconds: float | None):
    """Raise :class:`CellTimeout` inside the ``with`` block once ``seconds`` of wall-clock
    time have passed (``SIGALRM``; None or not the main thread: no limit). Python code is
    interrupted at once; a single long call into compiled code (numba, BLAS) is interrupted
    when it returns."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise CellTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timeout_rows(cell: Cell, root_seed: int, seconds: float) -> list[dict]:
    """One ``status = timeout`` row per repetition of a cell (or piece: ``cell.reps``) that ran past its limit (no
    metrics: the theory check and figures read only ``ok`` rows and say what is missing)."""
    reason = f"cell ran past its time limit of {seconds:g} s (config key cell_timeout_minutes)"
    if not registry.is_learner(cell.learner):  # a privacy_audit cell may name an audited mechanism
        return [make_row(experiment=cell.experiment, problem=cell.problem, problem_id=cell.problem_id, learner=cell.learner,
                         epsilon=cell.epsilon, delta=cell.delta, rep=rep, cell_key=cell.key_string(), root_seed=root_seed,
                         status="timeout", reason=reason) for rep in cell.reps]  # fmt: skip
    learner = make_learner(cell)
    return [base_row(cell, rep, root_seed, learner) | {"status": "timeout", "reason": reason} for rep in cell.reps]


def run_shard(
    cells: Iterable[Cell],
    *,
    root_seed: int,
    out: str | Path,
    config_hash: str = "",
    cell_timeout: float | None = None,
) -> None:
    """Run every cell of a shard and write its rows to ``out`` (atomically), cell by cell in
    the shard's order.

    Each distinct problem's target is drawn once per shard (:func:`draw_target`). A cell
    that raises fails the job: nothing is silently dropped, and no partial file is left. A
    cell still running after ``cell_timeout`` seconds is stopped and recorded as
    :func:`timeout_rows` (its partial rows dropped); the shard goes on. Every row records
    the fingerprint of the code its cell ran (``code_hash``, :mod:`dpbench.foundation.provenance`).

    Batch cells of a learner with ``fit_epsilons`` that differ only in ε
    (:func:`lockstep_siblings`) are fitted together, repetition by repetition, when the
    first of them reaches the repetition (:func:`run_batch_cell`).

    Cells of an experiment with ``run_repetition`` run in groups (:func:`_sharing_groups`:
    consecutive cells with the same problem and size) repetition-outer, so each
    repetition's data is made once for the group (:func:`_run_group`); there a cell's time
    and its ``cell_timeout`` count the wall time of all its repetitions, including the data
    it made for the group (the first cell to read a repetition's stream generates it).
    """
    rows: list[dict] = []
    targets: dict[str, Any] = {}
    cells = list(cells)
    _siblings.update(lockstep_siblings(cells))
    try:
        for group in _sharing_groups(cells):
            experiment = registry.experiment(group[0].experiment)
            if experiment.run_repetition is None:
                (cell,) = group
                start, cpu = time.perf_counter(), time.process_time()  # includes drawing the target, once per shard
                try:
                    with time_limit(cell_timeout):
                        cell_rows = experiment.run_cell(cell, _target(cell, root_seed, targets), root_seed)
                except CellTimeout:
                    cell_rows = _timed_out(cell, root_seed, cell_timeout)
                rows += _finish(cell, cell_rows, time.perf_counter() - start, time.process_time() - cpu, config_hash)
            else:
                rows += _run_group(group, experiment, root_seed, targets, cell_timeout, config_hash)
    finally:
        _stream.clear()  # the shard's last stored stream is read by no later cell
        for cache in _shard_caches:  # nor its samples and loss sequences: a shard pays for its own data
            cache.clear()
        _siblings.clear()  # nor its lockstep fits by a later shard
        _lockstep_fits.clear()
        _lockstep_done.clear()
    write_rows(rows, out)


def _sharing_groups(cells: list[Cell]) -> list[list[Cell]]:
    """Runs of consecutive cells of an experiment with ``run_repetition`` and the same
    problem and size (they read the same data, repetition by repetition); every other cell
    alone."""
    groups: list[list[Cell]] = []
    for cell in cells:
        last = groups[-1][-1] if groups else None
        if (last is not None and registry.experiment(cell.experiment).run_repetition is not None
                and (last.experiment, last.problem_id, last.size) == (cell.experiment, cell.problem_id, cell.size)):
            groups[-1].append(cell)
        else:
            groups.append([cell])
    return groups


def _run_group(group: list[Cell], experiment: Experiment, root_seed: int, targets: dict, cell_timeout: float | None, config_hash: str) -> list[dict]:
    """Rows of a group of cells reading the same data, run repetition-outer, cell-inner (each
    cell's repetitions in order, so its rows are those of ``run_cell``). A cell's limit
    ``cell_timeout`` applies to the sum of its repetitions' wall times; once past it the
    cell runs no further repetitions and its rows are :func:`timeout_rows`."""
    wall = dict.fromkeys(group, 0.0)
    cpu = dict.fromkeys(group, 0.0)
    out: dict[Cell, list[dict]] = {cell: [] for cell in group}
    timed_out: set[Cell] = set()
    for rep in sorted(set().union(*(cell.reps for cell in group))):
        readers = [cell for cell in group if rep in cell.reps and cell not in timed_out]
        for cell in readers:
            start, start_cpu = time.perf_counter(), time.process_time()  # the group's first includes drawing the target
            try:
                with time_limit(None if cell_timeout is None else max(cell_timeout - wall[cell], 1e-3)):
                    target = _target(cell, root_seed, targets)
                    out[cell] += experiment.run_repetition(cell, target, root_seed, rep, sharers=len(readers))
            except CellTimeout:
                timed_out.add(cell)
            wall[cell] += time.perf_counter() - start
            cpu[cell] += time.process_time() - start_cpu
    rows = []
    for cell in group:
        cell_rows = _timed_out(cell, root_seed, cell_timeout) if cell in timed_out else out[cell]
        rows += _finish(cell, cell_rows, wall[cell], cpu[cell], config_hash)
    return rows


def _target(cell: Cell, root_seed: int, targets: dict[str, Any]) -> Any:
    """The cell's target, drawn once per shard (``targets``: problem_id → target)."""
    if cell.problem_id not in targets:
        targets[cell.problem_id] = draw_target(cell, root_seed)
    return targets[cell.problem_id]


def _timed_out(cell: Cell, root_seed: int, seconds: float) -> list[dict]:
    log.warning("%s %s eps=%s size=%s: timed out after %gs", cell.experiment, cell.learner, cell.epsilon, cell.size, seconds)
    return timeout_rows(cell, root_seed, seconds)


def _finish(cell: Cell, cell_rows: list[dict], wall: float, cpu: float, config_hash: str) -> list[dict]:
    """The cell's rows with their provenance columns, and its log line."""

    code_hash = cell_code_hash(cell)
    for row in cell_rows:
        row["config_hash"] = config_hash
        row["code_hash"] = code_hash
    log.info("%s %s eps=%s size=%s: %d rows in %.2fs (cpu %.2fs)", cell.experiment, cell.learner, cell.epsilon, cell.size, len(cell_rows), wall, cpu)
    return cell_rows


def base_row(cell: Cell, rep: int, root_seed: int, learner: Any) -> dict[str, object]:
    """Identity, problem-parameter, privacy and provenance columns of a cell's row."""
    experiment = registry.experiment(cell.experiment)
    guarantee = learner.guarantee()
    return make_row(
        experiment=cell.experiment,
        problem=cell.problem,
        problem_id=cell.problem_id,
        learner=cell.learner,
        private=bool(type(learner).private),
        epsilon=cell.epsilon,
        delta=cell.delta,
        rep=rep,
        **{experiment.size: cell.size},
        **problem_param_columns(dict(cell.problem_params)),
        eps_reported=guarantee.epsilon,
        delta_reported=guarantee.delta,
        neighbours=guarantee.neighbours,
        cell_key=cell.key_string(),
        root_seed=root_seed,
        status="ok",
    )


def make_learner(cell: Cell) -> Any:
    return registry.learner(cell.learner).from_cell(
        epsilon=cell.epsilon, delta=cell.delta, params=dict(cell.learner_params)
    )


def data_rng(cell: Cell, rep: int, root_seed: int) -> np.random.Generator:
    """The ``data`` stream: keyed by problem and repetition only (common random numbers)."""
    return make_rng(root_seed, "data", {**cell.problem_key(), "rep": rep})


def mech_rng(cell: Cell, rep: int, root_seed: int) -> np.random.Generator:
    """The ``mech`` stream: the learner's own randomness for this cell and repetition."""
    return make_rng(root_seed, "mech", {**cell.key(), "rep": rep})


#: The most bytes (X and y) of a stream :func:`shared_stream` keeps for the cells of a
#: shard that read it; a larger stream (cube inputs at large d) each cell regenerates. One
#: stream is kept at a time: a T = 10^7 decision-list stream (N = 42 int8 features) is 430 MB.
SHARED_STREAM_BYTES = 512 * 2**20

_stream: dict[tuple, Any] = {}  # at most one entry: key → stored stream, or None if too large


def shared_stream(cell: Cell, target: Any, rep: int, root_seed: int, *, checkpoints: Any, sharers: int) -> Any:
    """The repetition's length-``cell.size`` stream from the ``data`` stream, with the cell's
    ``checkpoints``. When ``sharers`` ≥ 2 cells read it (consecutive, as :func:`_run_group`
    runs them) its blocks are generated once and kept (:meth:`OnlineStream.stored`, up to
    :data:`SHARED_STREAM_BYTES`; the previous stream is dropped first); otherwise, or if
    larger, it is the lazily generated stream (the same examples)."""
    key = (cell.problem_id, root_seed, cell.size, rep)
    stream = target.stream(cell.size, rng=data_rng(cell, rep, root_seed), checkpoints=checkpoints)
    if key not in _stream:
        _stream.clear()
        if sharers < 2:
            return stream
        _stream[key] = stream.stored(SHARED_STREAM_BYTES)
    stored = _stream[key]
    return stream if stored is None else dataclasses.replace(stored, checkpoints=stream.checkpoints)


class _SampleCache:
    """Samples shared by consecutive cells of a shard (same problem, size, repetition), so
    statistics cached on a sample (e.g. every hypothesis's mistakes) are computed once."""

    def __init__(self, capacity: int = 256):
        self.capacity = capacity
        self._items: OrderedDict = OrderedDict()

    def get(self, key: tuple, make: Callable[[], Any]) -> Any:
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = self._items[key] = make()
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        self._items.clear()


#: caches of data a shard's cells share (objects with ``clear()``), emptied when
#: :func:`run_shard` ends: a shard run in a process that ran another shard draws its own data,
#: as a shard job does (``dpbench calibrate`` runs several probe shards in one interpreter)
_shard_caches: list[Any] = []


def shard_cache(cache: Any) -> Any:
    """Register ``cache`` (with a ``clear()`` method) as one of :data:`_shard_caches`; return it."""
    _shard_caches.append(cache)
    return cache


_samples = shard_cache(_SampleCache())


def shared_sample(cell: Cell, target: Any, rep: int, root_seed: int) -> Any:
    """The repetition's sample of size ``cell.size`` from the ``data`` stream, shared by
    every cell of the shard with the same problem, size and repetition."""
    return _samples.get(
        (cell.problem_id, root_seed, cell.size, rep),
        lambda: target.sample(cell.size, rng=data_rng(cell, rep, root_seed)),
    )


#: the running shard's batch cells fitted together: cell → its siblings (itself included)
_siblings: dict[Cell, tuple[Cell, ...]] = {}
#: fits made in lockstep for sibling cells not yet run: (cell, rep) → (hypothesis, seconds)
_lockstep_fits: dict[tuple[Cell, int], tuple[Any, float]] = {}
#: (cell, rep) already fitted, alone or in lockstep
_lockstep_done: set[tuple[Cell, int]] = set()


def lockstep_siblings(cells: Iterable[Cell]) -> dict[Cell, tuple[Cell, ...]]:
    """Cells of a shard whose learner fits several ε on one sample in lockstep (a
    ``fit_epsilons`` method, e.g. :meth:`dpbench.learners.dp_gd.DPGD.fit_epsilons`) and that
    differ only in ε (same experiment, problem, size, repetitions, options, learner
    parameters and δ): each such cell → the tuple of all of them, in the shard's order.
    Cells with no sibling are left out."""
    groups: dict[tuple, list[Cell]] = {}
    for cell in cells:
        if not registry.is_learner(cell.learner) or not hasattr(registry.learner(cell.learner), "fit_epsilons"):
            continue
        key = (cell.experiment, cell.problem_id, cell.size, cell.reps, cell.options)
        key += (cell.learner, cell.learner_params, cell.delta)
        groups.setdefault(key, []).append(cell)
    return {cell: tuple(group) for group in groups.values() if len(group) > 1 for cell in group}


def _fit_with_siblings(cell: Cell, learner: Any, sample: Any, rep: int, root_seed: int) -> tuple[Any, float]:
    """``(hypothesis, seconds)`` of the cell's fit at ``rep``: made in lockstep with every
    sibling (:data:`_siblings`) not yet fitted at ``rep``, each with its own ``mech`` stream
    (the same bits as fitting alone); ``seconds`` is the lockstep fit's wall time divided by
    the number of cells it fitted. The siblings' fits wait in :data:`_lockstep_fits`."""
    if (cell, rep) in _lockstep_fits:
        return _lockstep_fits.pop((cell, rep))
    pending = [c for c in _siblings[cell] if c == cell or (c, rep) not in _lockstep_done]
    start = time.perf_counter()
    rngs = [mech_rng(c, rep, root_seed) for c in pending]
    fits = learner.fit_epsilons(sample, [c.epsilon for c in pending], rngs=rngs)
    seconds = (time.perf_counter() - start) / len(pending)
    for c, hypothesis in zip(pending, fits):
        _lockstep_done.add((c, rep))
        if c != cell:
            _lockstep_fits[(c, rep)] = (hypothesis, seconds)
    return fits[pending.index(cell)], seconds


def run_batch_cell(cell: Cell, target: Any, root_seed: int, *, metrics: Callable[[Any, Any, Any], dict] | None = None) -> list[dict]:
    """Batch (PAC) cell: per repetition draw n examples, fit, score.

    Rows carry ``error`` (population error, exact where the problem has a closed form),
    ``train_error`` and ``fit_seconds`` (wall seconds of the fit, plus the first-computation
    seconds of statistics it found cached on the sample: :meth:`Sample.cached
    <dpbench.problems.base.Sample.cached>`), plus ``metrics(sample, hypothesis, learner)`` when
    an experiment measures more. A learner with a ``prepare(n)`` method (a one-off,
    data-independent step such as a noise calibration for this n) has it run before the
    repetitions, outside ``fit_seconds``. In a shard, cells fitted in lockstep with their
    siblings (:func:`lockstep_siblings`) get the same rows; their ``fit_seconds`` is their
    share of the lockstep fit (the first sibling to reach a repetition runs it).
    A learner that does not support the target yields
    ``status='skipped'`` rows with the reason, never a crash.
    """
    learner = make_learner(cell)
    reason = learner.supports(target)
    prepare = getattr(learner, "prepare", None)
    if reason is None and prepare is not None:
        prepare(cell.size)
    rows = []
    for rep in cell.reps:
        row = base_row(cell, rep, root_seed, learner)
        row.update(target.columns())
        if reason is not None:
            row.update(status="skipped", reason=reason)
            rows.append(row)
            continue
        sample = shared_sample(cell, target, rep, root_seed)
        reused = getattr(sample, "reused_seconds", 0.0)
        if cell in _siblings:
            hypothesis, seconds = _fit_with_siblings(cell, learner, sample, rep, root_seed)
        else:
            start = time.perf_counter()
            hypothesis = learner.fit(sample, rng=mech_rng(cell, rep, root_seed))
            seconds = time.perf_counter() - start
        row["fit_seconds"] = seconds + (getattr(sample, "reused_seconds", 0.0) - reused)
        row["error"] = target.population_error(hypothesis)
        row["train_error"] = float(np.mean(hypothesis.predict(sample.X) != sample.y))
        if metrics is not None:
            row.update(metrics(sample, hypothesis, learner))
        row.update(getattr(hypothesis, "diagnostics", {}))
        rows.append(row)
    return rows

