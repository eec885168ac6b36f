"""Experiment ``decision_lists``: private PAC learning of k-decision lists ([Riv87];
[BF26, §3 and Appendix A, Thm 3.5]).

Learners ``rivest``, ``privdl``, ``privdl_composition``, ``exp_mech_erm`` / ``erm`` over whole
decision lists (tiny d only: the class is enumerated and capped by ``max_hypotheses``; above
the cap the row is ``skipped`` with the class size) and the ``decision_tree`` reference,
over grids of n, ε and problems (d, k) — the latter give the |F| axis.

Theory: :func:`dpbench.theory.dl_rates_of` gives every learner's curves in one setting
(Rivest's Occam bound; the exponential mechanism's derived bound beside [NotesPAC, §1]'s formula;
privdl's bound as run, derived with constants (:func:`dpbench.theory.n_privdl_run`), beside
Theorem 3.5's shape; the composition ablation's bound as run, the same derivation at its per-round
budget from composition, :func:`dpbench.theory.n_privdl_composition_run`, ∝ |F|^{3/2}).
Trivial level: the majority label's error of the drawn target
(:func:`dpbench.theory_check.trivial.dl_trivial_error_of`: a property of the drawn target, computed in the analysis layer).

Theory check: :mod:`dpbench.experiments.checks.decision_lists`. Figures: :mod:`dpbench.plotting.decision_lists`.
"""

from __future__ import annotations

from dpbench import theory
from dpbench.experiments.base import Experiment, Figure, run_batch_cell
from dpbench.foundation.registry import register_experiment

BETA, ALPHA = theory.DL_BETA, theory.DL_ALPHA

_CAPTION_LINES = (
    "Theory lines in the learner's colour (legend), all for the realizable case: rivest/erm: Occam bound "
    "(ln|C| + ln(1/β))/n, β = 0.1 (a bound); exp_mech_erm: the bound derived with a multiplicative Chernoff step "
    "(dashed; compared with the data in the theory check) and the course notes' stated 8 ln|C|/(α·min(α, ε)) (dotted); "
    "privdl: the bound of the learner as run, derived with constants from Bun & Fang's Lemma A.4 and a union "
    "bound over the class (dashed; compared with the data) and Theorem 3.5's shape with unit constants "
    "(reconstructed; dotted, not compared); "
    "privdl_composition: its bound as run, the same derivation at its per-round budget from advanced composition "
    "(dashed; compared with the data). A theory line above error 1 (privdl_composition's bound at small ε or n, "
    "privdl's on the tiny problems at small ε) lies above the plotted range. "
    "Triangles on the lower axis: where a theory line drops below the "
    "grey line, the error of the drawn target's majority label (the best constant predictor)."
)
_CAPTION_CURVES = (
    "Lines: means over repetitions with 95% bootstrap bands over repetitions (none with fewer than 5); "
    "non-private learners repeat in every panel; a mean error of exactly 0 is a hollow marker on the lower axis. "
)

EXPERIMENT = register_experiment(
    Experiment(
        id="decision_lists",
        problems=("decision_list",),
        size="n",
        run_cell=run_batch_cell,
        theory_check="dpbench.experiments.checks.decision_lists:theory_check",
        figures={
            "error_vs_n": Figure(
                "dpbench.plotting.decision_lists:error_vs_n",
                "Population error (held-out sample of 50,000, noise added exactly) against n on the main decision-list "
                "problem, one panel per ε. " + _CAPTION_CURVES + _CAPTION_LINES,
            ),
            "error_vs_n_small_d": Figure(
                "dpbench.plotting.decision_lists:error_vs_n_small_d",
                "Population error against n on the tiny 1-decision-list problems where the exponential mechanism over "
                "whole lists (|C| = 1,266 at d = 2, 151,946 at d = 3) runs, one panel per problem and ε; privdl on the "
                "same problems. " + _CAPTION_CURVES + _CAPTION_LINES,
            ),
            "sample_complexity": Figure(
                "dpbench.plotting.decision_lists:sample_complexity",
                f"Empirical sample complexity n*(α={ALPHA}): the n by which ≥ {1 - BETA:.0%} of the repetitions reach "
                "error ≤ α, each repetition's crossing interpolated between grid points (bars: 95% bootstrap over repetitions), against ε, log–log, one panel per problem run "
                "at several ε; an ε at which the grid never gets there is a marker on the upper axis; non-private "
                "learners' n* as horizontal lines. Lines: theoretical n(α, ε): privdl's bound as run, derived with "
                "constants (dashed), and its Theorem 3.5 shape with unit constants (dotted); "
                "privdl_composition's bound as run, derived with constants at its per-round budget from "
                "composition (dashed).",
            ),
            "sample_complexity_features": Figure(
                "dpbench.plotting.decision_lists:sample_complexity_features",
                f"Empirical n*(α={ALPHA}) against |F| over the (d, k) sweep (same list length, alternations and input "
                "bias), at each ε of the sweep, on the repetitions every problem has; bars: 95% bootstrap over repetitions; an |F| "
                "at which the grid never reaches α is a marker on the upper axis. Lines: theoretical n(α) as |F| varies "
                "(privdl's bound as run ∝ |F| log|F| log(1/δ)/ε, derived with constants; "
                "privdl_composition's bound as run ∝ |F|^(3/2) log|F|, derived with constants, "
                "and Rivest's Occam bound ∝ |F| log|F|).",
            ),
            "runtime": Figure(
                "dpbench.plotting.decision_lists:runtime",
                "Mean fit time per example (fit seconds / n at the largest n of each problem; bands: 95% bootstrap over "
                "repetitions) against |F|, log–log, measured under the machine's load at run time. privdl and rivest cost "
                "O(n|F| + |F|²) per run (dotted: that shape through privdl's largest |F|); the exponential mechanism over "
                "whole decision lists enumerates |C| = e^(Θ(|F| log|F|)) lists (dashed: ∝ |C| through its measured points) "
                "and is skipped above its max_hypotheses cap (crosses: the extrapolated cost of the skipped problems).",
            ),
        },
        test_size=200,
    )
)
