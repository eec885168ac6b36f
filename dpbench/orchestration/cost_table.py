"""The cost model's per-learner coefficients, as data keyed by learner name.

Every learner the model is calibrated for has one :class:`CostModel` entry in
:data:`COST_TABLE`: the name of the formula its own seconds per repetition feed (a function
of :data:`dpbench.orchestration.cost.FORMULAS`), the coefficients of that formula, the
formulas of the work it shares with the other cells of a shard (a sample's statistic, a
per-job calibration) and of its memory, if any, and where the coefficients come from (the
date and machine of the measurement and the benchmark that made it, :class:`Measurement`).
:func:`dpbench.orchestration.cost.cell_cost` reads the table; a learner without an entry
gets its family's uncalibrated default (:data:`dpbench.orchestration.cost.FAMILY_DEFAULTS`).
Learners carry no cost code: the science layer knows nothing of the workflow.

A plugin learner supplies its own entry with :func:`register_cost_model` (docs/plugins.md),
called when its module is imported; a formula of its own is added with
:func:`dpbench.orchestration.cost.cost_formula`.

The table is a Python mapping rather than a YAML or CSV file: its floats are Python
literals, read exactly as written (PyYAML reads ``5e-9`` as a string), entries are typed
and checked when the module is imported, and a plugin registers an entry of the same type.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from dpbench.foundation.validation import normalise


@dataclass(frozen=True)
class Measurement:
    """Where a :class:`CostModel`'s coefficients come from: the ``date`` of the measurement,
    the ``machine`` it ran on (and its load) and the ``benchmark`` that measured it (how to
    re-measure)."""

    date: str
    machine: str
    benchmark: str


@dataclass(frozen=True)
class CostModel:
    """A learner's cost model: ``formula(cell, coefficients)`` is its own seconds per
    repetition; each of ``shared`` maps ``(cell, coefficients)`` to the keys of work shared
    with the shard's other cells (seconds for all repetitions, :class:`dpbench.orchestration.cost.CellCost`);
    ``memory(cell, coefficients)``, if given, is the MB a shard of such cells holds beyond
    the libraries. Formulas are names in :data:`dpbench.orchestration.cost.FORMULAS`."""

    formula: str
    coefficients: Mapping[str, float]
    measured: Measurement
    shared: tuple[str, ...] = ()
    memory: str | None = None
    notes: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.formula, str) or not self.formula:
            raise ValueError(f"CostModel.formula must be the name of a cost formula, got {self.formula!r}")
        if not isinstance(self.measured, Measurement):
            raise ValueError("CostModel.measured must be a Measurement(date, machine, benchmark)")
        bad = [k for k, v in self.coefficients.items() if not isinstance(k, str) or isinstance(v, bool) or not isinstance(v, (int, float))]
        if bad:
            raise ValueError(f"CostModel.coefficients must map names to numbers; bad: {bad}")
        normalise(self, coefficients=MappingProxyType(dict(self.coefficients)), shared=tuple(self.shared))


_BUILD = "2-core shared build machine"

#: Where and how each group of coefficients was measured: name -> (date, machine, benchmark).
#: DEFAULT_RUN: the quick config's conjunctions block through the workflow (2026-11-22),
#: recalibrated against a whole default run's per-cell seconds (2026-11-23: compiled bytecode,
#: idle cores). PRIVATE_ERM (issue 22): per-repetition CPU seconds of fit and scoring at
#: n = 10³, 10⁴, 10⁵ (d = 50, ε = 1, samples and θ* shared as in a shard), under load ≈ 15,
#: divided by 1.5 — the factor by which dp_gd's times before the change, in the same runs,
#: exceeded its model calibrated on idle cores (2026-11-23). STREAM_RUNS: process CPU time of a
#: run over a stored stream (N = 2 … 1024, T = 1e6 at N ≤ 42), the constant (the rows'
#: bookkeeping) kept from the 2026-11-24 fit. HEDGE_RUNS: process CPU time of ``run`` at
#: T = 10⁶, k = 10 and 100 (stochastic), after the eight-lane Hedge kernel; drawing the losses
#: (compiled PCG64 stream) measured 2026-11-24. COVER_RUNS: CPU time on paper-grid cells
#: (n = 1024 … 262144, |F| = 201 and 1153), after the compiled Φ and covering passes.
MEASUREMENTS: dict[str, Measurement] = {
    name: Measurement(date=date, machine=machine, benchmark=benchmark)
    for name, (date, machine, benchmark) in {
        "DEFAULT_RUN": ("2026-11-22, recalibrated 2026-11-23", f"{_BUILD}, idle cores; numpy 2.4, numba 0.68",
                        "python benchmarks/bench_workflow.py --workdir DIR (run_shard logs); python benchmarks/bench_plan.py compares"),
        "PRIVATE_ERM": ("2026-11-24", f"{_BUILD}, load ≈ 15 (times divided by 1.5)",
                        "process CPU of private_erm cells in run_shard (no script); python benchmarks/bench_plan.py compares"),
        "STREAM_RUNS": ("2026-11-26", f"{_BUILD}, load ≈ 2.4", "python benchmarks/bench_stream_cost.py"),
        "HEDGE_RUNS": ("2026-11-26", f"{_BUILD} (Xeon, AVX-512), load average 4-5",
                       "process CPU of run at T = 10⁶ (python benchmarks/bench_rwm.py times the kernel)"),
        "COVER_RUNS": ("2026-11-24", _BUILD,
                       "CPU time of paper-grid decision_lists cells (no script; benchmarks/bench_privdl.py times the passes)"),
    }.items()
}
DEFAULT_RUN, PRIVATE_ERM, STREAM_RUNS, HEDGE_RUNS, COVER_RUNS = (
    MEASUREMENTS[k] for k in ("DEFAULT_RUN", "PRIVATE_ERM", "STREAM_RUNS", "HEDGE_RUNS", "COVER_RUNS"))

_LINEAR = "linear"  # per_rep + per_example_variable · n · d


def _linear(per_rep: float, per_example_variable: float, measured: Measurement = DEFAULT_RUN, **more) -> CostModel:
    return CostModel(_LINEAR, {"per_rep": per_rep, "per_example_variable": per_example_variable}, measured, **more)


_ONLINE_NONPRIVATE = {"per_rep": 7e-4, "per_round": 6e-9, "per_feature_int8": 2.3e-10, "per_feature_float64": 6.5e-10}
_DP_WINNOW = {"per_rep": 7e-4, "per_round": 1.5e-8, "per_feature_int8": 3.7e-10, "per_feature_float64": 2.35e-9}
_HEDGE = {"kernel_entry": 8e-10, "kernel_round": 5.2e-8, "per_run": 5e-4, "loss_entry": 1.7e-9, "loss_round": 3e-9}
_COVER = {"per_rep": 3e-3, "per_example_feature": 1e-9, "per_feature_pair": 1e-9, "feature_matrix_per_example_feature": 1.1e-9}

#: learner name → its :class:`CostModel` (catalogue learners; plugins add theirs with
#: :func:`register_cost_model`).
COST_TABLE: dict[str, CostModel] = {
    # batch learners on the Boolean problems: n·d in examples × variables (1.3 ms, 2.1 ms and
    # 11 ms at n·d = 3.3e5 for the first, second and fourth)
    "elimination": _linear(1.0e-4, 5e-9),
    "sq_conjunction": _linear(1.2e-4, 7e-9),
    "private_sq_conjunction": _linear(1.4e-4, 7e-9),
    "decision_tree": _linear(9e-4, 3.4e-8),
    # class enumeration (shared, cost.py: the subcube transform, CLASS_WORD_SECONDS), then the
    # bookkeeping, or the Gumbel-max draw over the class (≈ 1.5 ms at |C| = 3^10)
    "erm": _linear(1e-4, 0.0, shared=("class_enumeration",)),
    "exp_mech_erm": CostModel("class_draw", {"per_rep": 2e-4, "per_hypothesis": 2.5e-8}, DEFAULT_RUN, shared=("class_enumeration",)),
    # private ERM: θ* (the exact optimum, shared: logistic_optimum) plus the learner's own work.
    # dp_gd: steps (200) × n × d multiply-adds, one pass over X a step (its previous 1.6e-7
    # times the measured after/before ratio 0.74–0.75 of the vectorised gradient pass)
    "dp_gd": _linear(1e-3, 1.2e-7, PRIVATE_ERM, shared=("logistic_optimum",)),
    "output_perturbation": _linear(2e-3, 1.3e-9, PRIVATE_ERM, shared=("logistic_optimum",)),  # noise and scoring
    "objective_perturbation": _linear(2e-3, 2.5e-8, PRIVATE_ERM, shared=("logistic_optimum",)),  # its own Newton solve
    "diffprivlib_logreg": _linear(4e-3, 1.3e-8, PRIVATE_ERM, shared=("logistic_optimum",)),  # the peer's own solver
    # per step: the Poisson batch (≈ nq geometric gaps, an n-entry mask), the clipped gradients
    # of the batch (batch × d) and ~50 µs of numpy calls (18.5 / 24 / 35 ms at n = 10³ / 10⁴ /
    # 10⁵, T = 300, d = 50, B = 256); the PLD calibration, once per job and (ε, δ, q, T):
    # 0.21–0.26 s at n = 10³, 0.22–0.70 s at 10⁴, 0.23–1.3 s at 10⁵ for ε from 0.03 to 30
    # (T = 300, δ = 1e-6), growing with log10(1/q)² from ε ≈ 0.3 on
    "dp_sgd": CostModel(
        "dp_sgd_steps",
        {"per_rep": 1e-3, "per_step": 5.5e-5, "per_step_example": 3.5e-10, "per_batch_entry": 1e-9,
         "calibration": 0.22, "calibration_per_log_q_squared": 0.12, "calibration_epsilon_from": 0.3},
        Measurement("2026-11-26", "2-core machine, idle", "python benchmarks/bench_dp_gd.py (process CPU of the fits and calibrations)"),
        shared=("logistic_optimum", "dp_sgd_calibration"),
    ),  # fmt: skip
    # exponential mechanism over a grid: the scores once per sample for every ε (~5 ns per
    # example × candidate of the compiled loss sums), the Gumbel-max draw per repetition
    "exp_mech_grid": CostModel(
        "grid_draw", {"per_candidate": 2e-8, "score_per_example_candidate": 5e-9},
        Measurement("2026-11-24", _BUILD, "python benchmarks/bench_exp_mech_grid.py"), shared=("grid_scores",),
    ),  # fmt: skip
    # online learners, without the stream (generated once per shard, cost.online_stream_cost)
    "perceptron": CostModel("online_rounds", _ONLINE_NONPRIVATE, STREAM_RUNS),
    "winnow": CostModel("online_rounds", _ONLINE_NONPRIVATE, STREAM_RUNS),
    "confident_winnow": CostModel("online_rounds", _ONLINE_NONPRIVATE, STREAM_RUNS),
    # at ε = 1, the three DP-Winnows alike within 1.3× except the source's rule at N = 2 (2.5×,
    # its extra firings)
    "dp_winnow": CostModel("online_rounds", _DP_WINNOW, STREAM_RUNS),
    "dp_winnow_batched": CostModel("online_rounds", _DP_WINNOW, STREAM_RUNS),
    "dp_winnow_batched_tight": CostModel("online_rounds", _DP_WINNOW, STREAM_RUNS),
    # the Hedge kernel: rwm, ftl, private_rwm, private_rwm_tight, private_mw_001 0.05-0.07 s and
    # 0.12-0.14 s at k = 10 and 100; the loss sequences shared where the experiments' cache holds them
    **{name: CostModel("hedge", _HEDGE, HEDGE_RUNS, shared=("hedge_losses",))
       for name in ("rwm", "ftl", "private_rwm", "private_rwm_tight", "private_mw_001")},  # fmt: skip
    # the kernel with Σ_t p_t: 0.06-0.08 s and 0.13 s of process CPU at d = 16 and 64, T = 10⁶
    "linear_learner": CostModel("hedge", {**_HEDGE, "kernel_entry": 1.1e-9, "kernel_round": 5.5e-8}, HEDGE_RUNS, shared=("hedge_losses",)),
    "sv_experts": CostModel("sv_rounds", {"per_entry": 4e-9, "per_rep": 1e-4}, DEFAULT_RUN),
    # covering learners: the rounds and the training error (per example × feature), the
    # held-out error (≈ 3e-3 s); Φ and its starting counts shared per sample; memory: the
    # samples the runner keeps, each with its packed Φ
    **{name: CostModel("cover", _COVER, COVER_RUNS, shared=("feature_matrix",), memory="cover_memory")
       for name in ("rivest", "privdl", "privdl_composition")},  # fmt: skip
}


#: the catalogue's entries (the table as shipped, before any plugin registers its own): what a
#: calibration's digest covers, so loading a plugin does not make a calibration stale
SHIPPED = frozenset(COST_TABLE)


def register_cost_model(learner: str, model: CostModel) -> CostModel:
    """Add ``learner``'s entry to :data:`COST_TABLE` (a plugin learner's, at import).

    Registering the same entry again is a no-op; another entry for a name already in the
    table raises ``ValueError``. Returns ``model``."""
    if not isinstance(model, CostModel):
        raise ValueError(f"register_cost_model({learner!r}, ...): expected a CostModel, got {type(model).__name__}")
    old = COST_TABLE.get(learner)
    if old is not None and old != model:
        raise ValueError(f"cost model of learner {learner!r} registered twice, with different entries")
    COST_TABLE[learner] = model
    return model


# --------------------------------------------------------------------------- this machine's calibration

#: The machine the shipped coefficients were measured on (their :class:`Measurement` entries
#: say which benchmark, when and under what load). ``dpbench calibrate`` measures the machine
#: that runs it and writes a :class:`Calibration` file that overrides them.
SHIPPED_MACHINE = f"{_BUILD} (AMD EPYC / Xeon, numpy 2.4, numba 0.68)"

#: Environment variable naming the calibration file to use (``shipped``: none, the shipped table).
CALIBRATION_ENV = "DPBENCH_COST_TABLE"

#: Format of the calibration file (raised when its fields change).
CALIBRATION_FORMAT = 1


class CalibrationError(ValueError):
    """A calibration file that cannot be used (unreadable, malformed, or made for another
    cost table or dpbench version): its message is one line naming the file and the fix."""


def calibration_path() -> Path | None:
    """Where ``dpbench calibrate`` writes and the plan reads this machine's calibration:
    ``$DPBENCH_COST_TABLE`` if set (``shipped``, or empty: none), else
    ``$XDG_CONFIG_HOME/dpbench/cost_table.json`` (``~/.config/dpbench/cost_table.json``)."""
    env = os.environ.get(CALIBRATION_ENV)
    if env is not None:
        return None if env.strip() in ("", "shipped") else Path(env).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "dpbench" / "cost_table.json"


@dataclass(frozen=True)
class Calibration:
    """This machine's measured cost constants, relative to the shipped ones.

    ``factors[name]`` multiplies the predicted seconds of a cell of learner (or audit
    experiment) ``name`` — its own formula and the shared work it carries, i.e. its
    :data:`COST_TABLE` coefficients and the shared costs of :mod:`dpbench.orchestration.cost`
    as they enter its cells — measured as (process CPU of probe cells) / (their shipped
    prediction); ``first_use_factor`` multiplies the per-job library imports and first uses;
    ``job_overhead_seconds`` replaces the runner's start-up. ``coefficients`` records the
    resulting coefficients (shipped × factor) for the reader; the factors are what is applied.
    """

    path: str
    machine: str
    date: str
    dpbench_version: str
    table: str
    job_overhead_seconds: float
    first_use_factor: float
    factors: Mapping[str, float]
    coefficients: Mapping[str, Mapping[str, float]] = field(default_factory=dict, compare=False)

    def describe(self) -> str:
        """One line: which table, measured where and when."""
        return f"cost table: calibrated on {self.machine}, {self.date} (dpbench {self.dpbench_version}; {self.path})"

    def to_json(self) -> str:
        names = ("machine", "date", "dpbench_version", "table", "job_overhead_seconds", "first_use_factor")
        body = {"format": CALIBRATION_FORMAT, **{k: getattr(self, k) for k in names}}
        body["factors"] = dict(sorted(self.factors.items()))
        body["coefficients"] = {k: dict(v) for k, v in sorted(self.coefficients.items())}
        return json.dumps(body, indent=1) + "\n"
