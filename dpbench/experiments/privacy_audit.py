"""Experiment ``privacy_audit``: every private learner and mechanism audited, correct and
broken copies (issue 10; end to end through each learner's own code, issue 19).

Cells: problem ``audit_pairs`` (no drawn data) and, in place of ``learners``, a list of
``audits`` (names registered in :mod:`dpbench.audits`, or plugin learners with an
``audit_cases`` classmethod): the audits are not learners, and the learner registry holds
learners only (:data:`AUDIT_UNITS` is this experiment's own way to check, cost and run
them). The claim (ε, δ) comes from the cell and ``n`` = runs per side; the per-bound
confidence is ``options.confidence`` (default 0.999: a correct copy is refuted with
probability ≤ 2e-3 per row). Each audit gives its rows (``variant`` = ``correct`` /
``broken``; a component audit adds a labelled pair) with the audited name in ``learner``,
the claim in ``eps_reported``/``delta_reported``/``neighbours``, the lower bound and its
``method``, the exact ε(δ) where computable, ``tightness``, the audit's ``verdict``
(:func:`dpbench.audits.engine.judge`) and a ``note`` (how a broken copy is broken; why a correct
row's bound falls short of its target, generated from its numbers). An audit that cannot be made at the cell's claim (e.g.
``private_mw_001`` where it does not run) gives ``skipped`` rows with the reason.

Theory check: :mod:`dpbench.experiments.checks.privacy_audit`. Figure ``""`` → ``privacy_audit.pdf|png``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from dpbench.audits import audited_names, cases_for, predicted_seconds
from dpbench.audits.engine import AUDIT_COLUMNS, run_cases
from dpbench.experiments.base import Experiment, Figure
from dpbench.foundation import registry
from dpbench.foundation.cell import Cell
from dpbench.foundation.registry import register_experiment
from dpbench.foundation.results import make_row
from dpbench.learners.peers import PeerMissing

DEFAULT_CONFIDENCE = 0.999


@dataclass(frozen=True)
class AuditUnits:
    """The units of ``privacy_audit`` cells (``audits:`` in the config), for
    :func:`dpbench.orchestration.config._expand_units` and :mod:`dpbench.orchestration.cost`: checked and costed from the
    audit registry alone (no learner imported: planning stays light)."""

    key: str = "audits"

    @staticmethod
    def check(name: str, epsilon: float, delta: float) -> None:
        """A registered audit, or a plugin learner declaring ``audit_cases`` (the cases are
        built when the cell runs: a claim the learner cannot make gives skipped rows)."""

        if name in audited_names() or (registry.is_learner(name) and hasattr(registry.learner(name), "audit_cases")):
            return
        raise ValueError(f"no audit registered for {name!r}; audited: {', '.join(audited_names())}")

    @staticmethod
    def cost(cell: Cell) -> float:
        """Seconds: the audit's registered cost at ``n`` runs per side."""

        return predicted_seconds(cell.learner, cell.size)


AUDIT_UNITS = AuditUnits()


def run_audit_cell(cell: Cell, target, root_seed: int) -> list[dict]:

    confidence = float(dict(cell.options).get("confidence", DEFAULT_CONFIDENCE))
    common = dict(
        experiment=cell.experiment, problem=cell.problem, problem_id=cell.problem_id, private=True,
        epsilon=cell.epsilon, delta=cell.delta, n=cell.size, rep=0, cell_key=cell.key_string(), root_seed=root_seed,
        confidence=confidence,
    )
    def skipped(reason: str) -> list[dict]:
        return [make_row(**common, learner=cell.learner, variant=v, status="skipped", reason=reason) for v in ("correct", "broken")]

    try:
        cases = cases_for(cell.learner, epsilon=cell.epsilon, delta=cell.delta, accounting=True)
    except (ValueError, PeerMissing) as exc:  # a claim the learner cannot make; a peer not installed
        return skipped(str(exc))
    start = time.perf_counter()
    try:
        rows = run_cases(cases, runs=cell.size, confidence=confidence, seed=root_seed)
    except PeerMissing as exc:  # a peer audited through its own code, its library not installed
        return skipped(str(exc))
    seconds = (time.perf_counter() - start) / max(len(rows), 1)
    return [make_row(
        **common, learner=row["learner"], variant=row["variant"], eps_reported=row["epsilon_claimed"],
        delta_reported=row["delta_claimed"], neighbours=row["neighbours"], epsilon_lower_bound=row["epsilon_lower_bound"],
        epsilon_exact=row["epsilon_exact"], tightness=row["tightness"], verdict=row["verdict"], audit=row["audit"],
        method=row["method"], audit_runs=row["runs"], instance=row["instance"], audit_note=row["note"], fit_seconds=seconds, status="ok",
    ) for row in rows]


EXPERIMENT = register_experiment(
    Experiment(
        id="privacy_audit",
        problems=("audit_pairs",),
        size="n",
        run_cell=run_audit_cell,
        theory_check="dpbench.experiments.checks.privacy_audit:theory_check",
        figures={
            "": Figure(
                "dpbench.plotting.privacy_audit:audit_bounds",
                "Privacy audit: per audited learner or mechanism (end to end through the learner's own code; "
                "component rows labelled), the empirical lower bound on ε of the correct copy and of a broken copy "
                "(the same learner with a calibration error, same claim), and the exact ε(δ) of each copy's output "
                "law where computable, all divided by the claimed ε (dashed line = the claim). Correct copies sit "
                "at or below 1, broken copies above it.",
            ),
        },
        test_size=2000,
        theory_columns=tuple(AUDIT_COLUMNS),
        units=AUDIT_UNITS,
    )
)
