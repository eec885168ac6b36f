"""Tables of the HTML report, readable at a glance: the theory checks, the privacy audit and
the theory-vs-practice summary (``results/theory/*.html`` and the report's landing page).

:func:`table_html` puts the verdict first (or ``status`` where there is no verdict column),
coloured by what it says (:data:`GOOD`, :data:`BAD`, :data:`WARN`), then the identifying
columns, then the numbers (3 significant digits); a fitted slope and its interval become
one cell; columns that are empty in every row are left out; long identifiers
(``dp_winnow_batched_tight``) may break after an underscore; text longer than
:data:`FOLD_CHARS` characters (notes, instances) is folded under its first words
(``<details>``), so rows stay one or two lines high and the table fits a report pane; notes
(:data:`BELOW`) are numbered in their column and written out in full below the table.
"""

from __future__ import annotations

import html
import math

import pandas as pd

from dpbench.foundation.results import write_text
from dpbench.reporting.counts import verdict_counts

#: Verdicts and statuses a reader may trust as "the check passed".
GOOD = {"agrees", "ok", "pass", "caught"}
#: ... as "the check found a disagreement or a violation".
BAD = {"steeper", "shallower", "violation", "fail", "failed", "missed", "refuted"}
#: ... as "the check could not judge".
WARN = {"inconclusive", "at_chance", "vacuous_bound", "floor", "too_few_points", "too_few_reps", "no_points", "no_power"}
#: Text longer than this is folded (notes, instances; identifying text up to :data:`SHOW_CHARS`).
FOLD_CHARS = 24
SHOW_CHARS = 140
#: Identifiers longer than this (``dp_winnow_batched_tight``) may break after an underscore.
BREAK_CHARS = 16
#: Columns whose long text is folded.
FOLDED = {"instance", "method", "audit", "where", "source", "theorem"}
#: Columns written out below the table (each distinct text once, numbered, in full); the
#: row's cell holds the number, linked to it. Notes are long prose: in a cell they would make
#: the table wider than the report's pane or hide behind a fold.
BELOW = {"note"}
#: Columns never shown (the page says which experiment it is).
HIDDEN = {"experiment"}
#: Columns the landing page's summary leaves to the summary page (it must fit beside the sidebar).
LANDING_HIDDEN = {"x", "y", "reps", "where", "bound_ratio"}
#: Identifying columns, in this order, right after the verdict.
IDENTITY = ["learner", "source", "theorem", "variant", "regime", "x", "y", "epsilon_claimed", "delta_claimed"]

STYLE = """
body{font-family:system-ui,sans-serif;font-size:11px;margin:8px;color:#222}
h3{font-size:14px;margin:4px 0 8px}
table.dpbench{border-collapse:collapse;width:100%;table-layout:auto}
table.dpbench td,table.dpbench th{border-bottom:1px solid #e3e3e3;padding:2px 4px;text-align:right;vertical-align:top;white-space:normal}
table.dpbench th{background:#f2f2f2;white-space:normal;font-weight:600;position:sticky;top:0}
table.dpbench td.text{text-align:left;white-space:normal;min-width:9em;max-width:18em}
table.dpbench td.name{text-align:left;white-space:nowrap}
table.dpbench td.ident{text-align:left;white-space:normal}
table.dpbench td.folded{text-align:left;white-space:normal;overflow-wrap:anywhere;min-width:7em;max-width:12em}
table.dpbench td.verdict{text-align:left;font-weight:600;white-space:nowrap}
table.dpbench td.ref{text-align:center}
ol.notes{margin:6px 0;padding-left:3em} ol.notes li{margin:2px 0;overflow-wrap:anywhere}
.good{background:#d9f0d3;color:#1b5e20} .bad{background:#f8d0cc;color:#8e1b10} .warn{background:#fcefc7;color:#6d4c00}
.neutral{background:#eceff4;color:#37474f}
details summary{cursor:pointer;color:#345} details[open] summary{color:#888}
p.legend span{padding:0 4px;margin-right:6px}
div.dpbench-filter{margin:4px 0} div.dpbench-filter input{font-size:11px;width:22em;margin-right:8px}
table.dpbench th[aria-sort=ascending]::after{content:" \\25B2"} table.dpbench th[aria-sort=descending]::after{content:" \\25BC"}
"""


