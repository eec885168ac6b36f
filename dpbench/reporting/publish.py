"""``dpbench publish RUN_DIR --config CONFIG``: a finished run's outputs as reference results.

Copies, from a run's output directory (``results`` for the default config; the workflow
prints it), every experiment's figures (PNG), theory-check CSV (the privacy audit's is
``theory/privacy_audit.csv``) and raw results (``{experiment}.parquet``, published as
``results/{experiment}.parquet``: every row, so a reader can recompute any verdict), the
theory summary (``theory/summary.csv``) and the cost of privacy
(``theory/cost_of_privacy.csv``) where the run wrote them, and, if given, the Snakemake
report (``snakemake --report``), into ``OUT`` (default ``docs/paper``), with

- ``config.yaml``: the config the run came from, byte for byte;
- ``SOURCE.md``: the commit (``git rev-parse HEAD``; ``-dirty`` if the work tree had
  changes to tracked files), the config file and its SHA-256, when it was published, and,
  where the run's shard logs are there, its run_shard jobs' summed CPU (:func:`run_cpu`)
  beside the CPU-hours ``dpbench plan`` predicts; the machine (CPU model, cores) and the
  library stack (:mod:`dpbench.foundation.machine`: ``stack.*`` must match for the rows to
  be bit-identical, ``lib.*`` only draw). Publish runs in the run's environment: a results
  file whose rows name another NumPy than this process's is refused;
- ``README.md``: the report page — every figure with its caption and a count of the
  theory verdicts per experiment.

:func:`read_source` reads ``SOURCE.md`` back; :func:`cheapest_shards`, :func:`rerun` and
:func:`row_differences` re-run shards of the published config and compare their rows with
the published ones (tests/test_published_results.py: the publication cannot drift from
the code unnoticed).

Everything the config's experiments should have produced must be there (a missing file
is one error line naming it, exit status 2, and nothing is written); the directory is
replaced at once (written beside it, then renamed), so ``OUT`` never holds a mix of two
runs.
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from dpbench.experiments.base import run_shard
from dpbench.foundation.cell import Cell
from dpbench.foundation.machine import machine, other_libraries, row_stack
from dpbench.foundation.provenance import cell_code_hash
from dpbench.foundation.results import TIMING_COLUMNS
from dpbench.orchestration.config import load
from dpbench.orchestration.plan import make_plan
from dpbench.reporting.docs import ROOT, not_a_checkout
from dpbench.reporting.pipeline import figure_stems

#: where the raw results go inside the published directory (``results/{experiment}.parquet``)
RAW_DIR = "results"
#: tables over every experiment, published where the run wrote them
TABLES = {"theory vs practice": "theory/summary.csv", "the cost of privacy": "theory/cost_of_privacy.csv"}
#: columns a re-run need not reproduce: timings, and provenance that names the code or
#: config by a hash (a docstring edit changes ``code_hash``, not a row's numbers)
NOT_COMPARED = (*TIMING_COLUMNS, "code_hash", "config_hash", "dpbench_version")


class PublishError(ValueError):
    """A run directory that is not a complete run of the config (one line)."""


def commit_of(repo: Path) -> str:
    """``git rev-parse HEAD`` of ``repo``, ``-dirty`` appended if tracked files changed;
    ``unknown`` outside a git checkout."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def _checkout() -> Path:
    """The source checkout of this dpbench, or (installed from a wheel) the working
    directory: the workflow checkout the run was made in."""
    return Path.cwd() if not_a_checkout() else ROOT


def expected_files(run_dir: Path, experiments: list[str]) -> dict[str, Path]:
    """Published name → file of the run, for every experiment of the config."""
    files: dict[str, Path] = {}
    for exp in experiments:
        files[f"theory/{exp}.csv"] = run_dir / "theory" / f"{exp}.csv"
        files[f"{RAW_DIR}/{exp}.parquet"] = run_dir / f"{exp}.parquet"
        for stem in figure_stems(exp).values():
            files[f"figures/{stem}.png"] = run_dir / "figures" / f"{stem}.png"
    return files


def _verdicts(csv_path: Path) -> str:
    """``ok 12, fails 1, …``: the counts of the CSV's verdict column (if it has one)."""
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    column = next((c for c in ("verdict", "status", "result") if rows and c in rows[0]), None)
    if column is None:
        return f"{len(rows)} rows"
    counts: dict[str, int] = {}
    for row in rows:
        counts[row[column]] = counts.get(row[column], 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))


