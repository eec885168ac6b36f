"""Every file a run writes, in one place: the Snakefile, the rule scripts, the tests and
the benchmarks ask :class:`RunPaths` instead of spelling paths.

A run's files live under its output directory (:func:`output_root`), relative to the
working directory (or, with ``--default-storage-provider``, to the storage prefix):

==============================================  =========================================
``{root}/runs/{experiment}/{shard}.parquet``    one shard's rows (rule ``run_shard``)
``{root}/{experiment}.parquet``                 the experiment's results (rule ``summarise``)
``{root}/theory/{experiment}.csv|html``         its theory check
``{root}/theory/summary.csv|html``              theory vs practice, every experiment
``{root}/theory/cost_of_privacy.csv|html``      private ÷ non-private twin, every experiment
``{root}/report/landing.html``                  the report's landing page (counts, links)
``{root}/report/{experiment}_gallery.html``     its figures, each caption beside it
``{root}/figures/{stem}.png|pdf``               its figures (:func:`figure_stem`; PDF only with
                                                the config key ``figures_pdf``)
``{root}/captions/{stem}.rst``                  each figure's caption, for the report
``{root}/logs/...``                             job logs
``{root}/.owner``                               the config that owns the directory
==============================================  =========================================

The output directory is the config's ``output`` key if it has one; else ``results`` for
the default config (``config/config.yaml``, today's paths), else ``results/{name}`` with
``name`` the config file's stem (its directory's name for a file called ``config.yaml``,
e.g. ``examples/plugin/config.yaml`` → ``results/plugin``). A name that is a directory of
the default run (``runs``, ``figures``, ...) gets a ``run-`` prefix, so a derived directory
never holds another run's files. Two configs that still end up with one directory (the
same stem in two folders, or the same ``output``) are stopped by :func:`claim`: the first
run records its config in ``{root}/.owner``, and a run of another config there stops with
one line before any job. An ``output`` inside another run's own folders
(``results/theory``; :func:`nesting_error`) is refused the same way.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path

from dpbench.foundation import registry

#: the directory of the default config's run, and the default config itself
DEFAULT_ROOT = "results"
#: the workflow's default config, relative to the directory Snakemake (or dpbench) runs in:
#: a run of it writes to :data:`DEFAULT_ROOT` itself
DEFAULT_CONFIG = Path("config") / "config.yaml"

#: directories of a run: a derived ``results/{name}`` may not be one of the default run's
RUN_DIRS = ("runs", "theory", "figures", "captions", "logs")


def figure_stem(experiment: str, name: str) -> str:
    """File stem of one figure: ``{experiment}_{name}``, or ``{experiment}`` for ``name == ""``."""
    return f"{experiment}_{name}" if name else experiment


def shard_id(index: int, count: int) -> str:
    """The name of shard ``index`` of ``count`` in its file name (``{root}/runs/ID/{name}.parquet``)."""
    return f"{index:03d}"


def figure_stems(experiment: str) -> dict[str, str]:
    """Figure name → file stem, for every figure the experiment registers."""

    return {name: figure_stem(experiment, name) for name in registry.experiment(experiment).figures}


@dataclass(frozen=True)
class RunPaths:
    """The files of one run under ``root`` (a relative POSIX path, no trailing slash)."""

    root: str = DEFAULT_ROOT

    def shard(self, experiment: str, shard: str) -> str:
        return f"{self.root}/runs/{experiment}/{shard}.parquet"

    def shards(self, experiment: str, count: int) -> list[str]:
        """The files of an experiment's ``count`` shards, in order."""
        return [self.shard(experiment, shard_id(i, count)) for i in range(count)]

    def shard_log(self, experiment: str, shard: str) -> str:
        return f"{self.root}/logs/run_shard/{experiment}/{shard}.log"

    def results(self, experiment: str) -> str:
        return f"{self.root}/{experiment}.parquet"

    def theory_csv(self, experiment: str) -> str:
        return f"{self.root}/theory/{experiment}.csv"

    def theory_html(self, experiment: str) -> str:
        return f"{self.root}/theory/{experiment}.html"

    def figure(self, stem: str, ext: str) -> str:
        return f"{self.root}/figures/{stem}.{ext}"

    def caption(self, stem: str) -> str:
        return f"{self.root}/captions/{stem}.rst"

    @property
    def summary_csv(self) -> str:
        """Theory vs practice over every experiment (rule ``summarise``)."""
        return f"{self.root}/theory/summary.csv"

    @property
    def summary_html(self) -> str:
        return f"{self.root}/theory/summary.html"

    @property
    def cost_of_privacy_csv(self) -> str:
        """The cost of privacy over every experiment (rule ``cost_of_privacy``)."""
        return f"{self.root}/theory/cost_of_privacy.csv"

    @property
    def cost_of_privacy_html(self) -> str:
        return f"{self.root}/theory/cost_of_privacy.html"

    @property
    def landing_html(self) -> str:
        """The report's landing-page fragment (rule ``summarise``; workflow/report/workflow.rst
        includes it from the run's directory)."""
        return f"{self.root}/report/landing.html"

    def gallery_html(self, experiment: str) -> str:
        """The experiment's figures with their captions beside them (rule ``summarise``;
        dpbench.reporting.report_gallery), a page of the report."""
        return f"{self.root}/report/{experiment}_gallery.html"

    def summarise_log(self, experiment: str) -> str:
        return f"{self.root}/logs/summarise/{experiment}.log"

    def figure_files(self, experiment: str, pdf: bool = False) -> dict[str, dict[str, str]]:
        """Figure stem → its ``png`` and ``caption`` files (and ``pdf`` if ``pdf``: the
        config key ``figures_pdf``), for every figure the experiment registers."""
        out = {}
        for stem in figure_stems(experiment).values():
            out[stem] = {"png": self.figure(stem, "png"), "caption": self.caption(stem)}
            if pdf:
                out[stem]["pdf"] = self.figure(stem, "pdf")
        return out

    def experiment_outputs(self, experiment: str, pdf: bool = False) -> list[str]:
        """Every file of an experiment the workflow's ``all`` target asks for (``pdf``: the
        config key ``figures_pdf``)."""
        out = [self.results(experiment), self.theory_csv(experiment), self.theory_html(experiment)]
        for files in self.figure_files(experiment, pdf).values():
            out += [files[kind] for kind in ("pdf", "png") if kind in files]
        return out + [self.gallery_html(experiment)]

    @property
    def owner(self) -> str:
        return f"{self.root}/.owner"


