"""Experiment ``experts``: prediction with expert advice, private and not ([DR14, §11.2]; [AFKT23]).

Learners ``rwm``, ``private_rwm``, ``private_rwm_tight``, ``private_mw_001``, ``ftl``,
``sv_experts`` on the oblivious sequences of :mod:`dpbench.problems.experts`, over grids of
T, ε and k. One row per (cell, repetition, checkpoint t) with ``regret`` (realized, from
the played actions), ``expected_regret`` (from the played distributions p_t: exact, lower
variance), ``loss`` (average loss of the actions) and ``eta``. Option ``checkpoints``
(default 1): number of log-spaced checkpoints t ≤ T recorded per run.

``private_mw_001`` runs only where dp-accounting's RDP accountant certifies the target
(ε, δ) for [NotesPAC, Thm 3]'s α = sqrt(ε/(12T)) (at δ = 1e-6: from ε ≈ 1.9 on, whatever T); its
other cells are ``skipped`` with the certified δ in ``reason`` (docs/findings.md).

Theory: :mod:`dpbench.theory.experts`; theory check: :mod:`dpbench.experiments.checks.experts`.
Figures: :mod:`dpbench.plotting.experts`, from the recorded ``eta`` column (no calibration
is re-run).
"""

from __future__ import annotations

import time
from collections import OrderedDict

from dpbench.experiments.base import Experiment, Figure, base_row, data_rng, make_learner, mech_rng, shard_cache
from dpbench.foundation.cell import Cell
from dpbench.foundation.registry import register_experiment

#: memory budget of the loss-sequence cache (entries of uint8 codes).
CACHE_ENTRIES = 3 * 10**8

class LossCache:
    """Loss sequences shared by consecutive cells of a shard (same problem, T, rep):
    cells are sorted by (problem, T, learner), so every learner and ε of a (problem, T)
    reuse one draw per repetition. Bounded by total entries, least recently used first."""

    def __init__(self, max_entries: int = CACHE_ENTRIES):
        self.max_entries = max_entries
        self._items: OrderedDict = OrderedDict()

    def get(self, key, make):
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = make()
        self._items[key] = value
        while len(self._items) > 1 and sum(v.codes.size for v in self._items.values()) > self.max_entries:
            self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        self._items.clear()


_losses = shard_cache(LossCache())  # emptied when the shard ends


def run_experts_cell(cell: Cell, target, root_seed: int) -> list[dict]:
    """Experts cell: per repetition draw the oblivious sequence (data stream), run the
    learner (mech stream), one row per checkpoint. Learners that cannot run a horizon
    (e.g. ``private_mw_001`` whose δ(T) exceeds the target) give ``skipped`` rows."""
    learner = make_learner(cell)
    T = cell.size
    k = target.k if hasattr(target, "k") else target.d
    reason = learner.supports(target)
    if reason is None and hasattr(learner, "supports_horizon"):
        reason = learner.supports_horizon(T, k)
    n_checkpoints = int(dict(cell.options).get("checkpoints", 1))
    rows = []
    for rep in cell.reps:
        base = base_row(cell, rep, root_seed, learner)
        base.update(target.columns())
        if reason is not None:
            base.update(status="skipped", reason=reason, t=T)
            rows.append(base)
            continue
        losses = _losses.get((cell.problem_id, root_seed, T, rep), lambda: target.losses(T, rng=data_rng(cell, rep, root_seed)))
        start = time.perf_counter()
        trace = learner.run(losses, rng=mech_rng(cell, rep, root_seed), n_checkpoints=n_checkpoints)
        seconds = time.perf_counter() - start
        regret, expected = trace.regret, trace.expected_regret
        for j, t in enumerate(trace.t):
            row = dict(base)
            row.update(
                t=int(t),
                regret=float(regret[j]),
                expected_regret=float(expected[j]),
                loss=float(trace.alg_loss[j] / t),
                fit_seconds=seconds,
                **trace.diagnostics,
            )
            rows.append(row)
    return rows