def logged_job_cpu(log: Path) -> float | None:
    """The CPU seconds a run_shard job logged on its ``job cpu`` line
    (workflow/scripts/run_shard.py), None if the log or the line is missing."""
    found = re.findall(r"job cpu ([0-9.]+)s", log.read_text(errors="replace")) if log.is_file() else []
    return float(found[-1]) if found else None


def run_cpu(run_dir: Path) -> tuple[int, float]:
    """(shard jobs, their CPU seconds summed): :func:`logged_job_cpu` of each run_shard job
    of the run (``logs/run_shard/EXPERIMENT/SHARD.log``; 0 jobs where none is found)."""
    logged = [cpu for log in sorted((run_dir / "logs" / "run_shard").glob("*/*.log")) if (cpu := logged_job_cpu(log)) is not None]
    return len(logged), sum(logged)


def _caption(run_dir: Path, stem: str) -> str:
    path = run_dir / "captions" / f"{stem}.rst"
    return " ".join(path.read_text().split()) if path.exists() else ""


def report_page(run_dir: Path, experiments: list[str], source: dict[str, str]) -> str:
    """The Markdown page of the published run: provenance, verdict counts, every figure."""
    lines = [
        "# Reference results",
        "",
        f"Published by `dpbench publish` from commit `{source['commit']}` and config "
        f"[`config.yaml`](config.yaml) (a copy of `{source['config']}`, SHA-256 `{source['config_sha256'][:16]}…`), "
        f"on {source['published']}. Regenerate: `snakemake --cores all --configfile {source['config']}`, then "
        f"`dpbench publish RUN_DIR --config {source['config']}`.",
        "",
        *([f"Its {source['shard_jobs']} run_shard jobs used {source['shard_cpu_hours']} CPU-hours (each job's logged process CPU); "
           f"`dpbench plan` predicts {source['predicted_cpu_hours']} for this config at this commit.", ""] if "shard_jobs" in source else []),
        "The machine, library stack and how to check these results against the code: [SOURCE.md](SOURCE.md).",
        "",
        "| experiment | theory check | verdicts | raw results |",
        "|---|---|---|---|",
    ]
    for exp in experiments:
        raw = f"{RAW_DIR}/{exp}.parquet"
        verdicts = _verdicts(run_dir / "theory" / f"{exp}.csv")
        lines.append(f"| {exp} | [theory/{exp}.csv](theory/{exp}.csv) | {verdicts} | [{raw}]({raw}) |")
    tables = [(name, path) for name, path in TABLES.items() if (run_dir / path).is_file()]
    if tables:
        lines += ["", "Over every experiment: " + "; ".join(f"{name} [{path}]({path})" for name, path in tables) + "."]
    for exp in experiments:
        lines += ["", f"## {exp}"]
        for name, stem in figure_stems(exp).items():
            lines += ["", f"![{name or exp}](figures/{stem}.png)", "", _caption(run_dir, stem)]
    return "\n".join(lines).rstrip() + "\n"


def _check_environment(files: dict[str, Path], numpy_version: str) -> None:
    """Refuse to publish rows made with another NumPy than this process's: SOURCE.md records
    this process's stack as the rows' own."""
    import pyarrow.parquet as pq  # deferred: pyarrow, only where publish reads results

    for name, path in files.items():
        if name.endswith(".parquet"):
            found = set(pq.read_table(path, columns=["numpy_version"]).column("numpy_version").to_pylist()) - {None}
            if found - {numpy_version}:
                raise PublishError(f"{path}: rows made with numpy {', '.join(sorted(found))}, but publish runs with "
                                   f"numpy {numpy_version}: publish from the environment the run used "
                                   "(SOURCE.md records its library stack)")


def _check_code(files: dict[str, Path], config: Path, rows_from: str | None) -> None:
    """Refuse to publish rows whose ``code_hash`` is not that of this checkout's code for
    their cells (a stale run would go out under this commit), unless ``rows_from`` names the
    commit the shards ran at — SOURCE.md then says so, and the drift test re-runs shards at
    this commit against those rows."""
    import pyarrow.parquet as pq  # deferred: pyarrow, only where publish reads results

    current = {cell_code_hash(cell) for plan in load(config).experiments.values() for cell in plan.cells}
    for name, path in files.items():
        if name.endswith(".parquet"):
            stale = set(pq.read_table(path, columns=["code_hash"]).column("code_hash").to_pylist()) - current
            if stale and rows_from is None:
                raise PublishError(f"{path}: rows made by other code than this checkout's (code_hash {sorted(stale)[0]}): "
                                   "re-run the run's shards, or give --rows-from COMMIT, the commit they ran at")


