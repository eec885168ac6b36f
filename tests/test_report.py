"""The HTML report in headless Chromium: the landing page and an experiment page are
screenshotted (kept beside the report: ``results/report_*.png``), and every table on them
fits the viewport's width (no theory-check column off screen). Chromium is a system package:
the test installs it (as root, with apt-get) where it is missing, else skips with the reason
(fails on CI)."""

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


def _find_browser() -> str | None:
    return next((path for path in map(shutil.which, BROWSERS) if path), None)


def _browser() -> str:
    """A headless Chromium: found on PATH, else installed (Debian's chromium-headless-shell,
    as root with apt-get), else the test skips with the reason (fails on CI)."""
    path = _find_browser()
    if path:
        return path
    if os.geteuid() == 0 and shutil.which("apt-get"):
        proc = subprocess.run(["bash", "-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
                               "--no-install-recommends chromium-headless-shell"], capture_output=True, text=True, timeout=1200)
        path = _find_browser()
        if path:
            return path
        reason = f"apt-get install chromium-headless-shell failed: {proc.stderr.strip()[-300:]}"
    else:
        reason = "no headless Chromium, and no root with apt-get to install it (apt-get install chromium-headless-shell)"
    if os.environ.get("CI"):
        pytest.fail(f"on CI: {reason}")
    pytest.skip(reason)


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


def test_landing_page_shows_the_verdict_counts_and_they_fit(report):
    _screenshot(report, WINDOW, report.with_name("report_landing.png"))
    measure = _measure(report, WINDOW)
    assert measure["tables"], "no table on the landing page (the verdict counts)"
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


# --- issue 31: a report to browse ------------------------------------------------------------

#: the viewport the landing page must fit without scrolling
FOLD = (1280, 800)

PROBE = """
<script>
setTimeout(function () {{
  {before}
  setTimeout(function () {{
    var out = ({measure})();
    var pre = document.createElement('pre'); pre.id = 'dpbench-probe';
    pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
  }}, 500);
}}, 1500);
</script>
"""

#: the first column's text of every visible body row of the first table, and how many rows there are
ROWS = """function () {
  var t = document.querySelector('table.dpbench'), out = {shown: [], all: t.tBodies[0].rows.length};
  Array.prototype.forEach.call(t.tBodies[0].rows, function (r) {
    if (r.style.display !== 'none') out.shown.push(r.cells[COL].textContent.trim()); });
  return out; }"""


