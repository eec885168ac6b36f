"""Experiment ``privacy_audit``: every private learner and mechanism audited, correct and
broken (issue 10).

Cells: problem ``audit_pairs`` (no drawn data), learner ``auditor`` with
``learner_params: {auditor: {target: [names...]}}``, the claim (ε, δ) from the cell and
``n`` = runs per side; the per-bound Clopper–Pearson confidence is ``options.confidence``
(default 0.999: a correct copy is refuted with probability ≤ 2e-3 per row). Each cell gives
two rows (``variant`` = ``correct`` / ``broken``) with the audited name in ``learner``, the
audited claim in ``eps_reported``/``delta_reported``/``neighbours`` (a component audit
claims the component's per-round ε), the lower bound, the exact ε(δ) where computable and
the instance. An audit that cannot be made at the cell's claim (e.g. ``private_mw_001``
where it does not run) gives ``skipped`` rows with the reason.

Theory check = ``results/theory/privacy_audit.csv`` with exactly
:data:`dpbench.audit.AUDIT_COLUMNS`, one row per (learner, variant) (and claimed ε).
Figure ``""`` → ``results/figures/privacy_audit.pdf|png``.
"""

from __future__ import annotations

import math
import time

import pandas as pd

from dpbench.audit import AUDIT_COLUMNS, run_case
from dpbench.experiment import Experiment, Figure, make_learner
from dpbench.grid import Cell
from dpbench.registry import register_experiment
from dpbench.results import make_row

DEFAULT_CONFIDENCE = 0.999


def run_audit_cell(cell: Cell, target, root_seed: int) -> list[dict]:
    auditor = make_learner(cell)
    confidence = float(dict(cell.options).get("confidence", DEFAULT_CONFIDENCE))
    common = dict(
        experiment=cell.experiment, problem=cell.problem, problem_id=cell.problem_id, private=True,
        epsilon=cell.epsilon, delta=cell.delta, n=cell.size, rep=0, cell_key=cell.key_string(), root_seed=root_seed,
        confidence=confidence,
    )
    try:
        cases = auditor.cases()
    except ValueError as exc:
        return [make_row(**common, learner=auditor.target, variant=v, status="skipped", reason=str(exc)) for v in ("correct", "broken")]
    rows = []
    for case in cases:
        start = time.perf_counter()
        row = run_case(case, runs=cell.size, confidence=confidence, seed=root_seed)
        rows.append(make_row(
            **common, learner=case.learner, variant=case.variant, eps_reported=case.epsilon, delta_reported=case.delta,
            neighbours=case.neighbours, epsilon_lower_bound=row["epsilon_lower_bound"], epsilon_exact=row["epsilon_exact"],
            instance=case.instance + (f" [component: {case.component}]" if case.component else ""),
            fit_seconds=time.perf_counter() - start, status="ok",
        ))
    return rows


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    """The privacy_audit.csv table: one row per (learner, variant, claim), AUDIT_COLUMNS."""
    ok = df[df["status"] == "ok"]
    table = pd.DataFrame({
        "learner": ok["learner"], "variant": ok["variant"], "epsilon_claimed": ok["eps_reported"],
        "delta_claimed": ok["delta_reported"], "neighbours": ok["neighbours"],
        "epsilon_lower_bound": ok["epsilon_lower_bound"], "epsilon_exact": ok["epsilon_exact"].fillna(math.nan),
        "runs": ok["n"], "confidence": ok["confidence"], "instance": ok["instance"],
    })
    return table.sort_values(["learner", "variant", "epsilon_claimed"], ascending=[True, False, True]).reset_index(drop=True)[AUDIT_COLUMNS]


EXPERIMENT = register_experiment(
    Experiment(
        id="privacy_audit",
        problems=("audit_pairs",),
        size="n",
        run_cell=run_audit_cell,
        theory_check=theory_check,
        figures={
            "": Figure(
                "dpbench.plotting.privacy_audit:audit_bounds",
                "Privacy audit: per audited learner or mechanism, the Clopper–Pearson lower bound on ε of the "
                "correct copy and of a broken copy (noise halved or rate doubled, same claim), divided by the "
                "claimed ε (dashed line = the claim); diamonds: the exact ε(δ) of the pair where computable. "
                "Correct copies sit at or below 1 (tightness), broken copies above it (power).",
            ),
        },
        test_size=2000,
        theory_columns=tuple(AUDIT_COLUMNS),
    )
)
