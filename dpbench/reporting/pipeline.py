"""The aggregate step behind the ``summarise`` rule — per experiment, collect the shards,
check the theory, draw the figures; then the run's tables and report pages — and the names
of its outputs (the Snakefile asks here, so rules and package cannot disagree).

One job for the whole run does all of it in one process (:func:`summarise_run`, per
experiment :func:`summarise`): the results are read once and the libraries (pandas, scipy,
matplotlib) imported once, instead of a job per experiment and per table each paying
interpreter start-up and imports (issues 13 and 32: the workflow's overhead).

Every file is written exactly where the caller (the rule, from ``snakemake.output``) says
— which is what lets the workflow run on remote storage — and the names come from
:class:`dpbench.foundation.paths.RunPaths`: figures ``{root}/figures/{stem}.pdf|png`` (``stem`` is
``{experiment}_{name}``, or ``{experiment}`` for the figure named ``""``), each caption
``{root}/captions/{stem}.rst`` as reStructuredText with every markup character escaped,
so the report shows the caption text as written (``|F|``, ``*``, backslashes).
"""

from __future__ import annotations

import os
import re
import string
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from dpbench.foundation import registry
from dpbench.foundation.paths import figure_stem, figure_stems  # noqa: F401  (re-exported: the rules' names)
from dpbench.foundation.results import atomic_write, concat, read_results, write_text
from dpbench.plotting.captions import figure_caption as generated
from dpbench.reporting.cost_of_privacy import write_cost_of_privacy
from dpbench.reporting.report_gallery import write_gallery
from dpbench.reporting.report_tables import COST_OF_PRIVACY, page_html, write_landing
from dpbench.reporting.summary import write_summary
from dpbench.theory_check.analysis import THEORY_COLUMNS
from dpbench.theory_check.roles import with_roles

#: every ASCII punctuation character: backslash-escaped in a caption, it is a literal in
#: reStructuredText (docutils spec, "Escaping Mechanism") and never a Jinja delimiter
_RST_SPECIAL = re.compile("([" + re.escape(string.punctuation) + "])")


def rst_literal(text: str) -> str:
    """``text`` as one reStructuredText paragraph that renders as written: whitespace runs
    (newlines, indentation) become one space and every punctuation character is escaped."""
    return _RST_SPECIAL.sub(r"\\\1", " ".join(text.split()))




def _results(results):
    """A results DataFrame, given one or the path of a results file."""
    if isinstance(results, (str, os.PathLike)):

        return read_results(results)
    return results


def timeout_notes(df) -> dict[str, str]:
    """Learner → a note on its cells that ran past their time limit (``status = timeout``
    rows: missing data for the theory check and the figures), for the learners that have any."""
    if "status" not in df or not (df["status"] == "timeout").any():
        return {}
    notes = {}
    for learner, rows in df[df["status"] == "timeout"].groupby("learner"):
        cells = rows.drop_duplicates("cell_key")
        sizes = sorted({int(v) for column in ("n", "T") for v in cells[column].dropna()})
        notes[learner] = f"missing: {len(cells)} cell(s) timed out (size {', '.join(map(str, sizes))}; cell_timeout_minutes)"
    return notes


def _with_timeout_notes(table, notes: Mapping[str, str], experiment: str):
    """The theory table with each learner's timeout note appended to its rows' ``note``, and
    a ``no_points`` row for a learner whose every cell timed out."""
    import pandas as pd

    if not notes or "note" not in table or "learner" not in table:
        return table
    table = table.copy()
    for learner, note in notes.items():
        mine = table["learner"] == learner
        if mine.any():
            table.loc[mine, "note"] = [f"{n}; {note}" if isinstance(n, str) and n else note for n in table.loc[mine, "note"]]
        else:
            table = pd.concat([table, pd.DataFrame([{"experiment": experiment, "learner": learner, "status": "no_points", "note": note}])], ignore_index=True)
    return table


def write_theory_check(experiment: str, results, out: str | Path, html: str | Path | None = None) -> None:
    """Run the experiment's theory check on its collected results (a DataFrame or a results
    file); write CSV (and, for the report, the same table as HTML) atomically."""

    exp = registry.experiment(experiment)
    df = _results(results)
    notes = timeout_notes(df)
    table = _with_timeout_notes(exp.theory_check(df), notes, experiment)
    if "fitted_slope" in table:  # a theory check (the privacy audit's table is another kind)

        table = with_roles(table)
    table = table.reindex(columns=list(exp.theory_columns or THEORY_COLUMNS))
    atomic_write(Path(out), lambda tmp: table.to_csv(tmp, index=False, float_format="%.6g"))
    if html is not None:

        page = page_html(table, f"{experiment}: theory check" if "fitted_slope" in table else f"{experiment}: audit")
        write_text(Path(html), page)


def figure_files(experiment: str, outputs: Iterable[str | Path]) -> dict[str, dict[str, Path]]:
    """Figure stem → its ``png`` and ``caption`` file among ``outputs`` (a rule's declared
    outputs, matched by file name: under remote storage their directories are Snakemake's
    local copies), and its ``pdf`` where one is declared (the config key ``figures_pdf``).
    A figure without its PNG or caption is an error."""
    by_name = {Path(p).name: Path(p) for p in outputs}
    out = {}
    for stem in figure_stems(experiment).values():
        names = {"png": f"{stem}.png", "caption": f"{stem}.rst"}
        missing = [n for n in names.values() if n not in by_name]
        if missing:
            raise ValueError(f"{experiment}: no output declared for {missing}")
        out[stem] = {kind: by_name[name] for kind, name in names.items()}
        if f"{stem}.pdf" in by_name:
            out[stem]["pdf"] = by_name[f"{stem}.pdf"]
    return out


