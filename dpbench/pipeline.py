"""The aggregate step behind the ``summarise_<experiment>`` rules — collect the shards,
check the theory, draw the figures — and the names of its outputs (the Snakefile asks
here, so rules and package cannot disagree).

One job per experiment does all three in one process (:func:`summarise`): the results are
read once and the libraries (pandas, scipy, seaborn) imported once, instead of three jobs
each paying interpreter start-up and imports (issue 13: the workflow's overhead).

Figure files are ``results/figures/{experiment}_{name}.pdf|png``, except that the figure
named ``""`` is ``results/figures/{experiment}.pdf|png``. Each figure's caption goes to
``results/captions/{stem}.rst`` as reStructuredText with every markup character escaped,
so the report shows the caption text as written (``|F|``, ``*``, backslashes).
"""

from __future__ import annotations

import os
import re
import string
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from dpbench import registry

FIGURES_DIR = Path("results/figures")
CAPTIONS_DIR = Path("results/captions")
#: The HTML fragment of the report's landing page (workflow/report/workflow.rst includes it).
LANDING_FRAGMENT = "results/report/landing.html"

#: every ASCII punctuation character: backslash-escaped in a caption, it is a literal in
#: reStructuredText (docutils spec, "Escaping Mechanism") and never a Jinja delimiter
_RST_SPECIAL = re.compile("([" + re.escape(string.punctuation) + "])")


def figure_stem(experiment: str, name: str) -> str:
    """File stem of one figure: ``{experiment}_{name}``, or ``{experiment}`` for ``name == ""``."""
    return f"{experiment}_{name}" if name else experiment


def figure_stems(experiment: str) -> dict[str, str]:
    """Figure name → file stem, for every figure the experiment registers."""
    return {name: figure_stem(experiment, name) for name in registry.experiment(experiment).figures}


def rst_literal(text: str) -> str:
    """``text`` as one reStructuredText paragraph that renders as written: whitespace runs
    (newlines, indentation) become one space and every punctuation character is escaped."""
    return _RST_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _atomic_write(out: Path, write) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_text(out: Path, text: str) -> None:
    _atomic_write(out, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def _results(results):
    """A results DataFrame, given one or the path of a results file."""
    if isinstance(results, (str, os.PathLike)):
        from dpbench.results import read_results

        return read_results(results)
    return results


def write_theory_check(experiment: str, results, out: str | Path, html: str | Path | None = None) -> None:
    """Run the experiment's theory check on its collected results (a DataFrame or a results
    file); write CSV (and, for the report, the same table as HTML) atomically."""
    from dpbench.analysis import THEORY_COLUMNS

    exp = registry.experiment(experiment)
    table = exp.theory_check(_results(results))
    table = table.reindex(columns=list(exp.theory_columns or THEORY_COLUMNS))
    _atomic_write(Path(out), lambda tmp: table.to_csv(tmp, index=False, float_format="%.6g"))
    if html is not None:
        from dpbench.report_tables import page_html

        page = page_html(table, f"{experiment}: theory check" if "fitted_slope" in table else f"{experiment}: audit")
        _write_text(Path(html), page)


def write_figures(experiment: str, results, figures_dir: str | Path = FIGURES_DIR, captions_dir: str | Path = CAPTIONS_DIR) -> None:
    """Draw every figure of the experiment from its collected results (a DataFrame or a
    results file): ``{figures_dir}/{stem}.pdf|png`` and the escaped caption
    ``{captions_dir}/{stem}.rst``."""
    from dpbench.plotting.style import save

    df = _results(results)
    for name, recipe in registry.experiment(experiment).figures.items():
        stem = figure_stem(experiment, name)
        fig = recipe(df)
        caption = figure_caption(recipe, fig)  # before saving: save closes the figure
        save(fig, Path(figures_dir) / stem)
        _write_text(Path(captions_dir) / f"{stem}.rst", rst_literal(caption) + "\n")


def figure_caption(recipe, fig) -> str:
    """The caption of a drawn figure (:func:`dpbench.plotting.captions.figure_caption`): the
    recipe's text less clauses about learners not drawn, plus the figure's own notes."""
    from dpbench.plotting.captions import figure_caption as generated

    return generated(recipe.caption, fig)


def summarise(
    experiment: str,
    shards: Iterable[str | Path],
    results: str | Path,
    theory_csv: str | Path,
    theory_html: str | Path | None = None,
    figures_dir: str | Path = FIGURES_DIR,
    captions_dir: str | Path = CAPTIONS_DIR,
) -> dict[str, float]:
    """Everything after the shards, for one experiment: concatenate the shard files into
    ``results`` (:func:`dpbench.results.concat`, schema-checked, atomic), run the theory
    check (:func:`write_theory_check`) and draw every figure (:func:`write_figures`) from
    the file just written. Returns the seconds each step took (the rule logs them)."""
    from dpbench.results import concat, read_results

    seconds = {}
    start = time.perf_counter()
    concat(list(shards), results)
    df = read_results(results)
    seconds["collect"] = time.perf_counter() - start
    start = time.perf_counter()
    write_theory_check(experiment, df.copy(), theory_csv, theory_html)  # a copy: checks may add columns
    seconds["theory_check"] = time.perf_counter() - start
    start = time.perf_counter()
    write_figures(experiment, df, figures_dir, captions_dir)
    seconds["figures"] = time.perf_counter() - start
    return seconds
