"""Shared fixtures (a fixed-seed generator, the repository root, a snakemake runner, the
workflow runs several test files read) and the order the two xdist workers take tests in.

Scheduling (``--dist loadgroup``, pyproject.toml): every test file is one unit of work, as
under ``--dist loadfile``, except that the tests using one shared run (:data:`SHARED_RUNS`)
form one unit together, so that run is made once per session, on one worker. The units are
handed out slowest first (:data:`SLOW_FIRST`), so the two workers finish together instead of
one starting the 3-minute default run when the other is nearly done.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]

# the tests predict costs with the shipped table, whatever `dpbench calibrate` wrote for this
# machine (~/.config/dpbench/cost_table.json): their pins and shard layouts depend on it
os.environ["DPBENCH_COST_TABLE"] = "shipped"
TINY_CONFIG = REPO / "tests" / "data" / "tiny.yaml"
PLUGIN_CONFIG = REPO / "examples" / "plugin" / "config.yaml"

#: session fixtures holding a whole workflow run: every test using one (directly or through
#: another fixture) is sent to the same worker, which makes the run once
SHARED_RUNS = ("default_run", "tiny_run", "plugin_example_run", "shrunk_paper_run")

#: units of work, slowest first (measured with `CI=true pytest --durations=0`); every other
#: file follows in collection order
SLOW_FIRST = (
    "default_run",  # the default config end to end: theory, private_erm, DP-Winnow doc checks
    "tests/test_slurm.py",  # waits on a real scheduler (started by tests/tools/slurm_local_setup.sh): overlaps the CPU-bound units
    "tiny_run",  # the tiny config end to end, its report, Chromium, a second run, publish
    "shrunk_paper_run",  # the shrunk paper grid end to end (tests/test_shrink.py), its figures refereed (tests/test_figures.py)
    "tests/test_shrink.py",
    "tests/test_s3.py",
    "tests/test_wheel.py",  # builds and installs the wheel into a fresh environment (~1 min)
    "plugin_example_run",  # examples/plugin/config.yaml end to end
    "tests/test_outputs.py",
    "tests/test_plugins.py",
    "tests/test_plan.py",
    "tests/test_workflow_e2e.py",
    "tests/test_docs.py",
)


def _unit(item: pytest.Item) -> str:
    """The unit of work ``item`` belongs to: the shared run it uses, else its file."""
    for name in SHARED_RUNS:
        if name in item.fixturenames:
            return name
    return item.nodeid.split("::", 1)[0]


def grouping(config) -> bool:
    """Whether this process schedules by xdist_group: the controller sees ``--dist loadgroup``;
    an xdist worker (where the hook that matters runs: it sends the nodeids) has ``dist`` reset
    to ``"no"`` and ``loadgroup`` set instead (xdist.remote.setup_config)."""
    return getattr(config.option, "dist", "no") == "loadgroup" or bool(getattr(config.option, "loadgroup", False))


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {unit: i for i, unit in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(_unit(item), len(rank)))  # stable: the rest keep their order
    if grouping(config):
        for item in items:
            if not any(item.iter_markers("xdist_group")):
                item.add_marker(pytest.mark.xdist_group(_unit(item)))
            if getattr(config.option, "loadgroup", False):  # an xdist worker
                _suffix_nodeid(item)


def _suffix_nodeid(item: pytest.Item) -> None:
    """Append ``@group`` to the id the worker reports, as xdist's own hook means to: it sets
    ``item._nodeid``, which pytest ≥ 9.2 no longer reads (ids are ``_pytest.nodeid.NodeId``;
    pytest-xdist issue #1386, fix pending in PR #1388), so without this every test would be
    its own unit and each shared run would be made on both workers."""
    try:
        from _pytest.nodeid import NodeId  # pytest ≥ 9.2
    except ImportError:  # older pytest reads item._nodeid, which xdist's own hook suffixes
        return

    ident = item.nodeid
    groups = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")})
    if groups and "@" not in ident.rsplit("]", 1)[-1]:
        item._id = NodeId.parse(f"{ident}@{'_'.join(groups)}")


#: the example plugin's source (examples/plugin): not on a package index, so the test extra
#: cannot install it; where it is not installed the tests import it from here
PLUGIN_SRC = REPO / "examples" / "plugin" / "src"


def example_plugin_on_path() -> None:
    """Make ``dpbench_noisy_max`` importable here and in every process the tests start
    (``PYTHONPATH``) when it is not installed (``pip install -e ".[test]"`` alone); the
    plugin config names the module (``plugins:``), so its runs find it without the entry point."""
    import importlib.util

    if importlib.util.find_spec("dpbench_noisy_max") is not None:
        return
    sys.path.insert(0, str(PLUGIN_SRC))
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(PLUGIN_SRC), os.environ.get("PYTHONPATH", "")) if p)


def pytest_configure(config: pytest.Config) -> None:
    """Every process the tests start skips the SLURM executor plugin's start-up probe
    (``scontrol show config``, ~9 s per snakemake start where SLURM is installed and no
    controller runs): this process's PATH becomes
    :func:`dpbench.orchestration.local_run.local_env`'s, which its subprocesses and xdist
    workers inherit. The SLURM tests start theirs with ``real_env`` (the real probe). And
    the example plugin (:func:`example_plugin_on_path`)."""
    from dpbench.orchestration.local_run import local_env

    example_plugin_on_path()
    os.environ["PATH"] = local_env()["PATH"]


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def run_snakemake(workdir: Path, *args: str, configfile: Path = TINY_CONFIG, cores: int = 2,
                  timeout: float = 900) -> subprocess.CompletedProcess:
    """Run the repository's workflow in ``workdir`` (its own results/ and .snakemake/)."""
    cmd = [
        sys.executable, "-m", "snakemake",
        "--snakefile", str(REPO / "Snakefile"),
        "--directory", str(workdir),
        "--configfile", str(configfile),
        "--cores", str(cores),
        *args,
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


@pytest.fixture(scope="session")
def default_run(tmp_path_factory) -> Path:
    """The default config (config/config.yaml) run once through snakemake (~3 min on 2 idle
    cores), or the run directory named by ``DPBENCH_DEFAULT_RUN``: read by
    tests/test_theory_default_run.py, tests/test_private_erm.py and
    tests/test_dp_winnow_summary.py (read only)."""
    given = os.environ.get("DPBENCH_DEFAULT_RUN")
    if given:
        return Path(given)
    workdir = tmp_path_factory.mktemp("default_run")
    # the default config as the README's run sees it: config/config.yaml of the working
    # directory, whose outputs go to results/ (a config file elsewhere names its own folder)
    (workdir / "config").mkdir()
    shutil.copy(REPO / "config" / "config.yaml", workdir / "config" / "config.yaml")
    proc = run_snakemake(workdir, configfile=workdir / "config" / "config.yaml", timeout=3600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return workdir


@pytest.fixture(scope="session")
def shrunk_paper_run(tmp_path_factory) -> tuple[Path, Path]:
    """``dpbench shrink config/paper.yaml`` and snakemake on its output, once per session:
    ``(workdir, shrunk config)``. tests/test_shrink.py checks every output is there;
    tests/test_figures.py referees every figure drawn from its results (the paper grid's
    panels and legends, at a size that runs in minutes). ``DPBENCH_SHRUNK_PAPER_RUN``, if set,
    names the shrunk config of a finished run made in the current directory instead."""
    from dpbench.cli import main

    given = os.environ.get("DPBENCH_SHRUNK_PAPER_RUN")
    if given:
        return Path.cwd(), Path(given)
    workdir = tmp_path_factory.mktemp("shrunk_paper")
    small = workdir / "paper_small.yaml"
    assert main(["shrink", str(REPO / "config" / "paper.yaml"), "-o", str(small)]) == 0
    proc = run_snakemake(workdir, "--keep-going", configfile=small, timeout=3600)
    failed = sorted(set(line.split("Error in rule ")[1].rstrip(":") for line in (proc.stdout + proc.stderr).splitlines() if "Error in rule " in line))
    assert proc.returncode == 0, f"failed rules: {failed}\n" + proc.stderr[-4000:]
    return workdir, small


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> Path:
    """The workflow run once on the tiny config (every experiment), shared by the
    end-to-end, report and publish tests (read only: a test that changes a run makes its own),
    or the run directory named by ``DPBENCH_TINY_RUN`` (a finished run of tests/data/tiny.yaml)."""
    given = os.environ.get("DPBENCH_TINY_RUN")
    if given:
        return Path(given)
    workdir = tmp_path_factory.mktemp("e2e_a")
    proc = run_snakemake(workdir)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return workdir


@pytest.fixture(scope="session")
def tiny_report(tiny_run) -> Path:
    """``snakemake --report`` on :func:`tiny_run`: results/report.html, built once for the
    tests that check it (tests/test_workflow_e2e.py, tests/test_report.py, tests/test_publish.py)."""
    proc = run_snakemake(tiny_run, "--report", "results/report.html")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return tiny_run / "results" / "report.html"


def declared_outputs(config_file: Path) -> set[str]:
    """Every file a run of ``config_file`` may write (dpbench.foundation.paths), without running it."""
    import yaml

    from dpbench.foundation.paths import DEFAULT_CONFIG, RunPaths, output_root
    from dpbench.orchestration.config import from_dict

    config = yaml.safe_load(config_file.read_text())
    grid = from_dict(config)
    paths = RunPaths(output_root(grid.output, None if config_file == DEFAULT_CONFIG else config_file))
    out = {paths.owner, paths.summary_csv, paths.summary_html, paths.landing_html, paths.summarise_log("summarise")}
    if any(exp != "privacy_audit" for exp in grid.experiments):
        out |= {paths.cost_of_privacy_csv, paths.cost_of_privacy_html}
    for exp, plan in grid.experiments.items():
        shards = paths.shards(exp, len(plan.shards()))
        out |= set(shards) | {paths.shard_log(exp, Path(s).stem) for s in shards}
        out |= set(paths.experiment_outputs(exp, grid.figures_pdf))
        out |= {files["caption"] for files in paths.figure_files(exp, grid.figures_pdf).values()}
    return out


def default_stand_ins() -> dict[str, bytes]:
    """Stand-ins for a default run's files (the run itself takes minutes): path -> contents."""
    from dpbench.foundation.paths import DEFAULT_CONFIG

    return {name: b"default run: " + name.encode() for name in sorted(declared_outputs(DEFAULT_CONFIG) - {"results/.owner"})}


@pytest.fixture(scope="session")
def plugin_example_run(tmp_path_factory) -> Path:
    """The README's plugin example (examples/plugin/config.yaml) run once through snakemake,
    beside :func:`default_stand_ins` and a default run's results/.owner: read by
    tests/test_outputs.py (the default files are untouched) and tests/test_plugins.py (the
    plugin learners' results)."""
    from dpbench.foundation.paths import DEFAULT_CONFIG

    workdir = tmp_path_factory.mktemp("plugin_example")
    for name, content in default_stand_ins().items():
        (workdir / name).parent.mkdir(parents=True, exist_ok=True)
        (workdir / name).write_bytes(content)
    (workdir / "results" / ".owner").write_text(str(DEFAULT_CONFIG) + "\n")
    proc = run_snakemake(workdir, configfile=PLUGIN_CONFIG)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return workdir
