"""Verdict counts of a theory-vs-practice summary: the headline table of the README, the
summary page and the report's landing page (one function both :mod:`dpbench.reporting.summary`
and :mod:`dpbench.reporting.report_tables` use)."""

from __future__ import annotations

import pandas as pd

from dpbench.theory_check.verdict import VERDICTS


def verdict_counts(table: pd.DataFrame, role: str | None = "prediction") -> pd.DataFrame:
    """Rows per experiment (index) and verdict (columns, in :data:`dpbench.theory_check.verdict.VERDICTS`
    order), of the rows with ``role`` (default: the predictions; None: every row)."""
    if role is not None and "role" in table:
        table = table[table["role"] == role]
    counts = pd.crosstab(table["experiment"], table["verdict"]) if len(table) else pd.DataFrame()
    cols = [v for v in VERDICTS if v in counts.columns]
    counts = counts.reindex(columns=cols, fill_value=0)
    counts.loc["all"] = counts.sum()
    return counts
