"""The HTML report in headless Chromium: the landing page and an experiment page are
screenshotted (kept beside the report: ``results/report_*.png``), and every table on them
fits the viewport's width (no theory-check column off screen). Chromium is a system package
(``.ci/run`` installs it); without it the test fails on CI and is skipped elsewhere."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")
#: The report's pane beside its 246 px sidebar in a 1280 px window.
WINDOW = (1280, 900)
PANE = (1030, 900)

#: Measures every table once the page has rendered: its right edge against the viewport's
#: width (and of the page itself), written into the DOM for --dump-dom to read.
MEASURE = """
<script>
setTimeout(function () {{
  {before}
  setTimeout(function () {{
    var out = {{width: window.innerWidth, page: document.documentElement.scrollWidth, tables: []}};
    document.querySelectorAll('table').forEach(function (t) {{
      var r = t.getBoundingClientRect();
      out.tables.push({{right: r.right, width: r.width, rows: t.rows.length}});
    }});
    var pre = document.createElement('pre'); pre.id = 'dpbench-measure';
    pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
  }}, 500);
}}, 1500);
</script>
"""


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("no headless Chromium on CI: .ci/run installs chromium-headless-shell")
    pytest.skip("no headless Chromium (apt-get install chromium-headless-shell)")


def _chromium(page: Path, size, *flags: str) -> subprocess.CompletedProcess:
    cmd = [_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--allow-file-access-from-files",
           f"--window-size={size[0]},{size[1]}", "--virtual-time-budget=4000", *flags, page.as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def _measure(page: Path, size, before: str = "") -> dict:
    probe = page.with_name(page.stem + ".measure.html")
    probe.write_text(page.read_text(encoding="utf-8") + MEASURE.format(before=before), encoding="utf-8")
    proc = _chromium(probe, size, "--dump-dom")
    found = re.search(r'<pre id="dpbench-measure">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    return json.loads(found.group(1).replace("&quot;", '"'))


def _screenshot(page: Path, size, out: Path, before: str = "") -> None:
    shown = page
    if before:
        shown = page.with_name(page.stem + ".shown.html")
        shown.write_text(page.read_text(encoding="utf-8") + f"<script>setTimeout(function () {{ {before} }}, 1500);</script>", encoding="utf-8")
    proc = _chromium(shown, size, f"--screenshot={out}")
    assert out.exists() and out.stat().st_size > 10_000, proc.stderr[-2000:]


def _fits(measure: dict) -> list[str]:
    width = measure["width"]
    problems = [f"table {i} ({t['rows']} rows) ends at {t['right']:.0f} px > the viewport's {width} px"
                for i, t in enumerate(measure["tables"]) if t["right"] > width + 1]
    if measure["page"] > width + 1:
        problems.append(f"the page scrolls sideways ({measure['page']} px > {width} px)")
    return problems


@pytest.fixture(scope="module")
def report(tiny_report) -> Path:
    return tiny_report  # tests/conftest.py: the tiny run's report, built once


def test_landing_page_shows_the_summary_table_and_it_fits(report):
    _screenshot(report, WINDOW, report.with_name("report_landing.png"))
    measure = _measure(report, WINDOW)
    assert measure["tables"], "no table on the landing page (the theory-vs-practice summary)"
    assert _fits(measure) == []


def test_experiment_page_and_its_theory_table_fit(report):
    _screenshot(report, WINDOW, report.with_name("report_experiment.png"), before="app.showCategory('conjunctions');")
    for experiment in ("conjunctions", "halfspaces_online", "privacy_audit"):
        table = report.parent / "theory" / f"{experiment}.html"
        _screenshot(table, PANE, report.with_name(f"report_{experiment}_table.png"))
        measure = _measure(table, PANE)
        assert measure["tables"], experiment
        assert _fits(measure) == [], experiment
        _assert_every_note_below_the_table(report.parent / "theory" / f"{experiment}.csv", table.read_text(encoding="utf-8"))


def _assert_every_note_below_the_table(csv: Path, page: str) -> None:
    """Every non-empty note of ``csv`` is written out in full in the list below the table."""
    import html

    import pandas as pd

    notes = pd.read_csv(csv).get("note", pd.Series(dtype=str)).dropna().astype(str).str.strip()
    below = page.split("</table>", 1)[1]
    missing = [n for n in notes[notes != ""].unique() if f">{html.escape(n)}</li>" not in below]
    assert not missing, (csv.name, missing)


def test_the_check_fails_on_a_table_wider_than_the_pane(tmp_path):
    """The width check can fail: the old theory page (pandas' to_html, every column, nowrap notes)."""
    import pandas as pd

    wide = pd.DataFrame({f"column_{i}": ["a rather long note that does not wrap " * 3] for i in range(12)})
    page = tmp_path / "wide.html"
    page.write_text("<html><body><style>td{white-space:nowrap}</style>" + wide.to_html() + "</body></html>")
    assert _fits(_measure(page, PANE))


def test_notes_are_numbered_in_the_table_and_written_out_below_it():
    """A note's cell holds its number, linked to the note written out once, in full, below
    the table (rows with the same note share it); a row without a note has an empty cell."""
    import re

    import numpy as np
    import pandas as pd

    from dpbench.reporting.report_tables import page_html

    long = "the pair's signal is e^eps ~ 1 + eps: Clopper-Pearson at these runs resolves ~0.6 of it " * 3
    df = pd.DataFrame({"verdict": ["pass", "pass", "pass", "no_power"], "learner": ["dp_winnow_batched_tight", "laplace", "laplace", "dp_winnow"],
                       "note": [long, np.nan, "broken: noise halved", long]})
    table, below = page_html(df, "audit").split("</table>", 1)
    assert re.findall(r"href='#dpbench-note-(\d+)'>", table) == ["1", "2", "1"] and "Clopper" not in table
    assert re.findall(r"<li id='dpbench-note-(\d+)' value='\d+'>([^<]*)</li>", below) == [
        ("1", long.strip().replace("'", "&#x27;")), ("2", "broken: noise halved")]
    assert "dp_<wbr>winnow_<wbr>batched_<wbr>tight" in table  # an identifier may break after an underscore
    assert "</li>" not in page_html(df.drop(columns="note"), "audit")