def source_page(source: dict[str, str]) -> str:
    """SOURCE.md: one ``- key: `value``` line per fact (:func:`read_source` reads them back),
    under headings."""
    groups = [("Provenance", lambda k: "." not in k and k not in ("cpu", "cores", "os")),
              ("Machine", lambda k: k in ("cpu", "cores", "os")),
              ("Library stack: rows are bit-identical only where every `stack.*` matches",
               lambda k: k.startswith("stack.")),
              ("Other libraries (figures, workflow; not compared)", lambda k: k.startswith("lib."))]
    lines = ["# Source of these results", "",
             "Check them against the code: `pytest -m slow tests/test_published_results.py` re-runs two shards of "
             "[config.yaml](config.yaml) and compares their rows with `results/*.parquet` (bit for bit on this stack; "
             "skipped, saying why, on another)."]
    for title, wanted in groups:
        keys = [k for k in source if wanted(k)]
        if keys:
            lines += ["", f"## {title}", "", *(f"- {k}: `{source[k]}`" for k in keys)]
    return "\n".join(lines) + "\n"


def read_source(out: str | Path) -> dict[str, str]:
    """The facts of a published directory's SOURCE.md (:func:`source_page`), key → value."""
    return dict(re.findall(r"^- ([\w.-]+): `([^`]*)`$", (Path(out) / "SOURCE.md").read_text(), flags=re.MULTILINE))


def stack_mismatch(out: str | Path) -> str | None:
    """Why rows re-run here need not be bit-identical to those published in ``out``: the
    ``stack.*`` entries of its SOURCE.md that differ from :func:`row_stack` (None: the same
    stack)."""
    facts = read_source(out)
    recorded = {key.removeprefix("stack."): value for key, value in facts.items() if key.startswith("stack.")}
    if not recorded:
        return f"{Path(out) / 'SOURCE.md'} records no library stack"
    here = row_stack()
    differ = [f"{key} {recorded.get(key, '-')} published, {here.get(key, '-')} here"
              for key in sorted(set(recorded) | set(here)) if recorded.get(key) != here.get(key)]
    return "another library stack: " + "; ".join(differ) if differ else None


def cheapest_shards(config: str | Path, count: int = 2) -> list[tuple[str, list[Cell]]]:
    """(experiment, cells) of the ``count`` shards of ``config``'s plan predicted cheapest,
    each from another experiment (so two shards test two experiments' code)."""
    grid = load(config)
    found = []
    for exp, plan in grid.experiments.items():
        seconds, cells = min(zip(plan.shard_seconds(), plan.shards()), key=lambda pair: pair[0])
        found.append((seconds, exp, cells))
    return [(exp, cells) for _, exp, cells in sorted(found, key=lambda t: t[:2])[:count]]


def rerun(config: str | Path, experiment: str, cells: list[Cell], out: str | Path):
    """Run ``cells`` of ``config``'s ``experiment`` as the workflow's run_shard job would
    (same root seed and config hash), into the Parquet file ``out``; its rows as a DataFrame."""
    import pandas as pd  # deferred: pandas, only where results are read

    grid = load(config)
    run_shard(cells, root_seed=grid.seed, out=out, config_hash=grid.experiments[experiment].config_hash,
              cell_timeout=grid.cell_timeout_seconds)
    return pd.read_parquet(out)


def _plain(value):
    """A NumPy scalar as the Python value it holds (``0.5``, not ``np.float64(0.5)``)."""
    return value.item() if hasattr(value, "item") else value


