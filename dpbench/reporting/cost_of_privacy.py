"""The cost of privacy as files: ``results/theory/cost_of_privacy.csv``, its report page, and
the README's first results table (between :data:`BEGIN` and :data:`END`), all from the
rows of :mod:`dpbench.theory_check.cost_of_privacy`.

The README table keeps, per experiment and private learner, its *main setting* (the problem
setting with the most values of ε, then the most measured ratios, then the largest twin
value: the most resolved denominator) and shows the ratio at the
smallest ε, at the ε closest to 1 and at the largest ε of that setting, each with its 95 %
interval, the predicted ratio and where the interval lies against it; every row of every
setting is in the CSV and on the report page.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from dpbench.foundation.results import atomic_write, read_results, write_text
from dpbench.reporting.report_tables import page_html
from dpbench.theory_check.cost_of_privacy import cost_of_privacy_table

BEGIN = "<!-- cost:begin -->"
END = "<!-- cost:end -->"
CSV_NAME = "cost_of_privacy.csv"

_QUANTITY = {"n*": "examples (n*)", "expected_regret": "expected regret", "mistakes": "mistakes",
             "excess_loss": "excess loss", "pop_excess_loss": "excess population risk"}


def write_cost_of_privacy(results: Iterable[str | Path], out_csv: str | Path, out_html: str | Path | None = None) -> pd.DataFrame:
    """The table from the experiments' results files (``{root}/{experiment}.parquet``; the
    experiment is the file's stem), written atomically as CSV (and its report page)."""

    frames = {Path(p).stem: read_results(p) for p in results}
    table = cost_of_privacy_table(frames)
    atomic_write(Path(out_csv), lambda tmp: table.to_csv(tmp, index=False, float_format="%.6g"))
    if out_html is not None:
        write_text(Path(out_html), cost_html(table))
    return table


def cost_html(table: pd.DataFrame) -> str:
    """The report page: every row (:func:`dpbench.reporting.report_tables.page_html`)."""

    intro = ("<p>Per problem, private learner and ε: the private learner's n*(α) (PAC), expected regret or mistakes at the "
             "largest T (online), excess loss (linear loss) or excess population risk at the largest n (ERM), divided by its "
             "non-private twin's on the same samples; 95% paired percentile bootstrap over repetitions; beside it the ratio "
             "the theorems predict at the same parameters, and whether the interval contains it or lies below or above it. "
             "Method: dpbench/theory_check/cost_of_privacy.py.</p>")
    return page_html(page_view(table), "The cost of privacy: private ÷ non-private twin, measured and predicted", intro, hidden=())


def page_view(table: pd.DataFrame) -> pd.DataFrame:
    """The page's columns: position first; quantity with where it is measured; the ratio with
    its interval and the prediction as text; the twin's kind, the prediction's source and the
    row's note as one numbered note below the table."""
    if table.empty:
        return table

    def interval(r) -> str:
        ci = f" [{_ratio(r['ratio_low'])}, {_ratio(r['ratio_high'])}]" if pd.notna(r["ratio_low"]) else ""
        return f"{_ratio(r['ratio'])}{ci}"

    def note(r) -> str:
        parts = [f"twin: {r['twin_kind']}" if isinstance(r["twin_kind"], str) and r["twin_kind"] else "",
                 f"predicted: {r['prediction']}" if isinstance(r["prediction"], str) and r["prediction"] else "",
                 r["note"] if isinstance(r["note"], str) else ""]
        return "; ".join(p for p in parts if p)

    return pd.DataFrame({
        "position": table["position"], "experiment": table["experiment"], "setting": table["setting"], "learner": table["learner"],
        "twin": table["twin"], "epsilon": table["epsilon"],
        "quantity": [f"{_QUANTITY.get(q, q)} ({a})" if isinstance(a, str) and a else _QUANTITY.get(q, q) for q, a in zip(table["quantity"], table["at"])],
        "private": table["private_value"], "twin value": table["twin_value"],
        "ratio [95% CI]": [interval(r) for _, r in table.iterrows()],
        "predicted": [_predicted(r) for _, r in table.iterrows()], "reps": table["reps"],
        "note": [note(r) for _, r in table.iterrows()],
    })


def _predicted(r: pd.Series) -> str:
    if pd.isna(r["predicted_ratio"]):
        return "—"
    if pd.notna(r.get("predicted_low")):
        return f"{_ratio(r['predicted_low'])}–{_ratio(r['predicted_ratio'])}"
    return _ratio(r["predicted_ratio"])


