"""A figure's caption, generated from what the figure draws: the recipe's text
(:attr:`dpbench.experiments.base.Figure.caption`) less every clause that names a learner the
figure does not show (a learner skipped in this config, a learner of another sweep), plus
the notes the drawing left on the figure (:func:`add_note`: what the bands' lower edge
means, stacked markers, data-derived explanations of a recipe).
"""

from __future__ import annotations

import re

#: Clause boundaries: a sentence end or a semicolon, followed by white space.
_CLAUSE = re.compile(r"(?<=[.;])\s+")


def add_note(fig, text: str) -> None:
    """Append ``text`` (one sentence) to the caption of ``fig``, once."""
    notes = fig.__dict__.setdefault("_dpbench_notes", [])
    if text not in notes:
        notes.append(text)


def shown_text(fig) -> str:
    """Every legend entry, panel title and figure text of ``fig``, space-separated."""
    from matplotlib.legend import Legend

    return " ".join([t.get_text() for leg in fig.findobj(Legend) for t in leg.get_texts()]
                    + [ax.get_title() for ax in fig.axes] + [t.get_text() for t in fig.texts])


def _learners() -> list[str]:
    from dpbench.foundation import registry

    registry.load_all()
    return list(registry.LEARNERS)


def _names(text: str, learners) -> set[str]:
    return {name for name in learners if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text)}


def figure_caption(text: str, fig) -> str:
    """The caption of the drawn ``fig``: ``text`` without the clauses naming learners that
    ``fig`` does not show, then the figure's notes (:func:`add_note`)."""
    learners = _learners()
    shown = _names(shown_text(fig), learners)
    clauses = [c for c in _CLAUSE.split(text.strip()) if _names(c, learners) <= shown]
    out = " ".join(clauses)
    if out and out[-1] == ";":
        out = out[:-1] + "."
    notes = fig.__dict__.get("_dpbench_notes", [])
    return " ".join([out, *notes]).strip()