def verdict_class(value) -> str:
    """CSS class of a verdict or status cell: good, bad, warn or neutral."""
    v = str(value).strip().lower()
    return "good" if v in GOOD else "bad" if v in BAD else "warn" if v in WARN else "neutral"


def _number(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, float):
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        return f"{v:.3g}"
    return html.escape(str(v))


def _text(v, limit: int = FOLD_CHARS) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    s = str(v)
    if len(s) <= limit:
        return html.escape(s)
    head = s[:limit].rsplit(" ", 1)[0] if " " in s[:limit] else s[:limit]
    return f"<details><summary>{html.escape(head)} …</summary>{html.escape(s)}</details>"


def _columns(df: pd.DataFrame, hidden=()) -> tuple[str | None, list[str]]:
    verdict = "verdict" if "verdict" in df else "status" if "status" in df else None
    keep = [c for c in df.columns if c not in hidden and c != verdict and df[c].notna().any()
            and not (df[c].astype(str).str.strip() == "").all()]
    ident = [c for c in IDENTITY if c in keep]
    rest = [c for c in keep if c not in ident]
    return verdict, ident + rest


def table_html(df: pd.DataFrame, hidden=()) -> str:
    """``df`` as one ``<table class="dpbench">`` (see the module doc), without the columns
    ``hidden``."""
    verdict, cols = _columns(df, hidden)
    merged = {"fitted_slope", "slope_ci_low", "slope_ci_high"} <= set(cols)
    arrow = {"x", "y"} <= set(cols)
    above = {"cells_above_bound", "cells"} <= set(cols)
    drop = ({"slope_ci_low", "slope_ci_high"} if merged else set()) | ({"y"} if arrow else set()) | (
        {"cells", "share_above_bound"} if above else set())
    if verdict == "verdict":
        drop.add("status")  # the verdict says what the status says, and more
    span = {"x_min", "x_max"} <= set(cols)
    if span:
        drop.add("x_max")
    cols = [c for c in cols if c not in drop]
    folded = {c for c in cols if c in FOLDED and df[c].dropna().astype(str).str.len().gt(FOLD_CHARS).any()}
    cols = [c for c in cols if c not in folded | BELOW] + [c for c in cols if c in folded] + [c for c in cols if c in BELOW]
    notes: dict[str, int] = {}  # a BELOW column's text -> its number
    names = {"x_min": "x range", "fitted_slope": "fitted slope [95% CI]" if merged else "fitted slope", "x": "x → y" if arrow else "x",
             "cells_above_bound": "cells above bound"}
    head = ([f"<th>{verdict}</th>"] if verdict else []) + [f"<th>{html.escape(names.get(c, c.replace('_', ' ')))}</th>" for c in cols]
    body = []
    for _, row in df.iterrows():
        cells = [f"<td class='verdict {verdict_class(row[verdict])}'>{_text(row[verdict], SHOW_CHARS)}</td>"] if verdict else []
        for c in cols:
            v = row[c]
            if c == "fitted_slope" and merged:
                lo, hi = row["slope_ci_low"], row["slope_ci_high"]
                ci = f" [{_number(lo)}, {_number(hi)}]" if pd.notna(lo) and pd.notna(hi) else ""
                cells.append(f"<td>{_number(v)}{ci}</td>")
            elif c == "x" and arrow:
                cells.append(f"<td class='name'>{_text(v, SHOW_CHARS)} → {_text(row['y'], SHOW_CHARS)}</td>")
            elif c == "x_min" and span:
                cells.append(f"<td>{_number(v)}–{_number(row['x_max'])}</td>" if pd.notna(v) else "<td></td>")
            elif c == "cells_above_bound" and above:
                cells.append(f"<td>{_number(v)} / {_number(row['cells'])}</td>" if pd.notna(row["cells"]) else "<td></td>")
            elif c in BELOW:
                text = "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v).strip()
                number = notes.setdefault(text, len(notes) + 1) if text else None
                cells.append(f"<td class='ref'><a href='#dpbench-note-{number}'>{number}</a></td>" if number else "<td></td>")
            elif c in folded:
                cells.append(f"<td class='folded'>{_text(v)}</td>")
            elif isinstance(v, str) and "_" in v and " " not in v and BREAK_CHARS < len(v) <= SHOW_CHARS:  # a long identifier
                cells.append(f"<td class='ident'>{html.escape(v).replace('_', '_<wbr>')}</td>")
            elif isinstance(v, str):
                cls = "text" if len(v) > 30 else "name"
                cells.append(f"<td class='{cls}'>{_text(v, SHOW_CHARS)}</td>")
            else:
                cells.append(f"<td>{_number(v.item() if hasattr(v, 'item') else v)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    table = f"<table class='dpbench'><thead><tr>{''.join(head)}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return table + notes_html(notes)


def notes_html(notes: dict[str, int]) -> str:
    """The numbered list below a table: every distinct note once, in full (``text -> number``)."""
    if not notes:
        return ""
    items = "".join(f"<li id='dpbench-note-{n}' value='{n}'>{html.escape(text)}</li>" for text, n in notes.items())
    return f"<p class='legend'><b>Notes</b> (the number in a row's note column)</p><ol class='notes'>{items}</ol>"


def counts_html(df: pd.DataFrame) -> str:
    """One line: how many rows have each verdict (or status), each in its colour."""
    verdict, _ = _columns(df)
    if verdict is None or df.empty:
        return ""
    counts = df[verdict].fillna("").astype(str).value_counts()
    spans = [f"<span class='{verdict_class(v)}'>{html.escape(v or '—')}: {n}</span>" for v, n in counts.items()]
    return "<p class='legend'>" + " ".join(spans) + "</p>"


def sort_filter_script() -> str:
    """The ``<script>`` that makes every ``table.dpbench`` of a page sortable (click a column
    header) and filterable (a box above it): ``dpbench/reporting/report_tables.js``, inlined, so the
    page needs no network and no other file."""
    from importlib.resources import files

    return "<script>" + files("dpbench.reporting").joinpath("report_tables.js").read_text(encoding="utf-8") + "</script>"


def page_html(df: pd.DataFrame, title: str, intro: str = "", hidden=HIDDEN) -> str:
    """A whole HTML page: title, the verdict counts, ``intro`` (HTML), the table (without
    the columns ``hidden``: by default the experiment, which the title names), sortable and
    filterable in the page (:func:`sort_filter_script`)."""
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><meta name='viewport' content='width=device-width'>"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
            f"<h3>{html.escape(title)}</h3>{counts_html(df)}{intro}{table_html(df, hidden)}{sort_filter_script()}</body></html>")


