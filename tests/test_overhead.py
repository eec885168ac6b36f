"""The workflow's overhead outside cells (issue 32 item 1): PDFs only when the config asks
(``figures_pdf``), every figure of a run drawn by the one ``summarise`` job, the SLURM
executor plugin's start-up probe skipped by local runs, and the summary's theory tables
cached on disk."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dpbench.cli import main
from dpbench.foundation.paths import RunPaths, figure_stem
from dpbench.orchestration.config import ConfigError, from_dict
from dpbench.orchestration.local_run import SHIM_PREFIX, local_env, real_env, snakemake_env, uses_slurm
from tests.conftest import REPO, TINY_CONFIG


def _config(**top) -> dict:
    config = yaml.safe_load(TINY_CONFIG.read_text())
    config["experiments"] = {"linear_loss": config["experiments"]["linear_loss"] | {"shards": 1}}
    return config | top


# --- figures_pdf ----------------------------------------------------------------------


def test_figures_pdf_defaults_off_and_is_validated(tmp_path, capsys):
    assert from_dict(_config()).figures_pdf is False
    assert from_dict(_config(figures_pdf=True)).figures_pdf is True
    with pytest.raises(ConfigError) as info:
        from_dict(_config(figures_pdf="yes"))
    assert str(info.value).startswith("figures_pdf"), str(info.value)
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(_config(figures_pdf="yes")))
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "figures_pdf" in err and "Traceback" not in err


def test_declared_figure_files_follow_figures_pdf():
    paths = RunPaths("out")
    for files in paths.figure_files("linear_loss").values():
        assert set(files) == {"png", "caption"}
    for files in paths.figure_files("linear_loss", pdf=True).values():
        assert set(files) == {"png", "pdf", "caption"}
    assert not any(p.endswith(".pdf") for p in paths.experiment_outputs("linear_loss"))
    assert any(p.endswith(".pdf") for p in paths.experiment_outputs("linear_loss", pdf=True))


@pytest.mark.parametrize("pdf", [False, True])
def test_write_figures_writes_pdf_only_when_asked(tmp_path, pdf):
    from dpbench.experiments.base import run_shard
    from dpbench.foundation import registry
    from dpbench.reporting.pipeline import figure_files, summarise

    grid = from_dict(_config())
    (cells,) = grid.experiments["linear_loss"].shards()
    run_shard(cells, root_seed=grid.seed, out=tmp_path / "000.parquet")
    declared = [
        p for files in RunPaths(str(tmp_path)).figure_files("linear_loss", pdf).values() for p in files.values()
    ]
    summarise("linear_loss", [tmp_path / "000.parquet"], tmp_path / "r.parquet", tmp_path / "t.csv", None,
              figure_files("linear_loss", declared))  # fmt: skip
    for name in registry.experiment("linear_loss").figures:
        stem = figure_stem("linear_loss", name)
        assert (tmp_path / "figures" / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
        assert (tmp_path / "figures" / f"{stem}.pdf").is_file() == pdf
        if pdf:
            assert (tmp_path / "figures" / f"{stem}.pdf").read_bytes()[:5] == b"%PDF-"
    # nothing half-written is left beside them (each file is renamed into place)
    assert not [p for p in (tmp_path / "figures").iterdir() if p.name.startswith(".")]


def test_a_failed_save_leaves_no_figure(tmp_path):
    """A figure whose drawing fails while it is written leaves no file that looks complete."""
    import matplotlib.pyplot as plt

    from dpbench.plotting.style import save

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    ax.text(0.5, 0.5, "$\\notacommand$")  # mathtext fails when the file is drawn
    with pytest.raises(ValueError):
        save(fig, tmp_path / "broken")
    assert list(tmp_path.iterdir()) == []


# --- one summarise job draws every figure ---------------------------------------------------


def test_one_summarise_job_declares_every_figure_of_the_run(tmp_path):
    """The dry run of the default config: one summarise job, whose outputs are every
    figure (PNG and caption; no PDF by default) of every experiment, and every table."""
    from dpbench.foundation.paths import figure_stems

    config_file = REPO / "config" / "config.yaml"
    cmd = [sys.executable, "-m", "snakemake", "-n", "--snakefile", str(REPO / "Snakefile"), "--directory", str(tmp_path),
           "--configfile", str(config_file), "--cores", "2", "--summary"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=local_env())
    assert done.returncode == 0, done.stderr[-3000:]
    rule_of = {}
    for line in done.stdout.splitlines():
        fields = line.split("\t")
        if len(fields) > 2 and fields[0] != "output_file":  # (the table's header)
            rule_of[fields[0]] = fields[2]
    grid = from_dict(yaml.safe_load(config_file.read_text()))
    # the run's directory, as the workflow derived it from the --configfile path
    paths = RunPaths(next(k for k in rule_of if k.endswith("/conjunctions.parquet")).rsplit("/", 1)[0])
    for experiment in grid.experiments:
        for stem in figure_stems(experiment).values():
            assert rule_of.get(paths.figure(stem, "png")) == "summarise", stem
            assert rule_of.get(paths.caption(stem)) == "summarise", stem
            assert paths.figure(stem, "pdf") not in rule_of
        assert rule_of.get(paths.results(experiment)) == "summarise"
    for path in (paths.summary_csv, paths.cost_of_privacy_csv, paths.landing_html):
        assert rule_of.get(path) == "summarise", path
    assert {rule for rule in rule_of.values()} <= {"run_shard", "summarise", "all", "-"}


# --- the SLURM plugin's probe -----------------------------------------------------------------


def _fake_scontrol(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An environment whose 'real' scontrol records every call in a file."""
    bin_dir, calls = tmp_path / "bin", tmp_path / "calls"
    bin_dir.mkdir()
    fake = bin_dir / "scontrol"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {calls}\necho "MinJobAge = 300 sec"\n')
    fake.chmod(0o755)
    env = real_env()
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    return env, calls


