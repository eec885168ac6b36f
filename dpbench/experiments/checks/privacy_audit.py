"""Theory check of experiment ``privacy_audit`` (:mod:`dpbench.experiments.privacy_audit`).

The theory check is ``results/theory/privacy_audit.csv`` with exactly
:data:`dpbench.audits.engine.AUDIT_COLUMNS`, one row per (learner, audit, variant) (and claimed ε).
"""

from __future__ import annotations

import math

import pandas as pd

from dpbench.audits.engine import AUDIT_COLUMNS


def theory_check(df: pd.DataFrame) -> pd.DataFrame:
    """The privacy_audit.csv table: one row per (learner, audit, variant, claim), AUDIT_COLUMNS;
    an audit that did not run (a claim the learner cannot make, a peer library not installed)
    is a row per copy with verdict ``skipped`` and the reason as its note, so the table says
    what was not audited."""
    ok = df[df["status"] == "ok"]
    skipped = df[df["status"] == "skipped"]
    not_run = pd.DataFrame({
        "learner": skipped["learner"], "variant": skipped["variant"], "epsilon_claimed": skipped["epsilon"],
        "delta_claimed": skipped["delta"], "verdict": "skipped", "audit": "", "method": "", "runs": 0,
        "confidence": skipped["confidence"], "instance": "", "note": skipped["reason"].fillna(""),
    })  # fmt: skip
    table = pd.DataFrame({
        "learner": ok["learner"], "variant": ok["variant"], "epsilon_claimed": ok["eps_reported"],
        "delta_claimed": ok["delta_reported"], "neighbours": ok["neighbours"],
        "epsilon_lower_bound": ok["epsilon_lower_bound"], "epsilon_exact": ok["epsilon_exact"].fillna(math.nan),
        "tightness": ok["tightness"].fillna(math.nan), "verdict": ok["verdict"], "audit": ok["audit"], "method": ok["method"],
        "runs": ok["audit_runs"], "confidence": ok["confidence"], "instance": ok["instance"],
        "note": ok["audit_note"].fillna(""),
    })
    table = pd.concat([table, not_run.reindex(columns=table.columns)], ignore_index=True) if len(not_run) else table
    return table.sort_values(["learner", "audit", "variant", "epsilon_claimed"], ascending=[True, False, False, True]).reset_index(drop=True)[AUDIT_COLUMNS]
