"""Predicted cost of cells and shards: the model behind shard sizing and ``dpbench plan``.

A cell's cost has two parts, both in seconds of one CPU:

- its **own** work (fitting the learner, scoring, building rows), paid by every cell;
- **shared** work, a deterministic statistic of a sample that the cells of one shard which
  see the same sample compute once (``dpbench.experiments.base`` caches samples across
  consecutive cells, and :class:`dpbench.problems.base.Sample` caches e.g. the mistakes of
  every hypothesis). It is keyed by ``(what, problem_id, size)`` and charged once per shard
  that contains such a cell — :func:`shard_seconds` does this, and
  :func:`dpbench.orchestration.grid.shard` keeps cells that share a key together where it can.

and **per-job** work: what a shard job imports and compiles the first time one of its cells
needs it (numba, scipy, dp-accounting, scikit-learn; a learner's module and the numba
kernels it loads from the on-disk cache). It is keyed ``("job", "import", library)`` and
``("job", "first_use", learner)`` (:func:`job_costs`, measured by
``python benchmarks/bench_first_use.py``: :data:`LIBRARY_SECONDS`, :data:`FIRST_USE`) and
charged once per shard like the shared keys, whatever the cell's repetitions. Before it, a
job pays :data:`JOB_OVERHEAD_SECONDS` for the runner itself.

Where the prediction comes from, in order:

1. the learner's entry of :data:`dpbench.orchestration.cost_table.COST_TABLE` — data keyed
   by learner name: the formula its own seconds per repetition feed (one of
   :data:`FORMULAS`, e.g. :func:`linear`, :func:`hedge`, :func:`cover`), its coefficients,
   the formulas of its shared work (:func:`class_enumeration`, :func:`logistic_optimum`,
   per-job keys such as :func:`dp_sgd_calibration`) and of its memory, and the date,
   machine and benchmark of the measurement. A plugin learner registers its own entry
   (:func:`dpbench.orchestration.cost_table.register_cost_model`); learners carry no cost code;
2. :data:`FAMILY_DEFAULTS`, per learner family, for learners the table does not know:
   linear in the size (n or T) × the problem's dimension, with a per-family constant.
   These are deliberately generous guesses, not measurements.

Calibration (2026-11-22, 2-core shared build machine, numpy 2.4, numba 0.68): the quick
config's ``conjunctions`` block (d = 10 with negations, |C| = 3^10, n = 16 … 32768, 10
repetitions) run through the workflow; per-cell wall times read from the ``run_shard``
logs (``… N rows in Xs``) and per-repetition ``fit_seconds`` from the Parquet. The
bit-packed class enumeration of ``erm``/``exp_mech_erm`` cost ≈ 1.1e-8 s (3e-9 s since, below) per
(hypothesis × 64-example word) (0.33 s per repetition at n = 32768), the sample draw
≈ 3e-8 s per (example × variable), and every cell ≈ 1e-4 s per repetition of bookkeeping.
``python benchmarks/bench_plan.py`` re-measures and prints predicted against measured
seconds per learner.

Recalibrated 2026-11-23 against a whole default run (``python benchmarks/bench_workflow.py
--workdir DIR``, per-cell seconds from its run_shard logs, compiled bytecode, idle cores):
the predictions of the default config's learners were off by up to 9× either way (class
enumeration 1.1e-8 → 3e-9 s per word, the covering learners ≈ 7× lower, online learners and
DP-Winnow ≈ 2.2× lower, audits 2× lower; dp_gd ≈ 3× higher, now a model of its own). The
shard sizes and the longest-first order of the run_shard jobs come from these numbers:
a shard predicted 19 s that took 31 s ran last and left one core idle.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import platform
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from dpbench.experiments.experts import CACHE_ENTRIES
from dpbench.foundation import registry  # imports no dpbench module itself (learners are imported by name, later)
from dpbench.foundation.cell import Cell
from dpbench.foundation.machine import machine
from dpbench.foundation.sources import file_digest, module_file
from dpbench.orchestration import cost_table
from dpbench.orchestration.cost_table import COST_TABLE

#: CPU seconds a shard job spends before its first cell and after its last, whatever its
#: cells: the interpreter, imports of numpy, pandas, pyarrow and the runner, the first
#: target, the Parquet write (1.1 s: a shard of one small ``elimination`` cell, fresh
#: interpreter, 2026-11-24), and Snakemake's script preamble (0.3 s). What a job imports
#: for its cells' learners (numba, scipy, …) is in :func:`job_costs`. Added per job by the
#: plan, not part of the cells' cost. (It was 4 s of wall time, libraries included, before.)
JOB_OVERHEAD_SECONDS = 1.5

#: Memory of a shard job before any sample is held (interpreter + libraries), in MB.
BASE_MEMORY_MB = 600.0

#: Working memory of a streaming (online / experts) cell beyond the libraries, in MB (it
#: covers the one stream a halfspaces_online shard keeps for its cells,
#: ``dpbench.experiments.base.SHARED_STREAM_BYTES`` = 537 MB at most: a paper shard of T = 10^7
#: decision-list cells peaked at 814 MB resident, 2026-11-26).
STREAM_MEMORY_MB = 1000.0

#: Bookkeeping per repetition (``base_row``, population error, Python overhead).
PER_REP_SECONDS = 1e-4

#: Drawing one sample: seconds per (example × variable); shared by the cells that see it.
SAMPLE_SECONDS = 3e-8

#: Enumerating the mistakes of a whole finite class: seconds per (hypothesis × 64-bit word).
CLASS_WORD_SECONDS = 3e-9

#: Libraries a shard job imports on first use: name → the modules that import it
#: (``"module:function"``: import, then call the function; measured in this order by
#: ``benchmarks/bench_first_use.py``, each after the ones above, so the costs of a learner's
#: libraries add up; ``"module:"``: only a marker, not imported). A library is a learner's if
#: one of its modules is among those the learner's first cell imports.
LIBRARY_IMPORTS: dict[str, tuple[str, ...]] = {
    "numba": ("numba",),
    "scipy": ("scipy.special", "scipy.optimize"),
    "scipy.stats": ("scipy.stats",),
    "dp_accounting": ("dp_accounting", "dp_accounting.pld", "dp_accounting.rdp"),
    "sklearn": ("sklearn.tree", "sklearn.linear_model"),
    "diffprivlib": ("diffprivlib:", "dpbench.learners.peers:diffprivlib"),  # adapted to the installed sklearn
}

#: CPU seconds of importing each of :data:`LIBRARY_IMPORTS` in a shard job (after the ones
#: above it). Measured 2026-11-24 by ``benchmarks/bench_first_use.py`` (2-core build
#: machine under load, compiled bytecode).
LIBRARY_SECONDS: dict[str, float] = {
    "numba": 0.27,
    "scipy": 0.2,
    "scipy.stats": 0.44,
    "dp_accounting": 0.17,
    "sklearn": 0.35,
    "diffprivlib": 0.07,
}

#: learner (or audit experiment, whose cells have no learner) → (CPU seconds of its first
#: cell beyond a later one's and beyond its libraries: its modules, numba cache loads,
#: one-off tables; the libraries it imports). Measured with :data:`LIBRARY_SECONDS`, numba's
#: cache warm (the first run of a checkout compiles: a one-off, not modelled).
FIRST_USE: dict[str, tuple[float, tuple[str, ...]]] = {
    "confident_winnow": (0.29, ("numba",)),
    "decision_tree": (0.55, ("scipy.stats", "sklearn")),
    "diffprivlib_logreg": (0.50, ("numba", "scipy.stats", "sklearn", "diffprivlib")),
    "dp_gd": (0.67, ("numba", "scipy.stats", "dp_accounting")),
    "dp_sgd": (0.58, ("numba", "scipy.stats", "dp_accounting")),
    "dp_winnow": (0.66, ("numba",)),
    "dp_winnow_batched": (0.65, ("numba",)),
    "dp_winnow_batched_tight": (0.70, ("numba", "scipy.stats", "dp_accounting")),
    "elimination": (0.00, ()),
    "erm": (0.28, ("numba",)),
    "exp_mech_erm": (0.32, ("numba",)),
    "exp_mech_grid": (0.55, ("numba",)),
    "ftl": (0.34, ("numba",)),
    "linear_learner": (0.75, ("numba",)),
    "objective_perturbation": (0.31, ("numba",)),
    "output_perturbation": (0.34, ("numba",)),
    "perceptron": (0.34, ("numba",)),
    "privacy_audit": (0.86, ("numba", "scipy.stats")),
    "private_mw_001": (0.54, ("numba", "scipy.stats", "dp_accounting")),
    "private_rwm": (0.86, ("numba",)),
    "private_rwm_tight": (0.65, ("numba", "scipy.stats", "dp_accounting")),
    "private_sq_conjunction": (0.23, ()),
    "privdl": (0.52, ("numba",)),
    "privdl_composition": (0.77, ("numba",)),
    "rivest": (0.46, ("numba",)),
    "rwm": (0.39, ("numba",)),
    "sklearn_logreg": (0.63, ("numba", "scipy.stats", "sklearn")),  # 0.98 measured, sklearn's 0.35 in it (undetected then)
    "sq_conjunction": (0.00, ()),
    "sv_experts": (0.53, ("numba", "scipy.stats", "dp_accounting")),
    "winnow": (0.34, ("numba",)),
}

#: A learner the table does not know (a plugin, a new learner): numba and scipy, 1 s.
DEFAULT_FIRST_USE: tuple[float, tuple[str, ...]] = (1.0, ("numba", "scipy"))


def libraries_of(modules: Iterable[str]) -> tuple[str, ...]:
    """The :data:`LIBRARY_IMPORTS` of which a module (not a ``"module:function"`` entry) is
    among ``modules``."""
    present = set(modules)
    return tuple(name for name, mods in LIBRARY_IMPORTS.items() if any(m.rstrip(":") in present for m in mods if not m.rstrip(":").count(":")))


@functools.lru_cache(maxsize=1024)
def job_costs(name: str) -> dict[tuple, float]:
    """Per-job keys of a learner (or audit experiment) ``name``: its libraries' imports and
    its own first use, each paid once by a shard job that runs such a cell."""
    seconds, libraries = FIRST_USE.get(name, DEFAULT_FIRST_USE)
    cal = calibration()
    scale = 1.0 if cal is None else cal.first_use_factor
    out = {("job", "import", lib): LIBRARY_SECONDS.get(lib, 0.0) * scale for lib in libraries}
    out[("job", "first_use", name)] = seconds * scale
    return out


def job_overhead_seconds() -> float:
    """The runner's start-up per shard job: :data:`JOB_OVERHEAD_SECONDS`, or this machine's
    (:func:`dpbench.orchestration.cost_table.calibration`)."""
    cal = calibration()
    return JOB_OVERHEAD_SECONDS if cal is None else cal.job_overhead_seconds


#: the per-job keys paid once by a job whatever its cells (imports, first uses): left out of
#: the weight of a group of cells (``jobs=False``); other per-job keys (a calibration per
#: (ε, δ, q, T)) grow with the cells and are counted
ONCE_PER_JOB = ("import", "first_use")


def _factor(name: str) -> float:
    """This machine's factor for cells of learner (or audit experiment) ``name`` (1: shipped)."""
    cal = calibration()
    return 1.0 if cal is None else cal.factors.get(name, 1.0)


