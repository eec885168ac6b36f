"""The bibliography: every source the code, the configs and the documentation cite.

Docstrings and comments cite a source by its key in square brackets, with a locator
where one helps: ``[DR14, Thm 11.2]``, ``[BF26, Lemma A.1]``, ``[CMS11]``. Every key
used anywhere in the package, the configs or ``docs/`` must be a key of
:data:`REFERENCES` (``tests/test_docs.py`` checks it), and ``dpbench docs`` writes the
full list, with the modules citing each entry, to ``docs/references.md``.

Three anonymous sets of course notes were among the texts dpbench was built from. A
result is cited to the primary literature; the notes (``NotesPAC``, ``NotesSQ``,
``NotesML``) are cited only where a statement — a constant, a step size, a claim — is
theirs alone (e.g. ``[NotesPAC, Thm 3]``, the privacy claim ``private_mw_001`` tests).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


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


def _ref(key: str, authors: str, title: str, venue: str, url: str = "") -> tuple[str, Reference]:
    return key, Reference(key, authors, title, venue, url)


REFERENCES: dict[str, Reference] = dict(
    [
        # --- the two books/papers dpbench is built around
        _ref("DR14", "C. Dwork and A. Roth", "The Algorithmic Foundations of Differential Privacy",
             "Foundations and Trends in Theoretical Computer Science 9(3\u20134):211\u2013407, 2014 "
             "(chapter 11: \u201cDifferential Privacy and Machine Learning\u201d)",
             "https://doi.org/10.1561/0400000042"),
        _ref("BF26", "M. Bun and W. Fang", "Privately Learning Decision Lists and a Differentially Private Winnow",
             "arXiv:2602.07370, 2026", "https://arxiv.org/abs/2602.07370"),
        # --- mechanisms and composition
        _ref("DMNS06", "C. Dwork, F. McSherry, K. Nissim and A. Smith",
             "Calibrating Noise to Sensitivity in Private Data Analysis", "Theory of Cryptography (TCC), 2006"),
        _ref("MT07", "F. McSherry and K. Talwar", "Mechanism Design via Differential Privacy",
             "IEEE Symposium on Foundations of Computer Science (FOCS), 2007"),
        _ref("DNRRV09", "C. Dwork, M. Naor, O. Reingold, G. N. Rothblum and S. Vadhan",
             "On the Complexity of Differentially Private Data Release: Efficient Algorithms and Hardness Results",
             "ACM Symposium on Theory of Computing (STOC), 2009"),
        _ref("DRV10", "C. Dwork, G. N. Rothblum and S. Vadhan", "Boosting and Differential Privacy",
             "IEEE Symposium on Foundations of Computer Science (FOCS), 2010"),
        _ref("GLMRT10", "A. Gupta, K. Ligett, F. McSherry, A. Roth and K. Talwar",
             "Differentially Private Combinatorial Optimization",
             "ACM-SIAM Symposium on Discrete Algorithms (SODA), 2010", "https://arxiv.org/abs/0903.4510"),
        _ref("Mir12", "I. Mironov", "On Significance of the Least Significant Bits for Differential Privacy",
             "ACM Conference on Computer and Communications Security (CCS), 2012"),
        _ref("BS16", "M. Bun and T. Steinke",
             "Concentrated Differential Privacy: Simplifications, Extensions, and Lower Bounds",
             "Theory of Cryptography (TCC), 2016", "https://arxiv.org/abs/1605.02065"),
        _ref("Mir17", "I. Mironov", "R\u00e9nyi Differential Privacy",
             "IEEE Computer Security Foundations Symposium (CSF), 2017", "https://arxiv.org/abs/1702.07476"),
        _ref("BW18", "B. Balle and Y.-X. Wang",
             "Improving the Gaussian Mechanism for Differential Privacy: Analytical Calibration and Optimal Denoising",
             "International Conference on Machine Learning (ICML), 2018", "https://arxiv.org/abs/1805.06530"),
        _ref("DR19", "D. Durfee and R. Rogers",
             "Practical Differentially Private Top-k Selection with Pay-what-you-get Composition",
             "Advances in Neural Information Processing Systems (NeurIPS), 2019"),
        _ref("KJH20", "A. Koskela, J. J\u00e4lk\u00f6 and A. Honkela",
             "Computing Tight Differential Privacy Guarantees Using FFT",
             "International Conference on Artificial Intelligence and Statistics (AISTATS), 2020"),
        _ref("CKS20", "C. L. Canonne, G. Kamath and T. Steinke", "The Discrete Gaussian for Differential Privacy",
             "Advances in Neural Information Processing Systems (NeurIPS), 2020", "https://arxiv.org/abs/2004.00010"),
        _ref("CR21", "M. Cesar and R. Rogers",
             "Bounding, Concentrating, and Truncating: Unifying Privacy Loss Composition for Data Analytics",
             "Algorithmic Learning Theory (ALT), 2021"),
        _ref("LSL17", "M. Lyu, D. Su and N. Li", "Understanding the Sparse Vector Technique for Differential Privacy",
             "Proceedings of the VLDB Endowment 10(6), 2017", "https://arxiv.org/abs/1603.01699"),
        _ref("DRS22", "J. Dong, A. Roth and W. J. Su", "Gaussian Differential Privacy",
             "Journal of the Royal Statistical Society, Series B 84(1), 2022", "https://arxiv.org/abs/1905.02383"),
        _ref("CL06", "N. Cesa-Bianchi and G. Lugosi", "Prediction, Learning, and Games",
             "Cambridge University Press, 2006"),
        _ref("CLNSS24", "E. Cohen, X. Lyu, J. Nelson, T. Sarl\u00f3s and U. Stemmer",
             "Lower Bounds for Differential Privacy Under Continual Observation and Online Threshold Queries",
             "Conference on Learning Theory (COLT), 2024", "https://arxiv.org/abs/2403.00028"),
        # --- private learning
        _ref("BDMN05", "A. Blum, C. Dwork, F. McSherry and K. Nissim", "Practical Privacy: The SuLQ Framework",
             "ACM Symposium on Principles of Database Systems (PODS), 2005"),
        _ref("KLNRS11", "S. P. Kasiviswanathan, H. K. Lee, K. Nissim, S. Raskhodnikova and A. Smith",
             "What Can We Learn Privately?", "SIAM Journal on Computing 40(3), 2011 (FOCS 2008)",
             "https://arxiv.org/abs/0803.0924"),
        _ref("CMS11", "K. Chaudhuri, C. Monteleoni and A. D. Sarwate", "Differentially Private Empirical Risk Minimization",
             "Journal of Machine Learning Research 12, 2011", "https://arxiv.org/abs/0912.0071"),
        _ref("BST14", "R. Bassily, A. Smith and A. Thakurta",
             "Private Empirical Risk Minimization: Efficient Algorithms and Tight Error Bounds",
             "IEEE Symposium on Foundations of Computer Science (FOCS), 2014", "https://arxiv.org/abs/1405.7085"),
        _ref("ACG16", "M. Abadi, A. Chu, I. Goodfellow, H. B. McMahan, I. Mironov, K. Talwar and L. Zhang",
             "Deep Learning with Differential Privacy", "ACM Conference on Computer and Communications Security (CCS), 2016",
             "https://arxiv.org/abs/1607.00133"),
        _ref("AFKT23", "H. Asi, V. Feldman, T. Koren and K. Talwar",
             "Private Online Prediction from Experts: Separations and Faster Rates", "Conference on Learning Theory (COLT), 2023"),
        _ref("HBML19", "N. Holohan, S. Braghin, P. Mac Aonghusa and K. Levacher",
             "Diffprivlib: The IBM Differential Privacy Library", "arXiv:1907.02444, 2019",
             "https://arxiv.org/abs/1907.02444"),
        # --- auditing
        _ref("CP34", "C. J. Clopper and E. S. Pearson",
             "The Use of Confidence or Fiducial Limits Illustrated in the Case of the Binomial", "Biometrika 26(4), 1934"),
        _ref("JUO20", "M. Jagielski, J. Ullman and A. Oprea",
             "Auditing Differentially Private Machine Learning: How Private is Private SGD?",
             "Advances in Neural Information Processing Systems (NeurIPS), 2020", "https://arxiv.org/abs/2006.07709"),
        _ref("NHS23", "M. Nasr, J. Hayes, T. Steinke, B. Balle, F. Tram\u00e8r, M. Jagielski, N. Carlini and A. Terzis",
             "Tight Auditing of Differentially Private Machine Learning", "USENIX Security Symposium, 2023"),
        # --- non-private learning
        _ref("Ros58", "F. Rosenblatt",
             "The Perceptron: A Probabilistic Model for Information Storage and Organization in the Brain",
             "Psychological Review 65(6), 1958"),
        _ref("Nov62", "A. B. J. Novikoff", "On Convergence Proofs on Perceptrons",
             "Symposium on the Mathematical Theory of Automata, Polytechnic Institute of Brooklyn, 1962"),
        _ref("Val84", "L. G. Valiant", "A Theory of the Learnable", "Communications of the ACM 27(11), 1984"),
        _ref("BFOS84", "L. Breiman, J. H. Friedman, R. A. Olshen and C. J. Stone", "Classification and Regression Trees",
             "Wadsworth, 1984"),
        _ref("Riv87", "R. L. Rivest", "Learning Decision Lists", "Machine Learning 2(3), 1987"),
        _ref("BEHW87", "A. Blumer, A. Ehrenfeucht, D. Haussler and M. K. Warmuth", "Occam\u2019s Razor",
             "Information Processing Letters 24(6), 1987"),
        _ref("Lit88", "N. Littlestone", "Learning Quickly When Irrelevant Attributes Abound: A New Linear-Threshold Algorithm",
             "Machine Learning 2(4), 1988"),
        _ref("LW94", "N. Littlestone and M. K. Warmuth", "The Weighted Majority Algorithm",
             "Information and Computation 108(2), 1994"),
        _ref("FS97", "Y. Freund and R. E. Schapire",
             "A Decision-Theoretic Generalization of On-Line Learning and an Application to Boosting",
             "Journal of Computer and System Sciences 55(1), 1997"),
        _ref("Kea98", "M. Kearns", "Efficient Noise-Tolerant Learning from Statistical Queries", "Journal of the ACM 45(6), 1998"),
        _ref("PVG11", "F. Pedregosa, G. Varoquaux, A. Gramfort et al.", "Scikit-learn: Machine Learning in Python",
             "Journal of Machine Learning Research 12, 2011"),
        _ref("AHK12", "S. Arora, E. Hazan and S. Kale", "The Multiplicative Weights Update Method: a Meta-Algorithm and Applications",
             "Theory of Computing 8, 2012"),
        _ref("MRT18", "M. Mohri, A. Rostamizadeh and A. Talwalkar", "Foundations of Machine Learning",
             "MIT Press, 2nd edition, 2018"),
        # --- course notes (unpublished; cited only for statements that are theirs alone)
        _ref("NotesPAC", "anonymous course notes",
             "Private and Probably Approximately Correct; Online Learning with Experts",
             "lecture notes, not published (cited only for their own constants and claims)"),
        _ref("NotesSQ", "anonymous course notes", "Private PAC and SQ Learning",
             "lecture notes, not published (cited only for their own constants and claims)"),
        _ref("NotesML", "anonymous course notes", "Machine Learning with Differential Privacy",
             "section notes, not published (cited only for their own constants and claims)"),
    ]
)

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
