"""A figure's caption, generated from what the figure draws: the recipe's text
(:attr:`dpbench.experiments.base.Figure.caption`) less every clause that names a learner the
figure does not show (a learner skipped in this config, a learner of another sweep), plus
the notes the drawing left on the figure (:func:`add_note`: what the bands' lower edge
means, stacked markers, data-derived explanations of a recipe).
"""

from __future__ import annotations

import re

from dpbench.foundation import registry

#: Abbreviations whose full stop ends no clause.
ABBREVIATIONS = ("w.p.", "e.g.", "i.e.", "cf.", "et al.", "vs.", "resp.", "approx.", "Thm.", "Eq.", "Fig.", "Sec.", "No.", "Ref.")

#: A candidate clause boundary: a full stop or semicolon followed by white space.
_BOUNDARY = re.compile(r"[.;](?=\s)")


def clauses(text: str) -> list[str]:
    """``text`` split into clauses: at a full stop or semicolon followed by white space, but
    never inside parentheses or brackets (a parenthesis is one clause with its sentence) nor
    after an abbreviation (:data:`ABBREVIATIONS`: "holds w.p. ≥ 0.9", "e.g. the …")."""
    out, start, depth, last = [], 0, 0, 0
    for m in _BOUNDARY.finditer(text):
        for ch in text[last:m.start()]:
            depth = max(0, depth + (ch in "([") - (ch in ")]"))
        last = m.start()
        if depth or (text[m.start()] == "." and any(text[:m.end()].endswith(a) for a in ABBREVIATIONS)):
            continue
        out.append(text[start:m.end()].strip())
        start = m.end()
    out.append(text[start:].strip())
    return [c for c in out if c]


def number_range(lo: float, hi: float, fmt: str = ".2g") -> str:
    """``lo–hi`` formatted with ``fmt``, or one number when both ends print alike (never
    "3.8–3.8")."""
    a, b = format(lo, fmt), format(hi, fmt)
    return a if a == b else f"{a}–{b}"


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

    registry.load_all()
    return list(registry.LEARNERS)


def _names(text: str, learners) -> set[str]:
    """The learners ``text`` names; ``name*`` names a family (every learner whose name starts
    so) and is not counted here (:func:`_families`)."""
    return {name for name in learners if re.search(rf"(?<!\w){re.escape(name)}(?![\w*])", text)}


def _families(text: str) -> set[str]:
    """The ``name*`` patterns of ``text`` ("the DP-Winnows (dp_winnow*)"; also "θ*", which
    :func:`_about_shown` ignores: no learner's name starts so)."""
    return set(re.findall(r"(?<!\w)(\w+)\*", text))


def _about_shown(clause: str, learners, shown: set[str]) -> bool:
    """Whether every learner ``clause`` names is ``shown``, and each family it names has a
    member shown."""
    families = {f for f in _families(clause) if any(name.startswith(f) for name in learners)}  # not "θ*"
    return _names(clause, learners) <= shown and all(any(s.startswith(f) for s in shown) for f in families)


def figure_caption(text: str, fig) -> str:
    """The caption of the drawn ``fig``: ``text`` without the clauses naming learners that
    ``fig`` does not show, then the figure's notes (:func:`add_note`)."""
    learners = _learners()
    shown = _names(shown_text(fig), learners)
    kept = [c for c in clauses(text.strip()) if _about_shown(c, learners, shown)]
    out = " ".join(kept)
    if out and out[-1] == ";":
        out = out[:-1] + "."
    notes = fig.__dict__.get("_dpbench_notes", [])
    return " ".join([out, *notes]).strip()