def _calibrated(cost: "CellCost", name: str) -> "CellCost":
    """``cost`` with this machine's factor for ``name`` on its own and shared work (not on
    the imports and first uses, which :func:`job_costs` scales)."""
    f = _factor(name)
    if f == 1.0:
        return cost
    shared = {k: (v if k[0] == "job" and k[1] in ONCE_PER_JOB else v * f) for k, v in cost.shared.items()}
    return CellCost(own=cost.own * f, shared=shared)

#: Conjunctions' class mistakes (subcube transform, 2026-11-24, CPU time on the build
#: machine: 3^12 and 3^13 classes, n = 1024 … 131072): seconds per hypothesis × variable,
#: and per example × variable of the histogram.
CONJUNCTION_TRANSFORM_SECONDS = 2.5e-9
HISTOGRAM_SECONDS = 3e-9


@dataclass(frozen=True)
class CellCost:
    """Predicted seconds of one cell: ``own`` work plus ``shared`` work keyed by what it is."""

    own: float
    shared: Mapping[tuple, float] = field(default_factory=dict)

    @property
    def alone(self) -> float:
        """Seconds if the cell were the only one in its shard."""
        return self.own + sum(self.shared.values())

    def scaled(self, fraction: float, piece: Cell) -> "CellCost":
        """The cost of ``piece``, a range of ``fraction`` of the cell's repetitions: work per
        repetition scales, work once per job (keys starting with ``"job"``) does not;
        per-sample keys name the piece's first repetition (other reps: other samples)."""
        shared = {}
        for key, seconds in self.shared.items():
            if key[0] == "job":
                shared[key] = seconds
            else:
                shared[key[:-1] + (piece.first_rep,)] = seconds * fraction
        return CellCost(own=self.own * fraction, shared=shared)


