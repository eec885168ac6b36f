"""dpbench.pipeline: figure file names and report captions (issue 13)."""

from __future__ import annotations

from docutils.core import publish_parts

from dpbench.pipeline import figure_stem, rst_literal


def test_figure_stem_of_the_unnamed_figure():
    assert figure_stem("experts", "ftl_trap") == "experts_ftl_trap"
    assert figure_stem("privacy_audit", "") == "privacy_audit"


def test_captions_are_escaped_restructuredtext():
    """A caption with reStructuredText (and Jinja) markup renders as written, in one paragraph."""
    text = "n*(α) vs |F| for k = 1..3,\n   `code`, a_b_ and C:\\\\path — *not emphasis* {{ not jinja }} {# nor this #}\n- no list"
    html = publish_parts(rst_literal(text), writer="html", settings_overrides={"report_level": 1})["body"]
    assert "system-message" not in html and html.count("<p>") == 1
    for literal in ("*not emphasis*", "|F|", "`code`", "a_b_", "C:\\\\path", "{{ not jinja }}", "{# nor this #}", "- no list"):
        assert literal in html, literal
