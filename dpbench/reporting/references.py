"""The bibliography: every source the code, the configs and the documentation cite.

Docstrings and comments cite a source by its key in square brackets, with a locator
where one helps: ``[DR14, Thm 11.2]``, ``[BF26, Lemma A.1]``, ``[CMS11]``. Every key
used anywhere in the package, the configs or ``docs/`` must be a key of
:data:`REFERENCES` (``tests/test_docs.py`` checks it). The entries themselves are data:
``dpbench/reporting/references.yaml``, shipped in the package, and ``dpbench docs`` writes the
full list, with the modules citing each entry, to ``docs/references.md``.

Three anonymous sets of course notes were among the texts dpbench was built from. A
result is cited to the primary literature; the notes (``NotesPAC``, ``NotesSQ``,
``NotesML``) are cited only where a statement — a constant, a step size, a claim — is
theirs alone (e.g. ``[NotesPAC, Thm 3]``, the privacy claim ``private_mw_001`` tests).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources import files

import yaml


@dataclass(frozen=True)
class Reference:
    """One bibliography entry: ``authors``, ``title``, ``venue`` (with year) and an
    optional ``url`` a reader can follow."""

    key: str
    authors: str
    title: str
    venue: str
    url: str = ""

    def full(self) -> str:
        """The full citation as one line of text."""
        text = f"{self.authors}, \u201c{self.title}\u201d, {self.venue}."
        return f"{text} {self.url}" if self.url else text


def _load() -> dict[str, Reference]:
    """The entries of ``references.yaml`` (package data beside this module), in file order."""
    text = files("dpbench.reporting").joinpath("references.yaml").read_text(encoding="utf-8")
    return {entry["key"]: Reference(**entry) for entry in yaml.safe_load(text)}


#: Every bibliography entry by key, in the order of ``references.yaml`` (grouped by topic there).
REFERENCES: dict[str, Reference] = _load()

#: A citation in text: ``[KEY]`` or ``[KEY, locator]``; several keys may share brackets
#: (``[DR14; CMS11]``). A key is an author-initials-and-year tag (``DR14``, ``GLMRT10``) or a
#: ``Notes`` key.
CITATION = re.compile(r"\[((?:[A-Z][A-Za-z]*\d{2}|Notes[A-Z]+)(?:[,;][^\]\n]*)?)\]")
_KEY = re.compile(r"(?:^|;)\s*([A-Z][A-Za-z]*\d{2}|Notes[A-Z]+)\b")


def cited_keys(text: str) -> list[str]:
    """The reference keys cited in ``text``, in order of first appearance (unknown keys too)."""
    keys: list[str] = []
    for match in CITATION.finditer(text):
        for key in _KEY.findall(match.group(1)):
            if key not in keys:
                keys.append(key)
    return keys


_NAME = r"[A-Z][a-z][a-zA-Z'-]*"
#: A citation in prose (captions, CSV notes, comments): ``Cesa-Bianchi & Lugosi 2006``,
#: ``Lyu, Su & Li 2017``, ``Blumer et al. 1987``, ``Cesar & Rogers, ALT 2021``: two or more
#: surnames joined by ``&``/``and``, or one followed by ``et al.``, then the year (a venue
#: may stand between).
AUTHOR_YEAR = re.compile(rf"\b(?P<first>{_NAME})(?:(?:, {_NAME})*(?: (?:&|and) {_NAME})| et al\.)"
                         rf"(?:, (?:[A-Z][A-Za-z-]+ )?[A-Z][A-Za-z-]+)? (?P<year>(?:19|20)\d\d)\b")


def unresolved_author_year(text: str, references=None) -> list[str]:
    """The prose citations in ``text`` (:data:`AUTHOR_YEAR`) whose first author and year
    match no entry of ``references`` (default :data:`REFERENCES`), in order, once each."""
    entries = REFERENCES if references is None else references
    known = set()
    for ref in entries.values():
        first = re.split(r",| and ", ref.authors)[0].strip().split()[-1]
        known |= {(first, year) for year in re.findall(r"(?<![\d.])(?:19|20)\d\d(?![\d.])", ref.venue)}
    out: list[str] = []
    for match in AUTHOR_YEAR.finditer(text):
        if (match.group("first"), match.group("year")) not in known and match.group(0) not in out:
            out.append(match.group(0))
    return out


def short(key: str) -> str:
    """``Dwork & Roth 2014``-style short form of a key, for tables."""
    ref = REFERENCES[key]
    names = [part.strip().split()[-1] for part in re.split(r",| and ", ref.authors) if part.strip()]
    year = re.findall(r"(?<![\d.])(?:19|20)\d\d(?![\d.])", ref.venue)
    if ref.authors.startswith("anonymous"):
        return f"course notes \u201c{ref.title}\u201d"
    who = names[0] if len(names) == 1 else f"{names[0]} & {names[1]}" if len(names) == 2 else f"{names[0]} et al."
    if "et al." in ref.authors and len(names) <= 3:
        who = f"{names[0]} et al."
    return f"{who} {year[0] if year else ''}".strip()
