"""Experiment ``halfspaces_online``: online learning of large-margin halfspaces
([Lit88]; [BF26, §4]).

Problems ``halfspace`` and ``dl_as_halfspace``; learners ``perceptron``, ``winnow``,
``confident_winnow``, ``dp_winnow`` (the source's rule), ``dp_winnow_batched``,
``dp_winnow_batched_tight`` (ours); size axis ``T``. Each
repetition runs one stream of length T and records cumulative ``mistakes`` and
``updates`` at log-spaced checkpoints ``t`` (one row per checkpoint; ``options:
checkpoints_per_decade``, default 5). Every row records the run's mistake bound
(``mistake_bound``, :func:`mistake_bound`: the proven bound of a non-private learner at its
recorded rate, or the calibrated bound ``(M+1)(2L−B+1)`` of the DP-Winnow run, computed
from the run's own calibration — figures read it; the theory check's rows against ε recompute
the calibration each ε prescribes and check the recorded bound against it,
:func:`dpbench.experiments.checks.halfspaces_online.calibrated_bound_along_epsilon`);
private rows report the composed (ε, δ) in ``eps_reported``/``delta_reported`` and the rate
in ``eta``.

Theory check: :mod:`dpbench.experiments.checks.halfspaces_online`. Figures:
:mod:`dpbench.plotting.halfspaces_online`.
"""

from __future__ import annotations

import math
import time

from dpbench import theory
from dpbench.experiments.base import Experiment, Figure, base_row, make_learner, mech_rng, shared_stream
from dpbench.foundation.cell import Cell
from dpbench.foundation.registry import register_experiment
from dpbench.problems.halfspace import log_checkpoints

EXPERIMENT_ID = "halfspaces_online"


def run_online_cell(cell: Cell, target, root_seed: int) -> list[dict]:
    """One stream per repetition (data stream: problem + rep only, so every learner and ε
    sees the same examples; nested across T); one row per checkpoint."""
    return [row for rep in cell.reps for row in run_online_repetition(cell, target, root_seed, rep)]


def run_online_repetition(cell: Cell, target, root_seed: int, rep: int, *, sharers: int = 1) -> list[dict]:
    """Repetition ``rep`` of ``cell``: its rows of :func:`run_online_cell`. The stream is
    :func:`dpbench.experiments.base.shared_stream` (generated once for the ``sharers`` cells of a
    shard that read it); ``fit_seconds`` is the learner's run plus the generation of its
    stream (the seconds it took whichever cell generated it), as when each cell made its own."""
    learner = make_learner(cell)
    reason = learner.supports(target)
    if reason is not None:
        row = base_row(cell, rep, root_seed, learner)
        row.update(target.columns(), status="skipped", reason=reason, t=cell.size)
        return [row]
    checkpoints = log_checkpoints(cell.size, per_decade=int(dict(cell.options).get("checkpoints_per_decade", 5)))
    stream = shared_stream(cell, target, rep, root_seed, checkpoints=checkpoints, sharers=sharers)
    start = time.perf_counter()
    trace = learner.run(stream, rng=mech_rng(cell, rep, root_seed))
    seconds = time.perf_counter() - start + stream.generation_seconds
    diag = trace.diagnostics
    rows = []
    for t, m, u in zip(trace.t, trace.mistakes, trace.updates):
        row = base_row(cell, rep, root_seed, learner)
        row.update(target.columns())
        row.update(t=int(t), mistakes=int(m), updates=int(u), eta=float(diag.get("eta", math.nan)), fit_seconds=seconds)
        row.update(mistake_bound=mistake_bound(cell.learner, row, diag))
        if type(learner).private and math.isfinite(cell.epsilon):
            row.update(eps_reported=float(diag["epsilon"]), delta_reported=float(diag["delta"]))
        rows.append(row)
    return rows


# --------------------------------------------------------------------------- theory


def mistake_bound(learner: str, row: dict, diagnostics: dict | None = None) -> float:
    """The run's mistake bound (NaN where there is none), from its recorded rate ``eta`` and,
    for DP-Winnow, the calibration in the run's ``diagnostics`` (``M``, ``threshold``,
    ``batch``; :func:`dpbench.theory.dp_winnow_calibrated_bound`, holds w.p. ≥ 1 − β)."""
    N, rho, eta = float(row["n_features"]), float(row["rho"]), float(row.get("eta", math.nan))
    if learner == "winnow":
        return float(theory.winnow_mistake_bound(N, rho, eta if math.isfinite(eta) else None))
    if learner == "perceptron":
        return float(theory.perceptron_mistake_bound(N, rho))
    if learner == "confident_winnow" or (learner.startswith("dp_winnow") and math.isinf(row["epsilon"])):
        return float(theory.confident_winnow_update_bound(N, rho))
    if learner.startswith("dp_winnow") and diagnostics is not None and "M" in diagnostics:
        return float(theory.dp_winnow_calibrated_bound(diagnostics["M"], diagnostics["threshold"], diagnostics["batch"]))
    return math.nan