# --------------------------------------------------------------------------- features


def dimension(cell: Cell) -> int:
    """The problem's dimension: ``d`` if it has one, else ``n_features``/``k``, else 10."""
    return _dimension(cell.problem_params)


@functools.lru_cache(maxsize=4096)
def _dimension(problem_params: tuple) -> int:
    params = dict(problem_params)
    for name in ("d", "n_features", "k"):
        value = params.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return int(value)
    return 10


def log_class_size(cell: Cell) -> float:
    """ln |C| of the class a class-enumerating learner searches.

    Uses the problem's own ``log_class_size()`` if it defines one (a method of the
    problem record, no target needed); conjunctions: 3^d (2^d monotone); else ``d ln 3``.
    """
    return _log_class_size(cell.problem, cell.problem_params)


@functools.lru_cache(maxsize=4096)
def _log_class_size(problem_name: str, problem_params: tuple) -> float:
    params = dict(problem_params)
    problem = registry.problem(problem_name)(**params)
    own = getattr(problem, "log_class_size", None)
    if callable(own):
        return float(own())
    d = next((int(params[k]) for k in ("d", "n_features", "k") if isinstance(params.get(k), int) and not isinstance(params.get(k), bool) and params[k] > 0), 10)
    base = 2.0 if params.get("monotone", False) else 3.0
    return d * math.log(base)


def _words(n: int) -> int:
    return max(1, math.ceil(n / 64))


def _sample_key(cell: Cell) -> tuple:
    """Shared-work keys end with the first repetition: cells (pieces) with the same
    problem, size and repetitions see the same samples."""
    return ("sample", cell.problem_id, cell.size, cell.first_rep)


def _sample_cost(cell: Cell) -> dict[tuple, float]:
    return {_sample_key(cell): SAMPLE_SECONDS * cell.size * dimension(cell) * cell.repetitions}


# --------------------------------------------------------------------------- features of a cell