#: Columns of the landing page's summary table (``results/theory/summary.csv``), in order.
SUMMARY_COLUMNS = ["verdict", "experiment", "learner", "source", "theorem", "regime", "predicted_exponent",
                   "measured_exponent", "ci_low", "ci_high", "bound_ratio", "where"]


def summary_view(table: pd.DataFrame) -> pd.DataFrame:
    """The summary table's columns in reading order (:data:`SUMMARY_COLUMNS` first), the
    measured exponent and its interval as one ``fitted slope [95% CI]`` cell."""
    cols = [c for c in SUMMARY_COLUMNS if c in table] + [c for c in table if c not in SUMMARY_COLUMNS]
    table = table[cols]
    if {"measured_exponent", "ci_low", "ci_high"} <= set(table):
        table = table.rename(columns={"measured_exponent": "fitted_slope", "ci_low": "slope_ci_low", "ci_high": "slope_ci_high"})
    return table


#: where the cost-of-privacy table goes on the landing page (built by the theory issue's
#: ``results/theory/cost_of_privacy.csv``; shown when the file exists)
COST_OF_PRIVACY = "cost_of_privacy.csv"


def _counts_table(counts: pd.DataFrame) -> str:
    """Verdict counts (rows: experiments and ``all``; columns: verdicts), each non-zero count in its verdict's colour."""
    head = "<th>experiment</th>" + "".join(f"<th class='{verdict_class(v)}'>{html.escape(v.replace('_', ' '))}</th>" for v in counts.columns)
    rows = []
    for name, row in counts.iterrows():
        cells = "".join(f"<td class='{verdict_class(v) if n else ''}'>{int(n) if n else ''}</td>" for v, n in row.items())
        rows.append(f"<tr><td class='name'>{'<b>all</b>' if name == 'all' else html.escape(str(name))}</td>{cells}</tr>")
    return f"<table class='dpbench counts'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def landing_counts(theory_csvs, summary_csvs) -> tuple[pd.DataFrame, str]:
    """The landing page's verdict counts and their title: rows of the theory-vs-practice
    summary per experiment and verdict (:func:`dpbench.reporting.counts.verdict_counts`) when there is
    one (``summary_csvs``), else the theory checks' rows per experiment and verdict (or status)."""

    if summary_csvs:
        return verdict_counts(pd.read_csv(summary_csvs[0])), "Theory vs practice: rows per experiment and verdict"
    frames = []
    for path in theory_csvs:
        df = pd.read_csv(path)
        verdict = "verdict" if "verdict" in df else "status" if "status" in df else None
        if verdict is None or df.empty:
            continue
        experiment = str(df["experiment"].iloc[0]) if "experiment" in df else str(path).rsplit("/", 1)[-1].removesuffix(".csv")
        frames.append(pd.DataFrame({"experiment": experiment, "verdict": df[verdict].fillna("").astype(str)}))
    table = pd.concat(frames) if frames else pd.DataFrame({"experiment": [], "verdict": []})
    counts = pd.crosstab(table["experiment"], table["verdict"]) if len(table) else pd.DataFrame()
    if len(counts):
        counts.loc["all"] = counts.sum()
    return counts, "Theory checks: rows per experiment and verdict"