def row_differences(published, rerun_rows) -> list[str]:
    """What differs between the re-run rows and the published rows of the same (cell, repetition),
    bit for bit, outside :data:`NOT_COMPARED`: an empty list when they are identical. Rows
    are matched by ``cell_key`` and ``rep`` (a cell's repetitions may be split between
    shards; within a repetition the rows keep the order they were written in)."""
    keys = set(zip(rerun_rows["cell_key"], rerun_rows["rep"].fillna(-1)))
    mine = published[[key in keys for key in zip(published["cell_key"], published["rep"].fillna(-1))]]
    columns = [c for c in published.columns if c not in NOT_COMPARED]
    problems = [f"{c}: a column of the re-run rows only" for c in rerun_rows.columns
                if c not in NOT_COMPARED and c not in published.columns]
    problems += [f"{c}: a published column the re-run rows lack" for c in columns if c not in rerun_rows.columns]
    columns = [c for c in columns if c in rerun_rows.columns]

    def aligned(df):
        return df.sort_values(["cell_key", "rep"], kind="stable", na_position="first")[columns].reset_index(drop=True)

    a, b = aligned(mine), aligned(rerun_rows)
    if len(a) != len(b):
        pairs = f"the same {len(keys)} (cell, repetition) pairs"
        return problems + [f"{len(b)} rows re-run, {len(a)} published for {pairs}"]
    for column in columns:
        left, right = a[column], b[column]
        if left.dtype != right.dtype:  # collection widens a column other problems leave empty (int -> float,
            try:                         # bool -> object): compare the re-run values in the published dtype
                right = right.astype(left.dtype)
            except (TypeError, ValueError):
                problems.append(f"{column}: dtype {left.dtype} published, {right.dtype} re-run")
                continue
        if left.dtype.kind == "f":  # bit for bit: -0.0 is not 0.0 (NaN payloads aside)
            lv, rv = left.to_numpy(), right.to_numpy()
            same = (lv.view(f"u{lv.itemsize}") == rv.view(f"u{rv.itemsize}")) | ((lv != lv) & (rv != rv))  # bits equal, or both NaN
        else:
            same = ((left == right) | (left.isna() & right.isna())).to_numpy()
        if not same.all():
            i = int((~same).argmax())
            problems.append(f"{column}: {int((~same).sum())} of {len(a)} rows differ, first at cell {a['cell_key'][i]} "
                            f"rep {a['rep'][i]}: published {_plain(left[i])!r}, re-run {_plain(right[i])!r}")
    return problems


def publish(run_dir: str | Path, config: str | Path, out: str | Path = "docs/paper", *, report: str | Path | None = None,
            repo: str | Path | None = None, rows_from: str | None = None) -> Path:
    """Publish a complete run of ``config`` from ``run_dir`` into ``out`` (replaced whole).
    ``rows_from``: the commit the run's shards ran at, where it is not this checkout's
    (:func:`_check_code`)."""

    run_dir, config, out = Path(run_dir), Path(config), Path(out)
    experiments = list(load(config).experiments)
    files = expected_files(run_dir, experiments)
    missing = [str(path) for path in files.values() if not path.is_file()]
    if missing:
        raise PublishError(f"{run_dir} is not a complete run of {config}: missing {missing[0]}" + (f" and {len(missing) - 1} more" if len(missing) > 1 else ""))
    if report is not None and not Path(report).is_file():
        raise PublishError(f"--report {report}: no such file")
    text = config.read_bytes()
    source = {
        "commit": commit_of(Path(repo) if repo else _checkout()),
        "config": str(config),
        "config_sha256": hashlib.sha256(text).hexdigest(),
        "published": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    jobs, seconds = run_cpu(run_dir)
    if jobs:
        source |= {"shard_jobs": str(jobs), "shard_cpu_hours": f"{seconds / 3600:.2f}", "predicted_cpu_hours": f"{make_plan(load(config)).cpu_hours:.2f}"}
    stack = row_stack()
    _check_environment(files, stack["numpy"])
    _check_code(files, config, rows_from)
    if rows_from is not None:
        source["rows_commit"] = rows_from
    source |= machine() | {f"stack.{k}": v for k, v in stack.items()}
    source |= {f"lib.{k}": v for k, v in other_libraries().items()}
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        # theory vs practice and the cost of privacy, over all experiments, where the run has them
        tables = {name: run_dir / name for name in TABLES.values() if (run_dir / name).is_file()}
        for name, path in {**files, **tables}.items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, staging / name)
        if report is not None:
            shutil.copyfile(report, staging / Path(report).name)
        (staging / "config.yaml").write_bytes(text)
        (staging / "SOURCE.md").write_text(source_page(source))
        (staging / "README.md").write_text(report_page(run_dir, experiments, source))
        old = None
        if out.exists():
            old = out.with_name(f".{out.name}-old-{os.getpid()}")
            out.rename(old)
        staging.rename(out)
        if old is not None:
            shutil.rmtree(old)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return out