def _clean(path: str) -> str:
    out = posixpath.normpath(str(path).replace(os.sep, "/")).rstrip("/")
    return out or "."


def output_root(output: str | None, config_file: str | Path | None) -> str:
    """The run's output directory (see the module docstring): ``output`` if given, else
    derived from ``config_file`` (None: the default config)."""
    if output:
        return _clean(output)
    if config_file is None or Path(config_file).resolve() == DEFAULT_CONFIG.resolve():
        return DEFAULT_ROOT
    path = Path(config_file)
    name = path.parent.resolve().name if path.stem == "config" else path.stem
    if name in RUN_DIRS:
        name = f"run-{name}"
    return f"{DEFAULT_ROOT}/{name}"


def owner_id(config_file: str | Path | None, workdir: str | Path = ".") -> str:
    """How ``{root}/.owner`` names a config: its path relative to the working directory
    (so moving a checkout with its results keeps the owner), or absolute outside it."""
    path = Path(config_file).resolve() if config_file is not None else DEFAULT_CONFIG.resolve()
    rel = os.path.relpath(path, Path(workdir).resolve())
    return path.as_posix() if rel.startswith("..") else Path(rel).as_posix()


class OutputClash(ValueError):
    """Another config's run owns the output directory."""


#: the directories of a run's own files (:data:`RUN_DIRS` and the report's): another run's
#: output may sit beside them in its directory (``results/plugin``), never inside one
OWN_DIRS = (*RUN_DIRS, "report")


def _inside_own_dir(root: str, run_root: str) -> bool:
    """Whether ``root`` is ``run_root/D`` or below it, for D one of :data:`OWN_DIRS`."""
    rel = posixpath.relpath(_clean(root), _clean(run_root))
    return not rel.startswith("..") and rel != "." and rel.split("/", 1)[0] in OWN_DIRS


def nesting_error(root: str, workdir: str | Path | None = None) -> str | None:
    """Why ``root`` may not be a run's output directory, or None: it lies inside the default
    run's own directories (``results/theory``, ``results/figures/x``, ...) or, with
    ``workdir``, inside those of any run found there (a directory holding a ``.owner``)."""
    runs = [DEFAULT_ROOT]
    if workdir is not None:
        parts = _clean(root).split("/")
        runs += ["/".join(parts[:i]) for i in range(1, len(parts)) if (Path(workdir, *parts[:i]) / ".owner").is_file()]
    for run in runs:
        if _inside_own_dir(root, run):
            own = posixpath.relpath(_clean(root), run).split("/", 1)[0]
            return (f"{_clean(root)}/ lies in {run}/{own}/, a folder of the run in {run}/; "
                    f"give this run a directory of its own (e.g. {run}/NAME)")
    return None


def check_owner(paths: RunPaths, config_file: str | Path | None, workdir: str | Path = ".") -> None:
    """Raise :class:`OutputClash` if ``{root}/.owner`` names another config, or if the
    directory lies inside another run's own folders (:func:`nesting_error`)."""
    nested = nesting_error(paths.root, workdir)
    if nested:
        raise OutputClash(nested)
    marker = Path(workdir) / paths.owner
    mine = owner_id(config_file, workdir)
    if marker.is_file():
        theirs = marker.read_text().strip()
        if theirs and theirs != mine:
            raise OutputClash(
                f"output directory {paths.root}/ holds the results of {theirs}; "
                f"give this config its own `output:` directory (or delete {paths.root}/)"
            )


def claim(paths: RunPaths, config_file: str | Path | None, workdir: str | Path = ".") -> None:
    """Record the config as the owner of its output directory (after :func:`check_owner`)."""
    check_owner(paths, config_file, workdir)
    marker = Path(workdir) / paths.owner
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(owner_id(config_file, workdir) + "\n")
