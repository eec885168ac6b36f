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
:func:`calibrated_bound_along_epsilon`);
private rows report the composed (ε, δ) in ``eps_reported``/``delta_reported`` and the rate
in ``eta``.

Theory check (:mod:`dpbench.theory_check.analysis`), one row per curve (learner × every setting that
varies):

- the cumulative mistake rate ``mistakes/t`` against t: a bounded number of mistakes means
  rate ∝ 1/t (exponent −1) once learned; trivial level: the best constant predictor's rate
  (:func:`dpbench.theory_check.trivial.trivial_mistake_rate_of`: ½ on the balanced halfspace streams, the
  majority label's rate on decision lists); at-chance is judged on the late-window rate
  (:func:`dpbench.theory_check.analysis.late_window_rate`: mistakes per round over the last checkpoint
  interval of the stream), the fitted regime is the last contiguous run of checkpoints at most half the
  trivial rate, starting after the last checkpoint window in which some repetition's
  incremental mistakes per round exceed half the trivial rate (``counts="mistakes"``); the recorded bound checked (÷ t) on the maximum
  over repetitions (non-private, deterministic) or the (1 − β)-quantile (DP-Winnow, holds
  w.p. ≥ 1 − β); a bound above the trivial level over the whole horizon is
  ``vacuous_bound``, a curve never clearly below it is ``at_chance``;
- final mistakes against ``ln N`` (Winnow family) or ``N`` (perceptron) along the d sweep,
  against ρ (exponent −2) along the ρ sweep, bounds on the maximum;
- the private learners' final mistakes against ε per stream, against the run's own
  calibrated bound ``(M+1)(2L−B+1)`` at each ε (proven, holds w.p. ≥ 1 − β: checked on the
  (1 − β)-quantile over repetitions; its local exponent in ε is the prediction) — not
  [BF26, Thm 4.5]'s reconstructed shape, which is not the rate of the learner as run (the
  figure still draws it).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.experiments.base import Experiment, Figure, base_row, make_learner, mech_rng, shared_stream
from dpbench.foundation.cell import Cell
from dpbench.foundation.registry import register_experiment
from dpbench.problems.halfspace import log_checkpoints
from dpbench.theory_check.analysis import THEORY_COLUMNS, check_curve, curves, late_window_rate, setting_label
from dpbench.theory_check.calibration import mark_calibration, prescribed_along_epsilon
from dpbench.theory_check.trivial import trivial_mistake_rate_of

BETA = 0.1
EXPERIMENT_ID = "halfspaces_online"
PROBLEM_AXES = ("d", "s", "rho", "order", "domain", "monotone", "l", "p")


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


def final_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Status-ok rows at the end of each stream (t = T)."""
    ok = df[df["status"] == "ok"]
    return ok[ok["t"] == ok["T"]]


def with_rate(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the cumulative mistake rate ``mistake_rate = mistakes/t``."""
    return df.assign(mistake_rate=df["mistakes"] / df["t"])


def sweeps(final: pd.DataFrame, axis: str, problem: str = "halfspace") -> list[pd.DataFrame]:
    """Final rows of the non-private learners that vary only along ``axis`` (≥ 3 values):
    one frame per value of the other problem parameters and T."""
    rows = final[(final["problem"] == problem) & ~final["private"]]
    others = [c for c in PROBLEM_AXES if c != axis and c in rows and rows[c].notna().any()] + ["T"]
    return [group for _, group in rows.groupby(others, dropna=False, sort=True) if group[axis].nunique() >= 3]


def private_streams(df: pd.DataFrame) -> pd.DataFrame:
    """Status-ok rows of the halfspace streams on which a private learner ran (every learner)."""
    ok = df[(df["status"] == "ok") & (df["problem"] == "halfspace")]
    return ok[ok["problem_id"].isin(ok.loc[ok["private"], "problem_id"])]


def _bound_over_t(curve) -> "Callable[[np.ndarray], np.ndarray]":
    bound = float(curve.row["mistake_bound"])
    return lambda t: np.full(np.shape(t), np.nan) if not np.isfinite(bound) else bound / np.asarray(t, dtype=float)


def _sweep_bound(learner: str, axis: str, row: pd.Series) -> "Callable[[np.ndarray], np.ndarray]":
    """The bound along a sweep axis (``n_features`` or ``rho``) with the rest of ``row`` fixed."""
    def at(x):
        values = {**row.to_dict(), axis: np.asarray(x, dtype=float)}
        if learner == "winnow":
            return theory.winnow_mistake_bound(values["n_features"], values["rho"], values["rho"] * float(row["eta"]) / float(row["rho"]))
        if learner == "perceptron":
            return theory.perceptron_mistake_bound(values["n_features"], values["rho"])
        return theory.confident_winnow_update_bound(values["n_features"], values["rho"])
    return at


