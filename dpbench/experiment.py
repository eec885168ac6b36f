"""Run cells: the code behind the ``run_shard`` rule.

An :class:`Experiment` (one module per experiment in ``dpbench/experiments/``) says which
problems it runs, whether its size axis is ``n`` or ``T``, how one cell turns into rows,
how its theory check is computed and which figures it draws. This module holds what all
experiments share: drawing targets, the shard loop, and the batch (PAC) cell runner with
its sample sharing across cells.
"""

from __future__ import annotations

import contextlib
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

from dpbench import registry
from dpbench.grid import Cell
from dpbench.problems.base import redraw_target
from dpbench.results import make_row, write_rows
from dpbench.seeding import make_rng

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Figure:
    """A figure recipe: ``draw(df) -> matplotlib Figure``; ``caption`` goes into the report.

    ``draw`` may be given as ``"module:function"`` so that importing an experiment (as every
    shard job does) does not import matplotlib; it is resolved on first use.
    """

    draw: Callable[..., Any] | str
    caption: str

    def __call__(self, df: Any) -> Any:
        draw = self.draw
        if isinstance(draw, str):
            module, _, function = draw.partition(":")
            draw = getattr(importlib.import_module(module), function)
        return draw(df)


@dataclass(frozen=True)
class Experiment:
    """An experiment of the design table (docs/experiments.md).

    ``run_cell(cell, target, root_seed) -> rows``; ``theory_check(df) -> DataFrame`` with the
    columns of :func:`dpbench.analysis.theory_rows`; ``figures`` maps a figure name to its
    recipe (files ``results/figures/{id}_{name}.pdf|png``); ``test_size`` is a small n or
    T used by the registry-wide conformance tests.
    """

    id: str
    problems: tuple[str, ...]
    size: str  # "n" or "T"
    run_cell: Callable[[Cell, Any, int], list[dict]]
    theory_check: Callable[[Any], Any]
    figures: Mapping[str, Figure] = field(default_factory=dict)
    test_size: int = 200  # a small n or T for the conformance tests
    #: columns of the theory-check CSV if not :data:`dpbench.analysis.THEORY_COLUMNS`
    theory_columns: tuple[str, ...] | None = None
    #: an experiment whose cells are not learners (``privacy_audit``): ``check(name, ε, δ)``
    #: raises ValueError for a name it cannot run, ``cost(cell)`` predicts seconds; the config
    #: block lists the names under ``units.key`` instead of ``learners``
    units: Any = None


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
    """One ``status = timeout`` row per repetition of a cell that ran past its limit (no
    metrics: the theory check and figures read only ``ok`` rows and say what is missing)."""
    reason = f"cell ran past its time limit of {seconds:g} s (config key cell_timeout_minutes)"
    if not registry.is_learner(cell.learner):  # a privacy_audit cell may name an audited mechanism
        return [make_row(experiment=cell.experiment, problem=cell.problem, problem_id=cell.problem_id, learner=cell.learner,
                         epsilon=cell.epsilon, delta=cell.delta, rep=rep, cell_key=cell.key_string(), root_seed=root_seed,
                         status="timeout", reason=reason) for rep in range(cell.repetitions)]  # fmt: skip
    learner = make_learner(cell)
    return [base_row(cell, rep, root_seed, learner) | {"status": "timeout", "reason": reason} for rep in range(cell.repetitions)]


def run_shard(
    cells: Iterable[Cell],
    *,
    root_seed: int,
    out: str | Path,
    config_hash: str = "",
    cell_timeout: float | None = None,
) -> None:
    """Run every cell of a shard and write its rows to ``out`` (atomically).

    Each distinct problem's target is drawn once per shard (:func:`draw_target`). A cell
    that raises fails the job: nothing is silently dropped, and no partial file is left. A
    cell still running after ``cell_timeout`` seconds is stopped and recorded as
    :func:`timeout_rows` (its partial rows dropped); the shard goes on. Every row records
    the fingerprint of the code its cell ran (``code_hash``, :mod:`dpbench.provenance`).
    """
    from dpbench.provenance import cell_code_hash

    rows: list[dict] = []
    targets: dict[str, Any] = {}
    for cell in cells:
        experiment = registry.experiment(cell.experiment)
        start, cpu = time.perf_counter(), time.process_time()  # includes drawing the target, once per shard
        try:
            with time_limit(cell_timeout):
                if cell.problem_id not in targets:
                    targets[cell.problem_id] = draw_target(cell, root_seed)
                cell_rows = experiment.run_cell(cell, targets[cell.problem_id], root_seed)
        except CellTimeout:
            cell_rows = timeout_rows(cell, root_seed, cell_timeout)
            log.warning("%s %s eps=%s size=%s: timed out after %gs", cell.experiment, cell.learner, cell.epsilon, cell.size, cell_timeout)
        code_hash = cell_code_hash(cell)
        for row in cell_rows:
            row["config_hash"] = config_hash
            row["code_hash"] = code_hash
        rows.extend(cell_rows)
        log.info(
            "%s %s eps=%s size=%s: %d rows in %.2fs (cpu %.2fs)",
            cell.experiment, cell.learner, cell.epsilon, cell.size, len(cell_rows),
            time.perf_counter() - start, time.process_time() - cpu,
        )  # fmt: skip
    write_rows(rows, out)


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
        **dict(cell.problem_params),
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


_samples = _SampleCache()


def shared_sample(cell: Cell, target: Any, rep: int, root_seed: int) -> Any:
    """The repetition's sample of size ``cell.size`` from the ``data`` stream, shared by
    every cell of the shard with the same problem, size and repetition."""
    return _samples.get(
        (cell.problem_id, root_seed, cell.size, rep),
        lambda: target.sample(cell.size, rng=data_rng(cell, rep, root_seed)),
    )


def run_batch_cell(cell: Cell, target: Any, root_seed: int, *, metrics: Callable[[Any, Any, Any], dict] | None = None) -> list[dict]:
    """Batch (PAC) cell: per repetition draw n examples, fit, score.

    Rows carry ``error`` (population error, exact where the problem has a closed form),
    ``train_error`` and ``fit_seconds`` (wall seconds of the fit, plus the first-computation
    seconds of statistics it found cached on the sample: :meth:`Sample.cached
    <dpbench.problems.base.Sample.cached>`), plus ``metrics(sample, hypothesis, learner)`` when
    an experiment measures more. A learner with a ``prepare(n)`` method (a one-off,
    data-independent step such as a noise calibration for this n) has it run before the
    repetitions, outside ``fit_seconds``. A learner that does not support the target yields
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
        start = time.perf_counter()
        hypothesis = learner.fit(sample, rng=mech_rng(cell, rep, root_seed))
        row["fit_seconds"] = time.perf_counter() - start + (getattr(sample, "reused_seconds", 0.0) - reused)
        row["error"] = target.population_error(hypothesis)
        row["train_error"] = float(np.mean(hypothesis.predict(sample.X) != sample.y))
        if metrics is not None:
            row.update(metrics(sample, hypothesis, learner))
        row.update(getattr(hypothesis, "diagnostics", {}))
        rows.append(row)
    return rows