def _import_plugin(env) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import snakemake_executor_plugin_slurm"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_local_run_skips_the_slurm_probe_and_a_slurm_run_keeps_it(tmp_path):
    """The plugin's import (what every snakemake start does) runs ``scontrol show config``
    with the real scontrol, and not in a local run's environment; other scontrol commands
    still reach the real one."""
    pytest.importorskip("snakemake_executor_plugin_slurm")
    env, calls = _fake_scontrol(tmp_path)
    _import_plugin(snakemake_env(["--workflow-profile", str(REPO / "workflow" / "profiles" / "slurm_local")], env))
    if not calls.exists():  # (the minimum-versions environment's plugin probes nothing at import)
        pytest.skip("this version of the SLURM plugin runs no scontrol probe when imported: nothing to skip")
    assert "show config" in calls.read_text()
    calls.unlink()
    _import_plugin(snakemake_env(["--cores", "2"], env))
    assert not calls.exists()
    done = subprocess.run(["scontrol", "show", "partition"], env=local_env(env), capture_output=True, text=True)
    assert done.returncode == 0 and calls.read_text() == "show partition\n"


def test_uses_slurm_reads_the_command_line_and_profiles():
    profiles = REPO / "workflow" / "profiles"
    assert uses_slurm(["--executor", "slurm"]) and uses_slurm(["-e", "slurm"]) and uses_slurm(["--executor=slurm"])
    assert uses_slurm(["--workflow-profile", str(profiles / "slurm")])
    assert uses_slurm(["--profile", str(profiles / "slurm_local")])
    assert not uses_slurm(["--cores", "2"]) and not uses_slurm(["--workflow-profile", str(profiles / "default")])


def test_local_env_is_idempotent_and_real_env_drops_the_shim():
    once = local_env()
    assert local_env(once)["PATH"] == once["PATH"]
    assert once["PATH"].split(":")[0].rsplit("/", 1)[-1].startswith(SHIM_PREFIX)
    assert SHIM_PREFIX not in real_env(once)["PATH"]


def test_local_run_names_the_line_of_a_configfile_yaml_error(tmp_path):
    """Snakemake reads --configfile before the Snakefile and names no line; the local runner
    checks first: one line with the file, line and column, exit status 2, no traceback."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 1\nexperiments:\n  a: [1,\n")
    command = [sys.executable, "-m", "dpbench.orchestration.local_run", "-n", "--cores", "1", "--configfile", str(bad)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert str(bad) in lines[0] and "line 4, column 1" in lines[0], done.stderr
