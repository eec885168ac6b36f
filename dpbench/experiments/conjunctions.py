"""Experiment ``conjunctions``: private PAC learning of conjunctions ([KLNRS11]; [DR14, §11.1]).

Learners ``elimination``, ``erm``, ``exp_mech_erm``, ``sq_conjunction``,
``private_sq_conjunction`` and the ``decision_tree`` reference, over a grid of (n, ε) and
any sweep of the problem (d, noise, …). Theory: :func:`dpbench.theory.conjunction_rates`
gives every learner's curves in one setting — for ``exp_mech_erm`` the derived bound
(:func:`~dpbench.theory.pac.rate_exp_mech_realizable`, compared with the data) beside the
course notes' stated ([NotesPAC, §1]) ``8 ln|C|/(α min(α, ε))`` (drawn, labelled); for ``private_sq_conjunction`` the
bound of the learner as run, with its constants (tolerance τ = α/(2m), so its guarantee
starts only at n₀ = 2m ln(2m/β)/(ε₀α), :func:`~dpbench.theory.pac.rate_private_sq_run`),
and its n* is judged at the learner's own accuracy α (the bound never goes below α/2).

Theory check: :mod:`dpbench.experiments.checks.conjunctions`. Figures: :mod:`dpbench.plotting.conjunctions`.
"""

from __future__ import annotations

from dpbench import theory
from dpbench.experiments.base import Experiment, Figure, run_batch_cell
from dpbench.foundation.registry import register_experiment

BETA, ALPHA = theory.CONJUNCTIONS_BETA, theory.CONJUNCTIONS_ALPHA


_CAPTION_RATES = (
    "Theory lines in the learner's colour (legend): the consistent learners' Occam bound (ln|C| + ln(1/β))/n (Blumer et al. 1987, β = 0.1; the course notes' Thm 1 states the looser 2 ln|C|/n); for exp_mech_erm "
    "the bound derived with a multiplicative Chernoff step (dashed; compared with the data in the theory check) and "
    "the course notes' stated 8 ln|C|/(α·min(α, ε)) (after Kasiviswanathan et al. 2011; dotted); for private_sq_conjunction the rate of the learner "
    "as run, a bound with its constants (tolerance τ = α/(2m), Laplace noise Lap(m/(εn))), "
    "which starts only at n₀ = 2m² ln(2m/β)/(εα) "
    "(triangle on the axis: where a theory says learning starts). Grey horizontal line: the best constant "
    "predictor's error."
)

EXPERIMENT = register_experiment(
    Experiment(
        id="conjunctions",
        problems=("conjunction",),
        size="n",
        run_cell=run_batch_cell,
        theory_check="dpbench.experiments.checks.conjunctions:theory_check",
        figures={
            "error_vs_n": Figure(
                "dpbench.plotting.conjunctions:error_vs_n",
                "Population error (exact for conjunction hypotheses) against the sample size n, one panel per ε "
                "(and per problem setting when a sweep varies one); lines are means over repetitions with 95% "
                "bootstrap bands over repetitions (no band with fewer than 5 repetitions); non-private learners "
                "repeat in every panel; a mean error of exactly 0 is a marker on the lower axis. " + _CAPTION_RATES,
            ),
            "sample_complexity": Figure(
                "dpbench.plotting.conjunctions:sample_complexity",
                f"Empirical sample complexity n*(α={ALPHA}): the n by which ≥ {1 - BETA:.0%} of the repetitions reach "
                "error ≤ α, each repetition's crossing interpolated between grid points (bars: 95% bootstrap over repetitions), against ε, log–log; an ε at which the grid "
                "never gets there is a marker on the upper axis. Lines: theoretical n(α, ε) — exp_mech_erm's derived "
                "bound (dashed) and the course notes' 8 ln|C|/(α·min(α, ε)) (dotted); "
                "private_sq_conjunction's bound as run never reaches α below its floor α_SQ/2 and is not "
                "drawn here (the theory table judges its n* at its own accuracy α_SQ instead).",
            ),
        },
    )
)