_CAPTION_COMMON = (
    "Lines are means over repetitions with 95% bootstrap bands over repetitions (none with fewer than 5); "
    "dashed, in the learner's colour: Dwork & Roth (2014) Thm 11.1's bound eta + ln k/(eta T) at the eta each run recorded "
    "(interpolated between grid points), the bound checked in results/theory/experts.csv; grey line: the regret of "
    "uniform play, gap (1 - 1/k) on stochastic sequences; triangles on the axis: where the bound drops below it "
    "(where the theory says learning starts); private_mw_001 runs only where the RDP accountant certifies "
    "the course notes' alpha = sqrt(eps/(12T)) (a legend entry names the epsilon at which it was skipped)."
)

FIGURES = {
    "regret_vs_horizon": Figure(
        "dpbench.plotting.experts:regret_vs_T",
        "Average expected regret (from the played distributions) against the horizon T on stochastic sequences, "
        "one panel per (k, epsilon) of every T sweep, log-log; non-private learners in every panel. " + _CAPTION_COMMON,
    ),
    "regret_vs_epsilon": Figure(
        "dpbench.plotting.experts:regret_vs_epsilon",
        "Average expected regret of the private learners against epsilon at the horizon T of the epsilon sweep, "
        "log-log; dotted: rwm's measured regret (non-private). " + _CAPTION_COMMON,
    ),
    "regret_vs_k": Figure(
        "dpbench.plotting.experts:regret_vs_k",
        "Average expected regret against the number of experts k at fixed T (private learners at the epsilon of the "
        "sweep); dashed: Thm 11.1 at the recorded eta; grey dotted: uniform play's regret gap (1 - 1/k), which "
        "grows with k.",
    ),
    "ftl_trap": Figure(
        "dpbench.plotting.experts:ftl_trap",
        "The FTL trap (losses (1/2, 0), (0, 1), (1, 0), ...): average expected regret against T. Follow-the-leader "
        "always picks the expert about to lose: its regret stays at 1/2 (dark dotted line: linear regret, drawn over "
        "its data); RWM and its private version decay under Thm 11.1's bound at their recorded eta (dashed). "
        "Uniform play has regret about 0 here, so no grey level is drawn.",
    ),
    "coin": Figure(
        "dpbench.plotting.experts:coin",
        "Fair coins (every expert's loss an independent fair coin): average expected regret against T, log-log. "
        "A lower-bound check of the instance, not a verdict on any learner (its theory-check rows are labelled "
        "sanity, claim lower, and are not counted): uniform play does as well here. "
        "No expert is better in expectation, so every learner's regret is the best-in-hindsight fluctuation and "
        "the order sqrt(ln k / T) of Thm 11.1's bound is attained (unlike the stochastic gap sequences, where the "
        "regret is the bound's ln k/(eta T) term and FTL is best). Dashed, in the learner's colour: Thm 11.1's "
        "bound eta + ln k/(eta T) at the recorded eta; grey: the minimax lower bound sqrt(ln k/(2T)) "
        "(Cesa-Bianchi & Lugosi 2006, Thm 3.7, asymptotic in T and k). Lines are means over repetitions with 95% "
        "bootstrap bands (none with fewer than 5).",
    ),
    "realizable": Figure(
        "dpbench.plotting.experts:realizable",
        "Realizable sequences (one expert never loses): average realized regret against T. Dashed: Thm 11.1 at the "
        "recorded eta plus the Azuma term sqrt(2 ln(1/beta)/T) (holds with probability 1 - beta, beta = 0.1); "
        "dashed in sv_experts' colour: its bound 2 Lambda/T, derived with constants from the sparse "
        "vector's Laplace tails (holds with probability 1 - p, p <= 0.08 on the paper grid); grey: uniform play's "
        "regret (k - 1)/(2k).",
    ),
    "tight_accounting": Figure(
        "dpbench.plotting.experts:tight_accounting",
        "private_rwm_tight (each round eta^2/2-zCDP, T rounds composed by dp-accounting's RDP accountant) against "
        "private_rwm (advanced composition, Dwork & Roth 2014 Thm 11.2) at the same (epsilon, delta): average expected regret "
        "against T, one panel per epsilon; the panel title gives the ratio of their recorded learning rates. "
        + _CAPTION_COMMON,
    ),
}


EXPERIMENT = register_experiment(
    Experiment(
        id="experts",
        problems=("experts",),
        size="T",
        run_cell=run_experts_cell,
        theory_check="dpbench.experiments.checks.experts:theory_check",
        figures=FIGURES,
        test_size=200,
    )
)