def _enumerated_class_size(cell: Cell) -> float | None:
    """|C| if the cell's learner enumerates the class, None if it skips it (too large)."""
    size = math.exp(min(log_class_size(cell), 700.0))
    limit = dict(cell.learner_params).get("max_hypotheses", getattr(registry.learner(cell.learner), "max_hypotheses", math.inf))
    return None if isinstance(limit, (int, float)) and size > limit * (1 + 1e-9) else size  # exp(ln|C|) rounds


def online_n_features(cell: Cell) -> int:
    """N, the learner features of a halfspaces_online stream: ``d`` (monotone halfspace),
    ``2d`` (signed, [BF26, §4.3]), ``2(d+1)`` (decision list as a halfspace, Lemma 4.10)."""
    params, d = dict(cell.problem_params), dimension(cell)
    if cell.problem == "dl_as_halfspace":
        return 2 * (d + 1)
    return d if params.get("monotone", True) else 2 * d


def online_float_inputs(cell: Cell) -> bool:
    """Are the stream's features float64 (cube inputs), not int8 {−1, +1}?"""
    return dict(cell.problem_params).get("domain") == "cube"


def online_stream_bytes(cell: Cell) -> float:
    """Bytes of one stored stream (X: T × N, 1 or 8 bytes each; y: T bytes)."""
    return cell.size * (online_n_features(cell) * (8 if online_float_inputs(cell) else 1) + 1)


def online_stream_seconds(cell: Cell) -> float:
    """Generating one length-T stream of the cell's problem, seconds: decision lists
    ``6e-8·T``; halfspaces ``T·(e + a·N + b·s + c·[adversarial])`` with (e, a, b, c) =
    (6e-9, 6.5e-10, 9e-9, 5e-8) Boolean, (9e-9, 5e-9, 4.4e-8, 2.1e-7) cube; the margin
    enforcement (b) and the per-block sort (c) are skipped by a one-coordinate Boolean target
    (every margin is 1). Measured 2026-11-26 by ``python benchmarks/bench_stream_cost.py``
    (process CPU time of :meth:`OnlineStream.stored`, the paper grid's settings, T = 2e6 at
    d ≤ 32; 2-core build machine, load ≈ 2.4 of it another user's; least squares in relative
    error, predicted/measured 0.69–1.33)."""
    params, T, N = dict(cell.problem_params), cell.size, online_n_features(cell)
    if cell.problem == "dl_as_halfspace":
        return 6e-8 * T
    if cell.problem != "halfspace":
        return 0.0
    s = int(params.get("s") or dimension(cell))
    e, a, b, c = (9e-9, 5e-9, 4.4e-8, 2.1e-7) if online_float_inputs(cell) else (6e-9, 6.5e-10, 9e-9, 5e-8)
    if not online_float_inputs(cell) and s == 1:
        s, adversarial = 0, False
    else:
        adversarial = params.get("order") == "adversarial"
    return T * (e + a * N + b * s + c * adversarial)


def online_stream_cost(cell: Cell) -> tuple[float, dict[tuple, float]]:
    """(own seconds per repetition, shared keys) of the cell's stream: shared by the cells of
    a shard with the same problem, T and repetitions (``dpbench.experiments.base.shared_stream``,
    key ``("stream", problem_id, T, first_rep)``, all repetitions), unless it is larger than
    ``SHARED_STREAM_BYTES``: then every cell generates its own."""
    from dpbench.experiments.base import SHARED_STREAM_BYTES  # deferred: the shard loop imports pandas

    seconds = online_stream_seconds(cell)
    if online_stream_bytes(cell) > SHARED_STREAM_BYTES:
        return seconds, {}
    return 0.0, {("stream", cell.problem_id, cell.size, cell.first_rep): seconds * cell.repetitions}


# --------------------------------------------------------------------------- formulas

#: Cost formulas by name, the functions the entries of
#: :data:`dpbench.orchestration.cost_table.COST_TABLE` feed: ``formula(cell, coefficients)``
#: is own seconds per repetition (a ``CostModel.formula``), a dict of shared keys (seconds for
#: all the cell's repetitions, keys ending with its first repetition; a ``CostModel.shared``
#: entry) or MB (a ``CostModel.memory``).
FORMULAS: dict[str, Callable[[Cell, Mapping[str, float]], Any]] = {}


def cost_formula(fn: Callable[[Cell, Mapping[str, float]], Any]) -> Callable[[Cell, Mapping[str, float]], Any]:
    """Decorator: add ``fn`` to :data:`FORMULAS` under its name (a plugin's own formula too)."""
    old = FORMULAS.get(fn.__name__)
    if old is not None and old is not fn:
        raise ValueError(f"cost formula {fn.__name__!r} defined twice")
    FORMULAS[fn.__name__] = fn
    return fn


def formula(name: str) -> Callable[[Cell, Mapping[str, float]], Any]:
    """The formula ``name`` of :data:`FORMULAS` (a ``ValueError`` naming the known ones if none)."""
    fn = FORMULAS.get(name)
    if fn is None:
        raise ValueError(f"unknown cost formula {name!r}; known: {', '.join(sorted(FORMULAS))}")
    return fn