def _ratio(v: float) -> str:
    if v is None or not math.isfinite(v):
        return "—"
    if v >= 1e5:
        mantissa, exponent = f"{v:.1e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{v:,.0f}" if v >= 100 else f"{v:.2g}" if v < 10 else f"{v:.0f}"


def _eps(v: float) -> str:
    return f"{v:g}"


def _cell(r: pd.Series, show_at: bool = False) -> str:
    if pd.isna(r["ratio"]):
        why = str(r["note"]) if isinstance(r["note"], str) and r["note"] else str(r["position"])
        return f"ε = {_eps(r['epsilon'])}: — ({why.split(';')[0].split(' (')[0]})"
    ci = f" [{_ratio(r['ratio_low'])}, {_ratio(r['ratio_high'])}]" if pd.notna(r["ratio_low"]) else ""
    tail = f"; predicted {_predicted(r)}: {r['position']}" if pd.notna(r["predicted_ratio"]) else "; no prediction"
    at = f" at {r['at']}" if show_at else ""
    return f"ε = {_eps(r['epsilon'])}{at}: **{_ratio(r['ratio'])}×**{ci}{tail}"


def main_settings(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of each (experiment, learner)'s main setting (module doc)."""
    out = []
    table = table.assign(setting=table["setting"].astype(object).where(table["setting"].notna(), ""))
    for _, rows in table.groupby(["experiment", "learner"], sort=True):
        score = rows.groupby("setting").agg(eps=("epsilon", "nunique"), measured=("ratio", "count"), twin=("twin_value", "median"))
        best = score.sort_values(["eps", "measured", "twin"], ascending=False, kind="stable").index[0]
        out.append(rows[rows["setting"] == best])
    return pd.concat(out) if out else table


def cost_section(table: pd.DataFrame) -> str:
    """The README's cost-of-privacy section (Markdown, without the markers)."""
    lines = [
        "<!-- generated by `dpbench readme` from the default run's results/theory/cost_of_privacy.csv: do not edit by hand -->",
        "",
        "**What privacy costs.** How many times more examples (n* to reach error α), mistakes, regret or excess "
        "risk each private learner needs than its non-private twin on the same samples, at its smallest ε, the ε "
        "closest to 1 and its largest ε (main setting of each learner; every setting and ε in "
        "`results/theory/cost_of_privacy.csv` and its report page). Measured: ratio of the private learner's value "
        "to the twin's, with a 95 % paired bootstrap interval over repetitions. Predicted: the same ratio of the "
        "theorems' sufficient sizes or bounds at the same parameters; *below* / *above*: the interval lies below / "
        "above it. Rules: [docs/theory-check.md](docs/theory-check.md#the-cost-of-privacy).",
        "",
        "| problem | private learner ÷ twin | quantity (at) | smallest ε | ε closest to 1 | largest ε |",
        "|---|---|---|---|---|---|",
    ]
    for (exp, learner), rows in main_settings(table).groupby(["experiment", "learner"], sort=True):
        rows = rows.sort_values("epsilon")
        near_one = rows.iloc[(rows["epsilon"].map(lambda e: abs(math.log(e)))).argsort().iloc[0]]
        picks = [rows.iloc[0], near_one, rows.iloc[-1]]
        one_at = len({str(p["at"]) for p in picks}) == 1
        cells = [_cell(r, not one_at) if i == 0 or r.name not in {p.name for p in picks[:i]} else "(same)" for i, r in enumerate(picks)]
        first = rows.iloc[0]
        setting = first["setting"] if isinstance(first["setting"], str) and first["setting"] else ""
        where = f"{exp}" + (f" ({setting})" if setting else "")
        twin = f"{learner} ÷ {first['twin']}" if isinstance(first["twin"], str) and first["twin"] else f"{learner} (no twin)"
        quantity = _QUANTITY.get(first["quantity"], first["quantity"])
        at = f"{quantity} ({first['at']})" if one_at and isinstance(first["at"], str) and first["at"] else quantity
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in [where, twin, at, *cells]) + " |")
    return "\n".join(lines) + "\n"


def readme_cost_section(results_dir: str | Path) -> str:
    """The generated section from a run's ``results/theory/cost_of_privacy.csv``."""
    path = Path(results_dir) / "theory" / CSV_NAME
    if not path.exists():
        raise FileNotFoundError(f"{path}: no cost-of-privacy table (run the workflow first)")
    return cost_section(pd.read_csv(path))
