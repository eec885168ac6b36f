"""The report's landing page and galleries without a browser (tests/test_report.py checks them
in Chromium): the landing fragment holds the verdict counts, the cost-of-privacy table or its
marked place, and no per-row table; the gallery holds every figure with its caption text."""

from __future__ import annotations

import base64

import pandas as pd

from dpbench.reporting.pipeline import rst_literal
from dpbench.reporting.report_gallery import gallery_html, rst_text
from dpbench.reporting.report_tables import landing_html, page_html


def _summary(tmp_path, rows=275):
    table = pd.DataFrame({"experiment": ["conjunctions", "experts"] * (rows // 2) + ["experts"] * (rows % 2),
                          "verdict": ["agrees", "steeper", "floor"] * (rows // 3) + ["agrees"] * (rows % 3),
                          "learner": [f"learner_{i}" for i in range(rows)]})
    path = tmp_path / "summary.csv"
    table.to_csv(path, index=False)
    return path, table


def test_the_landing_page_shows_counts_not_rows(tmp_path):
    path, table = _summary(tmp_path)
    page = landing_html([], [path], cost_csv=tmp_path / "cost_of_privacy.csv")
    assert "learner_17" not in page and page.count("<tr>") == 1 + 2 + 1  # header, two experiments, all
    assert f"<td class='good'>{(table.verdict == 'agrees').sum()}</td>" in page
    assert "<!-- dpbench: cost-of-privacy table -->" in page and "Not in this run" in page


def test_the_cost_of_privacy_table_is_shown_where_the_run_has_one(tmp_path):
    path, _ = _summary(tmp_path, 6)
    cost = tmp_path / "cost_of_privacy.csv"
    pd.DataFrame({"learner": ["exp_mech_erm"], "factor": [3.5]}).to_csv(cost, index=False)
    page = landing_html([], [path], cost_csv=cost)
    assert "Not in this run" not in page and "exp_mech_erm" in page.replace("_<wbr>", "_") and "3.5" in page


def test_table_pages_carry_the_sort_and_filter_script_and_no_network():
    page = page_html(pd.DataFrame({"verdict": ["agrees"], "learner": ["erm"]}), "t")
    script = page.split("<script>", 1)[1]
    assert "dpbench-filter" in script and "aria-sort" in script
    assert "http" not in script and "src=" not in page


def test_the_gallery_puts_each_caption_beside_its_figure(tmp_path):
    png = tmp_path / "f.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 20)
    caption = "Error (ε = 0.5) against n; |F| = 3 * 2 — w.p. 1 − β."
    rst = tmp_path / "f.rst"
    rst.write_text(rst_literal(caption) + "\n")
    assert rst_text(rst.read_text()) == caption
    page = gallery_html("conjunctions", [("error_vs_n", png, rst)])
    assert base64.b64encode(png.read_bytes()).decode() in page
    assert "<figcaption><b>error_vs_n</b>Error (ε = 0.5) against n; |F| = 3 * 2 — w.p. 1 − β.</figcaption>" in page