def _probe(page: Path, size, measure: str, before: str = "") -> dict:
    probe = page.with_name(page.stem + ".probe.html")
    probe.write_text(page.read_text(encoding="utf-8") + PROBE.format(before=before, measure=measure), encoding="utf-8")
    proc = _chromium(probe, size, "--dump-dom")
    found = re.search(r'<pre id="dpbench-probe">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    import html as _html

    return json.loads(_html.unescape(found.group(1)))


def _click_header(col: int) -> str:
    return f"document.querySelector('table.dpbench thead tr').cells[{col}].click();"


def _type_filter(text: str) -> str:
    return ("var i = document.querySelector('div.dpbench-filter input'); i.value = " + json.dumps(text) +
            "; i.dispatchEvent(new Event('input'));")


def _column(page: Path, name: str) -> int:
    head = re.search(r"<thead><tr>(.*?)</tr></thead>", page.read_text(encoding="utf-8")).group(1)
    names = [re.sub("<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", head)]
    return names.index(name)


def test_a_click_on_a_column_header_sorts_the_table(report):
    page = report.parent / "theory" / "summary.html"
    col = _column(page, "learner")
    rows = ROWS.replace("COL", str(col))
    before = _probe(page, PANE, rows)["shown"]
    once = _probe(page, PANE, rows, _click_header(col))["shown"]
    twice = _probe(page, PANE, rows, _click_header(col) + _click_header(col))["shown"]
    assert len(before) > 5 and sorted(before) == sorted(once) == sorted(twice)
    assert once != before, "the order did not change"
    assert once == sorted(once, key=str.lower) and twice == sorted(twice, key=str.lower, reverse=True)


def test_typing_in_the_filter_shrinks_the_rows(report):
    page = report.parent / "theory" / "summary.html"
    col = _column(page, "learner")
    rows = ROWS.replace("COL", str(col))
    everything = _probe(page, PANE, rows)
    learner = everything["shown"][0]
    some = _probe(page, PANE, rows, _type_filter(learner))
    none = _probe(page, PANE, rows, _type_filter("no row has this text"))
    assert len(everything["shown"]) == everything["all"] > len(some["shown"]) > 0
    assert all(learner in text for text in some["shown"]) and none["shown"] == []


def test_every_theory_page_sorts_and_filters(report):
    for page in sorted((report.parent / "theory").glob("*.html")):
        if ".probe" in page.name or ".measure" in page.name or ".shown" in page.name:
            continue
        text = page.read_text(encoding="utf-8")
        assert "table.dpbench" in text and "dpbench-filter" in text and "http" not in text.split("<script>", 1)[1], page.name


#: the height of everything the page shows, its inner scrolling panes included
HEIGHT = """function () {
  var h = document.documentElement.scrollHeight;
  document.querySelectorAll('*').forEach(function (e) {
    var s = getComputedStyle(e);
    if ((s.overflowY === 'auto' || s.overflowY === 'scroll') && e.scrollHeight > e.clientHeight)
      h = Math.max(h, e.getBoundingClientRect().top + e.scrollHeight); });
  return {height: h, viewport: window.innerHeight,
          text: document.body.innerText.slice(0, 4000)}; }"""


def test_the_landing_page_fits_one_screen_with_counts_and_links(report):
    _screenshot(report, FOLD, report.with_name("report_landing_fold.png"))
    got = _probe(report, FOLD, HEIGHT)
    assert "rows per experiment and verdict" in got["text"] and "Cost of privacy" in got["text"], got["text"][:1000]
    assert got["height"] <= FOLD[1], f"the landing page is {got['height']:.0f} px high at {FOLD}: it does not fit one screen"


def test_the_fold_check_fails_on_the_old_landing_page(tmp_path):
    """It can fail: a landing page with the 275-row summary table (as before issue 31) is far
    higher than one screen."""
    rows = "".join(f"<tr><td>row {i}</td></tr>" for i in range(275))
    page = tmp_path / "old.html"
    page.write_text(f"<html><body><table class='dpbench'><tbody>{rows}</tbody></table></body></html>")
    assert _probe(page, FOLD, HEIGHT)["height"] > 3 * FOLD[1]


def test_every_figure_has_its_caption_beside_it(report):
    """The gallery pages: every figure of the experiment, its caption to its right (the
    caption's left edge right of the image's right edge, their tops level)."""
    root = report.parent
    for gallery in sorted((root / "report").glob("*_gallery.html")):
        experiment = gallery.name.removesuffix("_gallery.html")
        figures = len(list((root / "figures").glob(f"{experiment}*.png")))
        boxes = _probe(gallery, PANE, """function () {
          return Array.prototype.map.call(document.querySelectorAll('figure.dpbench'), function (f) {
            var i = f.querySelector('img').getBoundingClientRect(), c = f.querySelector('figcaption').getBoundingClientRect();
            return {img_right: i.right, img_top: i.top, img_w: i.width, cap_left: c.left, cap_top: c.top, cap_w: c.width,
                    text: f.querySelector('figcaption').textContent.length}; }); }""")
        assert len(boxes) == figures, (gallery.name, len(boxes), figures)
        for b in boxes:
            assert b["img_w"] > 300 and b["cap_w"] > 150 and b["text"] > 40, (gallery.name, b)
            assert b["cap_left"] >= b["img_right"] and abs(b["cap_top"] - b["img_top"]) < 40, (gallery.name, b)
    _screenshot(root / "report" / "conjunctions_gallery.html", WINDOW, report.with_name("report_gallery.png"))