@cost_formula
def linear(cell: Cell, c: Mapping[str, float]) -> float:
    """Own seconds per repetition = ``per_rep + per_example_variable · n · d``."""
    return c["per_rep"] + c["per_example_variable"] * cell.size * dimension(cell)


@cost_formula
def class_draw(cell: Cell, c: Mapping[str, float]) -> float:
    """A draw over the whole enumerated class |C| (the exponential mechanism's Gumbel-max):
    ``per_hypothesis · |C| + per_rep``; a class above ``max_hypotheses`` is skipped (a row
    with the reason), which costs ``per_rep``."""
    size = _enumerated_class_size(cell)
    return c["per_rep"] if size is None else c["per_hypothesis"] * size + c["per_rep"]


@cost_formula
def class_enumeration(cell: Cell, c: Mapping[str, float]) -> dict[tuple, float]:
    """Shared: mistakes of every hypothesis, once per sample (``erm.class_mistakes``):
    conjunctions by the subcube transform of the sample's histogram
    (:data:`CONJUNCTION_TRANSFORM_SECONDS` per hypothesis × variable, plus
    :data:`HISTOGRAM_SECONDS` per example × variable), other classes bit-packed per word."""
    size = _enumerated_class_size(cell)
    if size is None:
        return {}  # the learner skips the cell
    if cell.problem == "conjunction":
        d = dimension(cell)
        seconds = CONJUNCTION_TRANSFORM_SECONDS * d * size + HISTOGRAM_SECONDS * cell.size * d + 2e-4
    else:
        seconds = CLASS_WORD_SECONDS * size * _words(cell.size) + 5e-4
    return {("class_mistakes", cell.problem_id, cell.size, cell.first_rep): seconds * cell.repetitions}


@cost_formula
def logistic_optimum(cell: Cell, c: Mapping[str, float] | None = None) -> dict[tuple, float]:
    """Shared: θ*, the exact minimiser of the sample's regularised logistic objective (damped
    Newton), once per sample — the excess-risk metric of every private-ERM cell needs it and
    ``output_perturbation`` releases it plus noise. ≈ 1 ms + 3e-8 s per example × variable
    (2026-11-24, with the private-ERM entries of the cost table)."""
    return {("logistic_optimum", cell.problem_id, cell.size, cell.first_rep): (1e-3 + 3e-8 * cell.size * dimension(cell)) * cell.repetitions}


@cost_formula
def online_rounds(cell: Cell, c: Mapping[str, float]) -> float:
    """An online learner's run over a stored stream, seconds per repetition without the
    stream (:func:`online_stream_cost`): ``per_rep + T·(per_round + N·per_feature)`` over
    the N learner features, ``per_feature_int8`` or ``per_feature_float64`` by the inputs."""
    per_feature = c["per_feature_float64"] if online_float_inputs(cell) else c["per_feature_int8"]
    return c["per_rep"] + cell.size * (c["per_round"] + per_feature * online_n_features(cell))


def _hedge_shape(cell: Cell) -> tuple[int, int]:
    """(T, k) of an experts cell: k is the problem's ``k`` (else ``d``, else 10)."""
    params = dict(cell.problem_params)
    return int(cell.size), int(params.get("k") or params.get("d") or 10)


def _hedge_losses_shared(cell: Cell) -> bool:
    """The cell's sequences fit the experts experiments' loss cache
    (``dpbench.experiments.experts.CACHE_ENTRIES``), so the cells of a shard with the same
    problem and T draw them once (else every cell redraws them)."""
    T, k = _hedge_shape(cell)
    return T * k * cell.repetitions <= CACHE_ENTRIES


def _hedge_loss_seconds(cell: Cell, c: Mapping[str, float]) -> float:
    T, k = _hedge_shape(cell)
    return c["loss_entry"] * T * k + c["loss_round"] * T


@cost_formula
def hedge(cell: Cell, c: Mapping[str, float]) -> float:
    """A Hedge-family run, seconds per repetition: the kernel, ``kernel_entry·T·k +
    kernel_round·T + per_run``, plus drawing the losses (``loss_entry·T·k + loss_round·T``)
    where the loss cache cannot share them (:func:`hedge_losses` otherwise)."""
    T, k = _hedge_shape(cell)
    own = c["kernel_entry"] * T * k + c["kernel_round"] * T + c["per_run"]
    return own + (0.0 if _hedge_losses_shared(cell) else _hedge_loss_seconds(cell, c))


@cost_formula
def hedge_losses(cell: Cell, c: Mapping[str, float]) -> dict[tuple, float]:
    """Shared: drawing the loss sequences, once per shard for the cells of one problem and T."""
    if not _hedge_losses_shared(cell):
        return {}
    return {("losses", cell.problem_id, cell.size, cell.first_rep): _hedge_loss_seconds(cell, c) * cell.repetitions}


@cost_formula
def sv_rounds(cell: Cell, c: Mapping[str, float]) -> float:
    """Seconds per repetition ``per_entry · T · k + per_rep`` (k: the problem's ``k``, else 10)."""
    return c["per_entry"] * cell.size * int(dict(cell.problem_params).get("k", 10)) + c["per_rep"]