def calibrated_bound_along_epsilon(curve):
    """``(bound(ε), mismatch)`` of a DP-Winnow curve against ε: the calibrated mistake bound
    (M+1)(2L−B+1) of the calibration the learner's rule prescribes for ε on the curve's stream
    (its ``calibrate`` at the stream's ρ, N and T and the run's δ and β: the theorem's function
    of ε, recomputed here, not read back from the runs), and, per ε whose runs recorded another
    bound in ``mistake_bound``, the ratio
    (:func:`~dpbench.theory_check.calibration.prescribed_along_epsilon`)."""
    r = curve.row
    stream = SimpleNamespace(rho=float(r["rho"]), n_features=int(r["n_features"]), T=int(r["T"]))

    def bound(learner):
        p = learner.calibrate(stream)
        return theory.dp_winnow_calibrated_bound(p.M, p.threshold, p.batch)

    return prescribed_along_epsilon(curve, bound, "mistake_bound")


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    """The theory-check rows (module docstring): mistake rate vs t per curve, final mistakes
    along the N and ρ sweeps, private final mistakes vs ε."""
    E = EXPERIMENT_ID
    rows = []
    ok = with_rate(df[df["status"] == "ok"])
    for _, per_problem in ok.groupby("problem", sort=True):
        for curve in curves(per_problem, exclude=("T",)):
            private = bool(curve.row["private"]) and math.isfinite(curve.row["epsilon"])
            rows.append(check_curve(curve, experiment=E, x="t", y="mistake_rate", rate=_bound_over_t(curve), kind="bound",
                                    trivial=trivial_mistake_rate_of(curve.row), holds_with=1 - BETA if private else 1.0, exponent=-1.0,
                                    late=late_window_rate(curve.rows), counts="mistakes",
                                    regime=f"{curve.row['problem']}: mistakes/t vs t ({setting_label(curve.key)})"))
    final = final_rows(df)
    for axis, x in (("d", "n_features"), ("rho", "rho")):
        for group in sweeps(final, axis):
            for curve in curves(group, exclude=("d", "n_features", "problem_id") if axis == "d" else ("rho", "problem_id")):
                fx = curve.rows.assign(ln_N=np.log(curve.rows["n_features"].astype(float))) if axis == "d" else curve.rows
                xcol = "ln_N" if axis == "d" and curve.learner != "perceptron" else x
                bound = _sweep_bound(curve.learner, x, curve.row)
                rate = (lambda v, b=bound: b(np.exp(v))) if xcol == "ln_N" else bound
                c = type(curve)(learner=curve.learner, key=curve.key, rows=fx)
                r = curve.row
                where = ", ".join(f"{k} = {r[k]:g}" if isinstance(r[k], float) else f"{k} = {r[k]}" for k in ("s", "rho", "d", "order", "domain") if k not in (axis, "d" if axis == "d" else "") and pd.notna(r[k]))
                rows.append(check_curve(c, experiment=E, x=xcol, y="mistakes", rate=rate, kind="bound", holds_with=1.0,
                                        exponent=1.0 if axis == "d" else -2.0, trivial=float(r["T"]) / 2,
                                        regime=f"final mistakes along the {'N' if axis == 'd' else 'ρ'} sweep ({where}, T = {int(r['T'])})"))
    priv = final[final["private"] & np.isfinite(final["epsilon"])]
    for curve in (c for _, p in priv.groupby("problem", sort=True) for c in curves(p, exclude=("epsilon", "T"))):
        r = curve.row
        streams = ok[(ok["learner"] == curve.learner) & (ok["problem_id"] == r["problem_id"]) & (ok["T"] == r["T"])]
        late = {eps: late_window_rate(g) * float(r["T"]) for eps, g in streams.groupby("epsilon")}
        setting = f"{r['problem']}, " + (setting_label(curve.key) or f"N = {int(r['n_features'])}, ρ = {r['rho']:g}")
        bound, off = calibrated_bound_along_epsilon(curve)
        row = check_curve(curve, experiment=E, x="epsilon", y="mistakes", rate=bound, kind="bound", holds_with=1 - BETA,
                          trivial=float(r["T"]) * trivial_mistake_rate_of(r), late=late,
                          regime=f"final mistakes vs ε ({setting}, T = {int(r['T'])}); theory: the calibrated bound "
                                 "(M+1)(2L−B+1) each ε prescribes")
        if row is not None:
            rows.append(mark_calibration(row, off, count=curve.rows["epsilon"].nunique(),
                                         prescribed="calibrated bound (M+1)(2L−B+1) of its rule's calibration"))
    return pd.DataFrame([r for r in rows if r is not None], columns=THEORY_COLUMNS)


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
        theory_check=theory_check,
        figures=_figures(),
        test_size=300,
    )
)
