"""Plugins: learners defined outside dpbench are found by entry point (group
``dpbench.plugins``) and by a config's ``plugins:`` key, validate in configs, reach shard
jobs through the cells, and run end to end through snakemake (examples/plugin)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from dpbench.foundation import registry
from dpbench.orchestration.config import ConfigError, from_dict
from tests.conftest import REPO

PLUGIN_SOURCE = textwrap.dedent(
    '''
    """A plugin learner for the tests: elimination under another name."""
    from dataclasses import dataclass
    from typing import ClassVar

    from dpbench.learners.elimination import Elimination
    from dpbench.foundation.registry import register_learner


    @register_learner
    @dataclass(frozen=True, kw_only=True)
    class {cls}(Elimination):
        name: ClassVar[str] = "{name}"
    '''
)


@pytest.fixture
def clean_registry(monkeypatch):
    """Registry tables and plugin bookkeeping restored after the test."""
    registry.load_all()  # the catalogue into the real tables first (module imports happen once)
    monkeypatch.setattr(registry, "LEARNERS", dict(registry.LEARNERS))
    monkeypatch.setattr(registry, "PLUGIN_MODULES", list(registry.PLUGIN_MODULES))
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    yield
    for module in [m for m in sys.modules if m.startswith("tplug_")]:
        del sys.modules[module]


def test_register_learner_keywords_declare_the_class_attributes(clean_registry):
    """``@register_learner(name=..., ...)`` sets the ClassVars it is given, keeps the inherited
    ones, and registers under the declared name; a keyword it does not know, or a class and
    keywords together, raise (the catalogue's 31 learners and 9 problems use this form)."""
    from dataclasses import dataclass

    from dpbench.learners.elimination import Elimination

    @registry.register_learner(name="tkw_elimination", twin="elimination", private=True)
    @dataclass(frozen=True, kw_only=True)
    class KwElimination(Elimination):
        pass

    assert registry.LEARNERS["tkw_elimination"] is KwElimination
    assert (KwElimination.name, KwElimination.twin, KwElimination.private) == ("tkw_elimination", "elimination", True)
    assert (KwElimination.family, KwElimination.problems) == (Elimination.family, Elimination.problems)
    assert Elimination.name == "elimination" and Elimination.twin is None  # the base is untouched
    with pytest.raises(TypeError, match="nmae"):
        registry.register_learner(nmae="typo")
    with pytest.raises(TypeError):
        registry.register_learner(KwElimination, name="other")


def _write_module(where: Path, module: str, name: str) -> None:
    (where / f"{module}.py").write_text(PLUGIN_SOURCE.format(cls=name.title().replace("_", ""), name=name))


def _config(learners: list[str], plugins: list[str] | None = None) -> dict:
    config = {"seed": 1, "experiments": {"conjunctions": {
        "problem": "conjunction", "problem_params": {"d": 5, "k": 2}, "learners": learners,
        "epsilon": [1.0], "n": [50], "repetitions": 2, "shards": 1}}}
    return {**config, "plugins": plugins} if plugins is not None else config


def test_entry_point_plugin_is_found(tmp_path, monkeypatch, clean_registry):
    """An installed distribution's entry point (a dist-info on sys.path) is imported on a
    registry miss, without any config."""
    _write_module(tmp_path, "tplug_ep", "ep_elimination")
    dist = tmp_path / "tplug_ep-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tplug-ep\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[dpbench.plugins]\nmine = tplug_ep\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    cls = registry.learner("ep_elimination")
    assert registry.origin(cls) == "tplug_ep" and "tplug_ep" in registry.PLUGIN_MODULES
    assert registry.origin(registry.learner("elimination")) == "catalogue"
    grid = from_dict(_config(["elimination", "ep_elimination"]))
    assert {c.learner for c in grid.experiments["conjunctions"].cells} == {"elimination", "ep_elimination"}


def test_config_plugins_reach_the_shard_job(tmp_path, monkeypatch, clean_registry):
    """A ``plugins:`` module in the working directory validates, every cell carries it, and a
    fresh process (a shard job) that decodes the cells imports it and runs the learner."""
    _write_module(tmp_path, "tplug_cfg", "cfg_elimination")
    monkeypatch.chdir(tmp_path)
    grid = from_dict(_config(["elimination", "cfg_elimination"], plugins=["tplug_cfg"]))
    cells = grid.experiments["conjunctions"].cells
    assert all(c.plugins == ("tplug_cfg",) for c in cells)
    plain = from_dict(_config(["elimination"])).experiments["conjunctions"].cells[0]
    same = next(c for c in cells if c.learner == "elimination")
    assert same == plain and same.key_string() == plain.key_string(), "plugins must not change keys or seeds"
    job = textwrap.dedent(
        """
        import sys
        from dpbench.experiments.base import draw_target
        from dpbench.foundation.cell import cells_from_json
        from dpbench.foundation import registry
        cell = [c for c in cells_from_json(sys.stdin.read()) if c.learner == "cfg_elimination"][0]
        rows = registry.experiment(cell.experiment).run_cell(cell, draw_target(cell, 1), 1)
        print(len(rows), rows[0]["learner"])
        """
    )
    payload = json.dumps([c.to_dict() for c in cells])
    proc = subprocess.run([sys.executable, "-c", job], input=payload, capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["2", "cfg_elimination"]


def test_bad_plugin_module_is_a_config_error(clean_registry):
    with pytest.raises(ConfigError, match=r"^plugins\[0\]: cannot import plugin module 'tplug_missing'"):
        from_dict(_config(["elimination"], plugins=["tplug_missing"]))
    with pytest.raises(ConfigError, match=r"^plugins\[0\]"):
        from_dict(_config(["elimination"], plugins=["not a module"]))


def test_plugin_with_a_catalogue_name_is_refused(tmp_path, monkeypatch, clean_registry):
    _write_module(tmp_path, "tplug_clash", "erm")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match=r"plugins\[0\].*registered twice"):
        from_dict(_config(["elimination"], plugins=["tplug_clash"]))


# --------------------------------------------------------------------------- end to end

@pytest.fixture(scope="session")
def example_plugin_installed() -> None:
    pytest.importorskip("dpbench_noisy_max", reason="example plugin not installed (uv pip install -e examples/plugin)")


@pytest.mark.slow
def test_example_plugin_runs_end_to_end(example_plugin_installed, plugin_example_run):
    """examples/plugin/config.yaml through snakemake (tests/conftest.py's run, shared with
    tests/test_outputs.py): the plugin learners are in the Parquet, the theory CSV and the
    figures' legends, beside the catalogue learners."""
    results = plugin_example_run / "results" / "plugin"  # its own output directory (dpbench.foundation.paths)
    df = pd.read_parquet(results / "conjunctions.parquet")
    assert set(df["learner"]) == {"elimination", "erm", "exp_mech_erm", "kconj_erm", "kconj_noisy_max"}
    private = df[df["learner"] == "kconj_noisy_max"]
    assert (private["status"] == "ok").all() and set(private["eps_reported"]) == {0.5, 2.0}
    assert set(private["neighbours"]) == {"replace-one"}
    # utility: with n = 1024 the private learner is as good as its twin on average, within 0.01
    big = df[(df["n"] == 1024) & df["learner"].isin(["kconj_erm", "kconj_noisy_max"])].groupby("learner")["error"].mean()
    assert big["kconj_noisy_max"] <= big["kconj_erm"] + 0.01, big
    theory = pd.read_csv(results / "theory" / "conjunctions.csv")
    assert {"kconj_erm", "kconj_noisy_max"} <= set(theory["learner"])
    # their declared theorems (examples/plugin: theorem()) reach the summarise job: exponent, verdict
    mine = theory["learner"].isin(["kconj_erm", "kconj_noisy_max"])
    declared = theory[mine & theory["regime"].str.contains("theory: ", na=False)]
    assert set(declared["learner"]) == {"kconj_erm", "kconj_noisy_max"}, theory[["learner", "regime"]]
    assert declared["regime"].str.contains(r"\[DR14, §3.3\]|\[BEHW87\]").all()
    registry.load_all()
    for name, recipe in registry.experiment("conjunctions").figures.items():
        assert (results / "figures" / f"conjunctions_{name}.png").stat().st_size > 5_000
        assert not (results / "figures" / f"conjunctions_{name}.pdf").exists()  # figures_pdf is off
        fig = recipe(df)
        labels = {text.get_text() for legend in fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
                  for text in legend.get_texts()}
        assert any(label.startswith("kconj_noisy_max") for label in labels), (name, labels)


def test_plugin_problem_runs_on_the_experiments_of_its_base(example_plugin_installed):
    """A plugin problem that subclasses a built-in one runs wherever that one does; any other
    problem is still refused, naming the experiment's problems."""
    config = {"seed": 1, "plugins": ["dpbench_noisy_max"], "experiments": {"conjunctions": {
        "problem": "spread_conjunction", "problem_params": {"d": 5, "k": 2, "spread": 0.3},
        "learners": ["elimination", "kconj_erm"], "learner_params": {"kconj_erm": {"k": 2}},
        "epsilon": [1.0], "n": [50], "repetitions": 1, "shards": 1}}}
    cells = from_dict(config).experiments["conjunctions"].cells
    assert {dict(c.problem_params)["spread"] for c in cells} == {0.3}
    assert registry.runs_on(("conjunction",), "spread_conjunction")
    assert not registry.runs_on(("decision_list",), "spread_conjunction")
    config["experiments"]["conjunctions"]["problem"] = "decision_list"
    with pytest.raises(ConfigError, match=r"conjunctions\.problem"):
        from_dict(config)


@pytest.mark.slow
def test_plugin_problem_writes_rows_end_to_end(example_plugin_installed, tmp_path):
    """examples/plugin/problem.yaml through snakemake: the plugin problem's own parameter
    ``spread`` (no results column of its name) reaches every row in ``problem_params``, the
    built-in parameters their own columns too, and the figures and theory check are made."""
    from tests.conftest import run_snakemake

    proc = run_snakemake(tmp_path, configfile=REPO / "examples" / "plugin" / "problem.yaml")
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = tmp_path / "results" / "problem"
    df = pd.read_parquet(results / "conjunctions.parquet")
    assert len(df) == 36 and (df["status"] == "ok").all() and set(df["problem"]) == {"spread_conjunction"}
    assert "spread" not in df.columns
    params = df["problem_params"].map(json.loads)
    assert sorted(set(params.map(lambda p: p["spread"]))) == [0.1, 0.4]
    assert (params.map(lambda p: p["d"]) == df["d"]).all() and set(df["k"]) == {2}
    assert set(df["learner"]) == {"elimination", "kconj_erm", "kconj_noisy_max"}
    assert {"kconj_erm", "kconj_noisy_max"} <= set(pd.read_csv(results / "theory" / "conjunctions.csv")["learner"])
    assert (results / "figures" / "conjunctions_error_vs_n.png").stat().st_size > 5_000


def _plugin_rows(learners: dict[str, tuple[float, ...]], sizes=(16, 64, 256, 1024, 4096),
                 reps: int = 6) -> pd.DataFrame:
    """Rows of the ``conjunctions`` experiment for the example plugin's learners (k = 2) on a
    realizable problem, made in process (seconds)."""
    from dpbench.experiments.base import draw_target
    from dpbench.foundation.cell import Cell, freeze
    from dpbench.foundation.results import to_table

    experiment, rows = registry.experiment("conjunctions"), []
    for learner, epsilons in learners.items():
        for epsilon in epsilons:
            for n in sizes:
                cell = Cell("conjunctions", "conjunction", freeze({"d": 8, "k": 2, "skew": 3.0}), learner,
                            freeze({"k": 2}), epsilon, 0.0, n, reps)
                rows += experiment.run_cell(cell, draw_target(cell, root_seed=1), 1)
    return to_table(rows).to_pandas()


def test_a_plugin_learner_declares_its_theorem(example_plugin_installed):
    """A plugin learner's ``theorem`` (examples/plugin: the Occam bound of ``kconj_erm``, the
    derived bound of ``kconj_noisy_max``) gives it what a catalogue learner gets: a theory
    line in the figures, its exponent and citation in the theory check, and a verdict on its
    bound; n(α, ε) in the sample-complexity check (issue 31)."""
    import math

    from dpbench import theory

    df = _plugin_rows({"kconj_noisy_max": (0.5, 1.0, 2.0), "kconj_erm": (math.inf,)})
    experiment = registry.experiment("conjunctions")
    checked = experiment.theory_check(df)
    curves = checked[checked["regime"].str.contains("theory: ", na=False) & (checked["x"] == "n")]
    assert set(curves["learner"]) == {"kconj_erm", "kconj_noisy_max"}, checked[["learner", "regime"]]
    assert (curves["theory_exponent"] == -1.0).all() and (curves["bound_kind"] == "bound").all()
    assert set(curves["verdict"]) <= {"bound_holds", "agrees"} and curves["verdict"].notna().all(), curves
    assert curves["regime"].str.contains(r"\[DR14, §3.3\]|\[BEHW87\]").all()
    n_star = checked[(checked["learner"] == "kconj_noisy_max") & (checked["x"] == "epsilon")]
    assert len(n_star) and n_star["regime"].str.contains("theory: noisy max").all(), checked[["learner", "x", "regime"]]
    # the theory line is drawn beside the curve
    fig = experiment.figures["error_vs_n"](df)
    labels = {text.get_text() for legend in fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
              for text in legend.get_texts()}
    assert any("[DR14, §3.3]" in label for label in labels), labels
    # outside its theorem's setting (label noise) it declares nothing: no line, no verdict
    row = {"d": 8, "k": 2, "monotone": False, "noise": 0.1, "p": 0.5, "log_class_size": 1.0,
           "epsilon": 1.0, "delta": 0.0}
    assert theory.conjunction_rates_of("kconj_noisy_max", row) == []


def test_a_declared_rate_states_kind_exponent_and_citation():
    from dpbench.theory.declared import DeclaredRate

    ok = DeclaredRate("mine", "bound", lambda n: 1 / n, exponent=-1.0, citation="[DR14, §3.3]")
    assert ok.label == "mine [DR14, §3.3]"
    for bad in ({"kind": "guess"}, {"exponent": float("nan")}, {"exponent": 0.5}, {"citation": " "}):
        with pytest.raises(ValueError):
            DeclaredRate(**{"label": "mine", "kind": "bound", "error": lambda n: 1 / n, "exponent": -1.0,
                            "citation": "[DR14]", **bad})