@functools.lru_cache(maxsize=1024)
def _problem_record(problem: str, problem_params: tuple) -> Any:
    """The problem of a cell (cached: the plan asks once per cell)."""
    return registry.problem(problem)(**dict(problem_params))


def _n_features(cell: Cell) -> int:
    """|F| of the cell's decision-list feature class."""
    return _problem_record(cell.problem, cell.problem_params).n_features()


@cost_formula
def cover(cell: Cell, c: Mapping[str, float]) -> float:
    """A covering learner (rivest, privdl), seconds per repetition: ``per_rep`` (the
    held-out error) ``+ per_example_feature · n·|F| + per_feature_pair · |F|²`` (the rounds
    and the training error); Φ is :func:`feature_matrix`, shared."""
    f = _n_features(cell)
    return c["per_rep"] + c["per_example_feature"] * cell.size * f + c["per_feature_pair"] * f * f


@cost_formula
def feature_matrix(cell: Cell, c: Mapping[str, float]) -> dict[tuple, float]:
    """Shared: Φ and its starting counts (cached on the sample), once per sample for the
    covering cells of a shard that see it: ``feature_matrix_per_example_feature · n·|F|``."""
    seconds = c["feature_matrix_per_example_feature"] * cell.size * _n_features(cell)
    return {("dl_feature_matrix", cell.problem_id, cell.size, cell.first_rep): seconds * cell.repetitions}


