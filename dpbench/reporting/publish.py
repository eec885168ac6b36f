"""``dpbench publish RUN_DIR --config CONFIG``: a finished run's outputs as reference results.

Copies, from a run's output directory (``results`` for the default config; the workflow
prints it), every experiment's figures (PNG), theory-check CSV (the privacy audit's is
``theory/privacy_audit.csv``), the theory summary (``theory/summary.csv``) if the run
wrote one, and, if given, the Snakemake report (``snakemake --report``),
into ``OUT`` (default ``docs/paper``), with

- ``config.yaml``: the config the run came from, byte for byte;
- ``SOURCE.md``: the commit (``git rev-parse HEAD``; ``-dirty`` if the work tree had
  changes to tracked files), the config file and its SHA-256, when it was published, and,
  where the run's shard logs are there, its run_shard jobs' summed CPU (:func:`run_cpu`)
  beside the CPU-hours ``dpbench plan`` predicts;
- ``README.md``: the report page — every figure with its caption and a count of the
  theory verdicts per experiment.

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

from dpbench.orchestration.config import load
from dpbench.orchestration.plan import make_plan
from dpbench.reporting.docs import ROOT, not_a_checkout
from dpbench.reporting.pipeline import figure_stems


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
        "| experiment | theory check | verdicts |",
        "|---|---|---|",
    ]
    for exp in experiments:
        lines.append(f"| {exp} | [theory/{exp}.csv](theory/{exp}.csv) | {_verdicts(run_dir / 'theory' / f'{exp}.csv')} |")
    for exp in experiments:
        lines += ["", f"## {exp}"]
        for name, stem in figure_stems(exp).items():
            lines += ["", f"![{name or exp}](figures/{stem}.png)", "", _caption(run_dir, stem)]
    return "\n".join(lines).rstrip() + "\n"


def publish(run_dir: str | Path, config: str | Path, out: str | Path = "docs/paper", *, report: str | Path | None = None, repo: str | Path | None = None) -> Path:
    """Publish a complete run of ``config`` from ``run_dir`` into ``out`` (replaced whole)."""

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
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        summary = run_dir / "theory" / "summary.csv"  # theory vs practice, all experiments
        for name, path in {**files, **({"theory/summary.csv": summary} if summary.is_file() else {})}.items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, staging / name)
        if report is not None:
            shutil.copyfile(report, staging / Path(report).name)
        (staging / "config.yaml").write_bytes(text)
        (staging / "SOURCE.md").write_text("".join(f"- {k}: `{v}`\n" for k, v in source.items()))
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