def cost_of_privacy_html(cost_csv) -> str:
    """The landing page's cost-of-privacy section, short enough for one screen: per
    experiment, how many (private learner, setting, ε) ratios lie below, inside or above the
    theorems' predicted ratio (the ``position`` column of ``cost_csv``), and where the full
    table is; else a marked place for it."""
    from pathlib import Path

    if cost_csv is not None and Path(cost_csv).is_file():
        table = pd.read_csv(cost_csv)
        counts = pd.crosstab(table["experiment"], table["position"].fillna("").astype(str)) if len(table) else pd.DataFrame()
        if len(counts):
            counts.loc["all"] = counts.sum()
        body = (_counts_table(counts) + "<p>Measured ratio (private ÷ non-private twin: n*, regret, mistakes or excess "
                "population risk) against the predicted one, per experiment. Every ratio with its interval: the "
                "<b>cost of privacy</b> page (category <i>theory vs practice</i>).</p>")
    else:
        body = ("<p class='placeholder'>Not in this run: <code>results/theory/cost_of_privacy.csv</code> (the cost of "
                "privacy per learner, from the theory check) is shown here when the run writes it.</p>")
    return f"<!-- dpbench: cost-of-privacy table --><h3>Cost of privacy: ratios per experiment and position</h3>{body}<!-- /cost-of-privacy -->"


LANDING_STYLE = STYLE.replace("body{", ".dpbench-summary{") + (
    ".dpbench-summary table.counts{width:auto} .dpbench-summary table.counts td{min-width:2.5em}"
    ".dpbench-summary p.placeholder{color:#666;font-style:italic;margin:2px 0}")


def landing_html(theory_csvs, summary_csvs, cost_csv=None) -> str:
    """The report's landing-page fragment (``workflow/report/workflow.rst`` includes it):
    the verdict counts (:func:`landing_counts`), the cost-of-privacy table
    (:func:`cost_of_privacy_html`) and where every row is. Scoped style, no ``<html>``."""
    counts, title = landing_counts(theory_csvs, summary_csvs)
    links = ("<p>Every row, sortable and filterable: the <b>theory vs practice</b> table (category below), and per "
             "experiment its <b>theory check</b> and its figures, each with its caption beside it "
             "(the experiment's <b>gallery</b>).</p>")
    return (f"<div class='dpbench-summary'><style>{LANDING_STYLE}</style><h3>{html.escape(title)}</h3>"
            f"{_counts_table(counts)}{cost_of_privacy_html(cost_csv)}{links}</div>")


def write_landing(theory_csvs, summary_csvs, out, cost_csv=None) -> int:
    """Write the landing page's HTML fragment (:func:`landing_html`); returns the rows of its counts table."""
    from pathlib import Path


    counts, _ = landing_counts(theory_csvs, summary_csvs)
    write_text(Path(out), landing_html(theory_csvs, summary_csvs, cost_csv) + "\n")
    return len(counts)