@cost_formula
def cover_memory(cell: Cell, c: Mapping[str, float]) -> float:
    """Working memory (MB) of a covering learner's shard beyond the libraries: the runner
    keeps up to 256 samples alive, each with its packed ``Φ`` — ``n·(d + 1 + ceil(|F|/8))``
    bytes — doubled for temporaries (an estimate, not a measurement)."""
    problem = _problem_record(cell.problem, cell.problem_params)
    per_sample = cell.size * (problem.d + 1 + -(-problem.n_features() // 8))
    return 2 * min(cell.repetitions, 256) * per_sample / 1e6


def _sgd_shape(cell: Cell) -> tuple[int, int]:
    params = dict(cell.learner_params)
    return int(params.get("steps", 300)), int(params.get("batch_size", 256))


@cost_formula
def dp_sgd_steps(cell: Cell, c: Mapping[str, float]) -> float:
    """DP-SGD's fit, seconds per repetition: ``per_rep + T·(per_step + per_step_example·n +
    per_batch_entry·min(B, n)·d)`` over T steps of Poisson batches of mean size B."""
    d = int(dict(cell.problem_params).get("d", 10))
    steps, batch = _sgd_shape(cell)
    return c["per_rep"] + steps * (c["per_step"] + c["per_step_example"] * cell.size + c["per_batch_entry"] * min(batch, cell.size) * d)


@cost_formula
def dp_sgd_calibration(cell: Cell, c: Mapping[str, float]) -> dict[tuple, float]:
    """Per job: DP-SGD's PLD noise calibration, once per (ε, δ, q, T) (cached per process):
    ``calibration + calibration_per_log_q_squared · log10(1/q)² · [ε ≥ calibration_epsilon_from]``
    CPU-s (the accountant's resolution is relative to ε); none at ε = ∞."""
    from dpbench.learners.dp_sgd import sampling_rate  # deferred: the learner module imports numba and scipy

    if math.isinf(cell.epsilon):
        return {}
    steps, batch = _sgd_shape(cell)
    q = sampling_rate(batch, max(cell.size, 1))
    seconds = c["calibration"] + c["calibration_per_log_q_squared"] * math.log10(1 / q) ** 2 * (cell.epsilon >= c["calibration_epsilon_from"])
    return {("job", "dp_sgd_calibration", cell.epsilon, cell.delta, q, steps, cell.first_rep): seconds / cell.repetitions * cell.repetitions}


def _grid_candidates(cell: Cell) -> float:
    """``points^d`` candidates of ``exp_mech_grid``, 0 above ``max_candidates`` (skipped)."""
    d = int(dict(cell.problem_params).get("d", 10))
    points = int(dict(cell.learner_params).get("points", 7))
    limit = int(dict(cell.learner_params).get("max_candidates", 20_000))
    return 0.0 if d * math.log(points) > math.log(limit) + 1e-9 else float(points**d)


@cost_formula
def grid_draw(cell: Cell, c: Mapping[str, float]) -> float:
    """The Gumbel-max draw over the grid, seconds per repetition: ``per_candidate · g^d``."""
    return c["per_candidate"] * _grid_candidates(cell)


@cost_formula
def grid_scores(cell: Cell, c: Mapping[str, float]) -> dict[tuple, float]:
    """Shared: the grid's scores, once per sample for every ε (cached on the sample):
    ``score_per_example_candidate · n · g^d``."""
    from dpbench.theory.logistic_objective import DEFAULT_LAM  # deferred: imports scipy

    params = dict(cell.learner_params)
    key = ("exp_mech_grid_scores", cell.problem_id, cell.size, params.get("points", 7), params.get("radius", 4.0), params.get("lam", DEFAULT_LAM))
    return {(*key, cell.first_rep): c["score_per_example_candidate"] * cell.size * _grid_candidates(cell) * cell.repetitions}


#: Uncalibrated defaults per learner family: (seconds per repetition, per size × dimension).
#: Online learners are numba loops over T rounds of d features; experts touch k experts
#: per round; batch learners are vectorised over n examples.
FAMILY_DEFAULTS: dict[str, tuple[float, float]] = {
    "batch": (1e-3, 5e-8),
    "online": (1e-3, 9e-9),
    "experts": (1e-3, 2e-8),
}


def cell_cost(cell: Cell) -> CellCost:
    """Predicted seconds of ``cell`` (all its repetitions): the learner's entry of
    :data:`dpbench.orchestration.cost_table.COST_TABLE` (own formula, shared formulas), else
    its family's default; plus the cell's sample or stream, bookkeeping and per-job keys."""
    units = registry.experiment(cell.experiment).units
    if units is not None:  # not a learner (privacy_audit's audits)
        own = (max(float(units.cost(cell)), 0.0) + PER_REP_SECONDS) * cell.repetitions
        return _calibrated(CellCost(own=own, shared=dict(job_costs(cell.experiment))), cell.experiment)
    learner_cls = registry.learner(cell.learner)
    shared = _sample_cost(cell) if learner_cls.family == "batch" else {}  # a new dict, added to below
    stream_own = 0.0
    if learner_cls.family == "online" and registry.experiment(cell.experiment).run_repetition is not None:
        stream_own, stream_shared = online_stream_cost(cell)
        shared = dict(stream_shared)
    model = COST_TABLE.get(cell.learner)
    if model is not None:
        own = formula(model.formula)(cell, model.coefficients)
        for name in model.shared:
            shared.update(formula(name)(cell, model.coefficients))
    else:
        per_rep, per_unit = FAMILY_DEFAULTS.get(learner_cls.family, FAMILY_DEFAULTS["batch"])
        own = per_rep + per_unit * cell.size * dimension(cell)
    own = (max(own, 0.0) + stream_own + PER_REP_SECONDS) * cell.repetitions
    shared.update(job_costs(cell.learner))
    return _calibrated(CellCost(own=own, shared=shared), cell.learner)


def shard_seconds(cells: Iterable[Cell], costs: Mapping[Cell, CellCost] | None = None, *, jobs: bool = True) -> float:
    """Predicted seconds of a shard's cells: own work, plus each shared key once
    (``jobs=False``: without the imports and first uses, :data:`ONCE_PER_JOB`, e.g. to weigh
    groups of cells that will be packed into jobs)."""
    return cost_seconds((costs[cell] for cell in cells) if costs is not None else map(cell_cost, cells), jobs=jobs)


def cost_seconds(cell_costs: Iterable[CellCost], *, jobs: bool = True) -> float:
    """:func:`shard_seconds` of the cells whose costs are ``cell_costs``: the sum of their
    ``own`` seconds (in order), plus the sum over shared keys (in order of first appearance)
    of ``max(0, the key's largest seconds)``. ``jobs=False`` leaves out the keys paid once
    per job whatever its cells (:data:`ONCE_PER_JOB`) but counts the other per-job keys: a
    DP-SGD noise calibration per (ε, δ, q, T) grows with the cells (at 100× the paper's ε
    values a shard of 125 DP-SGD cells held 128 s of them, unseen by the splitter)."""
    own, shared = 0.0, {}
    get = shared.get
    for c in cell_costs:
        own += c.own
        for key, seconds in c.shared.items():
            if jobs or key[0] != "job" or key[1] not in ONCE_PER_JOB:
                old = get(key)
                if old is None:
                    shared[key] = seconds if seconds > 0.0 else 0.0  # = max(0.0, seconds)
                elif seconds > old:
                    shared[key] = seconds
    return own + sum(shared.values())


def shard_memory_mb(cells: Iterable[Cell]) -> float:
    """Peak memory of a shard job (MB): libraries plus the samples the runner caches.

    Batch cells: ``dpbench.experiments.base`` keeps up to 256 samples alive (X as bytes: n·d,
    y: n, plus a class's int64 mistakes where computed); per-cell temporaries are bounded
    by the largest sample. Doubled for safety: the numbers are estimates, not
    measurements. Online and experts cells (streams, not cached samples): a flat
    :data:`STREAM_MEMORY_MB`, or the memory formula of the learner's cost-table entry.
    """
    per_sample: dict[tuple, float] = {}
    reps: dict[tuple, int] = {}
    other = 0.0
    rules: dict[tuple[str, str], object] = {}
    for cell in cells:
        names = (cell.experiment, cell.learner)
        rule = rules[names] if names in rules else rules.setdefault(names, _memory_rule(*names))
        if rule is not None:
            other = max(other, float(rule(cell)) if callable(rule) else rule)
            continue
        key = _sample_key(cell)
        nbytes = cell.size * (dimension(cell) + 1)
        if cell.learner in ("erm", "exp_mech_erm"):
            nbytes += 8 * (_enumerated_class_size(cell) or 0.0)
        per_sample[key] = max(per_sample.get(key, 0.0), nbytes)
        reps[key] = max(reps.get(key, 0), cell.repetitions)
    held = sorted((per_sample[k] for k in per_sample for _ in range(min(reps[k], 256))), reverse=True)[:256]
    return BASE_MEMORY_MB + max(2 * sum(held) / 1e6, other)


def _memory_rule(experiment: str, learner: str) -> object:
    """How :func:`shard_memory_mb` counts a cell of ``experiment`` and ``learner``: MB (an
    audit: :data:`STREAM_MEMORY_MB`), the memory formula of the learner's cost-table entry
    (a function of the cell), MB (another non-batch learner: :data:`STREAM_MEMORY_MB`), or
    None (a batch cell: its sample)."""
    if registry.experiment(experiment).units is not None:
        return STREAM_MEMORY_MB
    model = COST_TABLE.get(learner)
    if model is not None and model.memory is not None:
        return functools.partial(formula(model.memory), c=model.coefficients)
    return STREAM_MEMORY_MB if registry.learner(learner).family != "batch" else None


def machine_memory_mb() -> float:
    """This machine's physical memory (MB), what a cell run here can have at most."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e6


# --------------------------------------------------------------------------- this machine's calibration


def table_digest() -> str:
    """A digest of the shipped table a calibration's factors are relative to (its entries'
    formulas and coefficients, the per-job constants, and the source of the cost model and
    of the table — the formulas' bodies and module constants such as the per-sample seconds):
    a calibration made against another table is stale."""
    shipped = ((name, m) for name, m in COST_TABLE.items() if name in cost_table.SHIPPED)  # plugins' entries aside
    parts = sorted((name, m.formula, sorted(m.coefficients.items()), m.shared) for name, m in shipped)
    per_job = sorted(LIBRARY_SECONDS.items()), sorted(FIRST_USE.items())
    parts.append(("job", JOB_OVERHEAD_SECONDS, *per_job))
    parts.append(tuple(file_digest(module_file(name)) for name in (__name__, cost_table.__name__)))
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def machine_id() -> str:
    """The host, CPU model and usable cores a calibration is valid for."""
    facts = machine()
    return f"{platform.node()}: {facts['cpu']}, {facts['cores']} cores"


def _positive(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


def read_calibration(path: Path) -> cost_table.Calibration:
    """The calibration in ``path``; :class:`dpbench.orchestration.cost_table.CalibrationError` (one line) if it is unreadable,
    malformed or stale (another dpbench version or another shipped table)."""
    from dpbench import __version__

    fix = f"run `dpbench calibrate` again, or remove it (or set {cost_table.CALIBRATION_ENV}=shipped)"
    try:
        body = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        why = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"
        raise cost_table.CalibrationError(f"cost calibration {path}: unreadable ({why}); {fix}") from None
    factors = body.get("factors") if isinstance(body, dict) else None
    ok = (isinstance(body, dict) and body.get("format") == cost_table.CALIBRATION_FORMAT and isinstance(factors, dict)
          and all(isinstance(k, str) and _positive(v) for k, v in factors.items())
          and _positive(body.get("job_overhead_seconds")) and _positive(body.get("first_use_factor"))
          and all(isinstance(body.get(k), str) for k in ("machine", "date", "dpbench_version", "table")))  # fmt: skip
    if not ok:
        what = f"not a dpbench calibration file of format {cost_table.CALIBRATION_FORMAT}"
        raise cost_table.CalibrationError(f"cost calibration {path}: {what}; {fix}")
    if not body["machine"].startswith(machine_id() + ","):
        raise cost_table.CalibrationError(f"cost calibration {path}: made on another machine ({body['machine']}); {fix}")
    if body["dpbench_version"] != __version__ or body["table"] != table_digest():
        other = body["dpbench_version"] != __version__
        what = f"dpbench {body['dpbench_version']}" if other else "another shipped cost table"
        raise cost_table.CalibrationError(f"cost calibration {path}: stale (made with {what}, {body['date']}); {fix}")
    return cost_table.Calibration(str(path), body["machine"], body["date"], body["dpbench_version"], body["table"],
                       float(body["job_overhead_seconds"]), float(body["first_use_factor"]),
                       MappingProxyType({k: float(v) for k, v in factors.items()}),
                       MappingProxyType(dict(body.get("coefficients") or {})))  # fmt: skip


@functools.lru_cache(maxsize=1)
def calibration() -> cost_table.Calibration | None:
    """This machine's calibration (:func:`calibration_path`), or None: the shipped table.
    Read once per process; :class:`dpbench.orchestration.cost_table.CalibrationError` if the file is bad or stale."""
    path = cost_table.calibration_path()
    if path is None or not path.exists():
        return None
    return read_calibration(path)


def table_in_use() -> str:
    """One line: the cost table the predictions use (:func:`calibration` or the shipped one)."""
    cal = calibration()
    if cal is not None:
        return cal.describe()
    path = cost_table.calibration_path()
    where = f"no {path}; `dpbench calibrate` writes it" if path is not None else f"{cost_table.CALIBRATION_ENV}=shipped"
    return f"cost table: shipped, measured on the {cost_table.SHIPPED_MACHINE} ({where})"