def write_figures(experiment: str, results, files: Mapping[str, Mapping[str, str | Path]]) -> None:
    """Draw every figure of the experiment from its collected results (a DataFrame or a
    results file) into ``files[stem]["png"]`` (and ``["pdf"]`` where given) and its escaped caption into
    ``files[stem]["caption"]`` (:func:`figure_files`, or
    :meth:`dpbench.foundation.paths.RunPaths.figure_files`)."""
    from dpbench.plotting.style import save  # deferred: imports matplotlib

    df = _results(results)
    notes = timeout_notes(df)
    for name, recipe in registry.experiment(experiment).figures.items():
        paths = {kind: Path(p) for kind, p in files[figure_stem(experiment, name)].items()}
        stem = paths["png"].with_suffix("")
        if "pdf" in paths and paths["pdf"] != stem.with_suffix(".pdf"):
            raise ValueError(f"{paths['pdf']} and {paths['png']}: a figure's PDF and PNG must share a stem")
        fig = recipe(df)
        if notes:  # said on the figure itself: its curves lack these cells
            fig.text(0.005, 0.005, "; ".join(f"{k}: {v}" for k, v in notes.items()), fontsize=6, color="firebrick", ha="left", va="bottom")
        caption = figure_caption(recipe, fig)  # before saving: save closes the figure
        save(fig, stem, pdf="pdf" in paths)
        write_text(paths["caption"], rst_literal(caption) + "\n")


def figure_caption(recipe, fig) -> str:
    """The caption of a drawn figure (:func:`dpbench.plotting.captions.figure_caption`): the
    recipe's text less clauses about learners not drawn, plus the figure's own notes."""

    return generated(recipe.caption, fig)


def summarise(
    experiment: str,
    shards: Iterable[str | Path],
    results: str | Path,
    theory_csv: str | Path,
    theory_html: str | Path | None,
    figures: Mapping[str, Mapping[str, str | Path]],
) -> dict[str, float]:
    """Everything after the shards, for one experiment: concatenate the shard files into
    ``results`` (:func:`dpbench.foundation.results.concat`, schema-checked, atomic), run the theory
    check (:func:`write_theory_check`) and draw every figure into ``figures``
    (:func:`write_figures`) from the file just written. Returns the seconds each step took
    (the rule logs them)."""

    seconds = {}
    start = time.perf_counter()
    concat(list(shards), results)
    df = read_results(results)
    seconds["collect"] = time.perf_counter() - start
    start = time.perf_counter()
    write_theory_check(experiment, df.copy(), theory_csv, theory_html)  # a copy: checks may add columns
    seconds["theory_check"] = time.perf_counter() - start
    start = time.perf_counter()
    write_figures(experiment, df, figures)
    seconds["figures"] = time.perf_counter() - start
    return seconds


@dataclass(frozen=True)
class RunOutputs:
    """Where :func:`summarise_run` reads and writes (the rule ``summarise``'s declared input
    and output files): per experiment its shards, results, theory CSV and HTML, and gallery;
    every figure file of the run (:func:`figure_files` picks each experiment's); the theory
    summary's CSV and HTML; the cost of privacy's CSV and HTML over ``cost_experiments``
    (None: no experiment with learning curves); the landing page."""

    shards: Mapping[str, list]
    results: Mapping[str, str | Path]
    theory_csv: Mapping[str, str | Path]
    theory_html: Mapping[str, str | Path]
    figures: list
    summary: tuple
    cost: tuple | None
    cost_experiments: list
    landing: str | Path
    galleries: Mapping[str, str | Path]


def summarise_run(out: RunOutputs) -> dict[str, float]:
    """Everything a run writes after its shards, in one process (issue 32: the interpreter
    and the libraries start once per run, not once per experiment and table): per experiment
    :func:`summarise`; then theory vs practice (:func:`dpbench.reporting.summary.write_summary`),
    the cost of privacy (:func:`dpbench.reporting.cost_of_privacy.write_cost_of_privacy`),
    the report's landing page and each experiment's gallery. Returns the seconds of each step."""
    seconds = {}
    for experiment in out.shards:
        files = figure_files(experiment, out.figures)
        steps = summarise(experiment, out.shards[experiment], out.results[experiment], out.theory_csv[experiment],
                          out.theory_html[experiment], files)  # fmt: skip
        seconds.update({f"{experiment} {step}": s for step, s in steps.items()})
    start = time.perf_counter()
    write_summary(list(out.theory_csv.values()), *out.summary)
    if out.cost is not None:
        write_cost_of_privacy([out.results[e] for e in out.cost_experiments], *out.cost)
    theory = list(out.theory_csv.values())
    # only this run's cost table: a file left in a reused directory by another config is not it
    cost_csv = Path(out.summary[0]).with_name(COST_OF_PRIVACY) if out.cost is not None else None
    write_landing(theory, [out.summary[0]], out.landing, cost_csv=cost_csv)
    for experiment, gallery in out.galleries.items():
        names = figure_stems(experiment)
        files = figure_files(experiment, out.figures)
        write_gallery(experiment, [(name or experiment, files[stem]["png"], files[stem]["caption"]) for name, stem in names.items()], gallery)
    seconds["summary, cost of privacy, report pages"] = time.perf_counter() - start
    return seconds