_BANDS = ("lines are means over repetitions with 95% bootstrap bands over repetitions (no band with fewer than 5 "
          "repetitions); a mean of exactly 0 is a hollow marker on the lower axis")


def _figures():
    rate = ("The cumulative mistake rate mistakes/t against the round t, log–log, one panel per stream setting and ε "
            "(non-private learners, ε = ∞, repeat in every panel of their stream); " + _BANDS + ". Dashed, in the "
            "learner's colour: its mistake bound divided by t — the proven bound of Winnow / ConfidentWinnow / "
            "the perceptron, and for the DP-Winnows (dp_winnow*) the calibrated bound (M+1)(2L−B+1) of the run "
            "(dpbench.theory.dp_winnow_calibrated_bound, holds w.p. ≥ 1 − β = 0.9); a bounded number of mistakes "
            "makes the rate fall as 1/t; a bound line above the plotted range is at or above the grey line up to T there "
            "(vacuous: theory check status vacuous_bound).")
    half = (" Grey line: the trivial predictor's ½ mistake per round. Triangle on the axis: the round at which the "
            "bound/t drops below ½, where the theory says learning starts.")
    return {
        "mistakes_vs_t": Figure("dpbench.plotting.halfspaces_online:mistakes_vs_t",
                                rate + half + " Streams: the small-N, margin-1 halfspaces on which the private learners run; panels "
                                f"at ε ≤ {theory.MEANINGFUL_EPSILON:g} (dp_winnow's runs at larger ε, where the source's rule "
                                "starts to learn, are in the mistakes-against-ε figure)."),
        "mistakes_vs_d": Figure("dpbench.plotting.halfspaces_online:mistakes_vs_d",
                                "Final mistakes (t = T) of the non-private learners against the number of learner features N, "
                                "log–log, one panel per stream order; " + _BANDS + ". Dashed: Winnow's ln N/(ηρ − η²/2), "
                                "ConfidentWinnow's 8 ln N/ρ² (Bun & Fang 2026, Lemma 4.2; constants derived in dpbench.theory.confident_winnow_update_bound) and the perceptron's N/ρ² (bounds; the theory check fits "
                                "the slope in ln N, or in N for the perceptron, beside the exponent 1). The trivial "
                                "predictor's T/2 mistakes is far above the drawn range."),
        "mistakes_vs_rho": Figure("dpbench.plotting.halfspaces_online:mistakes_vs_rho",
                                  "Final mistakes (t = T) of the non-private learners against the margin ρ, log–log; " + _BANDS +
                                  ". Dashed: the proven bounds (∝ ρ⁻²). The trivial predictor's T/2 mistakes is far above "
                                  "the drawn range."),
        "mistakes_vs_epsilon": Figure("dpbench.plotting.halfspaces_online:mistakes_vs_epsilon",
                                      "Private learners' final mistakes (t = T) against ε, log–log, one panel per stream; " + _BANDS +
                                      ". Dashed, in the learner's colour: the run's calibrated bound (M+1)(2L−B+1) at each ε of "
                                      "the grid (holds w.p. ≥ 0.9), drawn where it is ≤ T (above T it is vacuous; the "
                                      "legend says where it is above T at every ε, as for the source's rule dp_winnow); "
                                      "triangle: the smallest ε at which it is below T/2. Dotted: "
                                      "Bun & Fang (2026) Thm 4.5's reconstructed shape ln^1.5 N·√ln(1/δ)·ln(T/β)/(ερ³) with a unit constant — "
                                      "a shape, not this learner's rate and not a bound. Grey line: the trivial predictor's T/2. Shaded: "
                                      f"ε > {theory.MEANINGFUL_EPSILON:g}, where an output may be e^ε > {math.exp(theory.MEANINGFUL_EPSILON):,.0f} "
                                      "times likelier on one stream than on its neighbour — no privacy in any useful sense: the source's "
                                      "rule dp_winnow runs there only to locate where it starts to learn."),
        "dl_as_halfspace": Figure("dpbench.plotting.halfspaces_online:dl_as_halfspace",
                                  "Online decision lists as margin-1/(2^(l+1)−1) halfspaces (Bun & Fang 2026, Lemma 4.10). " + rate
                                  + " Grey line: the best constant predictor's mistake rate, from the list's majority label "
                                  "(exact, from its bits and p; below ½ because a list's labels are unbalanced). Triangle on "
                                  "the axis: the round at which the bound/t drops below that level, where the theory says "
                                  "learning starts."),
    }


EXPERIMENT = register_experiment(
    Experiment(
        id=EXPERIMENT_ID,
        problems=("halfspace", "dl_as_halfspace"),
        size="T",
        run_cell=run_online_cell,
        run_repetition=run_online_repetition,
        theory_check="dpbench.experiments.checks.halfspaces_online:theory_check",
        figures=_figures(),
        test_size=300,
    )
)
