"""The ``privacy_audit`` experiment: cells → rows → results/theory/privacy_audit.csv with
exactly AUDIT_COLUMNS, deterministic, and the config blocks audit what they list."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from dpbench.audits.engine import AUDIT_COLUMNS
from dpbench.experiments.base import draw_target, run_shard
from dpbench.foundation import registry
from dpbench.foundation.results import TIMING_COLUMNS
from dpbench.orchestration.config import ConfigError, from_dict, load
from dpbench.reporting.pipeline import write_theory_check

ROOT = Path(__file__).resolve().parents[1]


def _block(targets, **extra):
    block = {"problem": "audit_pairs", "audits": targets, "epsilon": [1.0], "delta": 0.0, "n": [20_000], "repetitions": 1, **extra}
    return {"seed": 5, "experiments": {"privacy_audit": block}}


def test_cells_give_deterministic_rows_and_the_audit_csv(tmp_path):
    grid = from_dict(_block(["laplace", "exponential"]))
    cells = grid.experiments["privacy_audit"].cells
    target = draw_target(cells[0], grid.seed)
    run = registry.experiment("privacy_audit").run_cell
    first, second = run(cells[0], target, grid.seed), run(cells[0], target, grid.seed)
    strip = lambda rows: [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rows]  # noqa: E731
    assert strip(first) == strip(second)
    assert [r["variant"] for r in first] == ["correct", "broken"]
    run_shard(cells, root_seed=grid.seed, out=tmp_path / "s.parquet")
    write_theory_check("privacy_audit", tmp_path / "s.parquet", tmp_path / "privacy_audit.csv")
    table = pd.read_csv(tmp_path / "privacy_audit.csv")
    assert list(table.columns) == AUDIT_COLUMNS
    assert sorted(zip(table["learner"], table["variant"])) == sorted(
        (n, v) for n in ("laplace", "exponential") for v in ("correct", "broken"))
    for _, row in table.iterrows():
        assert (row["epsilon_lower_bound"] <= row["epsilon_claimed"]) == (row["variant"] == "correct")
    assert set(table["verdict"]) == {"pass"} and set(table["audit"]) == {"mechanism"}
    assert (table.loc[table["variant"] == "correct", "tightness"] > 0.5).all()
    assert (table["runs"] == 20_000).all() and (table["confidence"] == 0.999).all()


def test_a_claim_the_learner_cannot_make_is_skipped_with_the_reason(tmp_path):
    """... and the audit CSV and the docs table say so (a row per copy, verdict `skipped`,
    the reason as its note), beside the audits that ran."""
    from dpbench.reporting.audit_table import audit_section

    grid = from_dict(_block(["private_mw_001", "laplace"], delta=1e-6))
    cell = grid.experiments["privacy_audit"].cells[0]
    assert cell.learner == "private_mw_001"
    rows = registry.experiment("privacy_audit").run_cell(cell, draw_target(cell, grid.seed), grid.seed)
    assert {r["status"] for r in rows} == {"skipped"} and "certified delta" in rows[0]["reason"]
    run_shard(grid.experiments["privacy_audit"].cells, root_seed=grid.seed, out=tmp_path / "s.parquet")
    (tmp_path / "theory").mkdir()
    write_theory_check("privacy_audit", tmp_path / "s.parquet", tmp_path / "theory" / "privacy_audit.csv")
    table = pd.read_csv(tmp_path / "theory" / "privacy_audit.csv")
    assert list(table.columns) == AUDIT_COLUMNS
    not_run = table[table["learner"] == "private_mw_001"]
    assert list(not_run["variant"]) == ["correct", "broken"] and set(not_run["verdict"]) == {"skipped"}
    assert not_run["note"].str.contains("certified delta").all() and (not_run["runs"] == 0).all()
    assert set(table.loc[table["learner"] == "laplace", "verdict"]) == {"pass"}
    section = audit_section(tmp_path)
    assert "| `private_mw_001` |  | correct | 1 | 1e-06 | — |" in section
    assert "Not audited in this run (`skipped`):" in section and "- `private_mw_001`: " in section


def test_unknown_audit_target_is_a_config_error_naming_the_key():
    with pytest.raises(ConfigError, match=r"experiments.privacy_audit.audits\[0\]: no audit registered"):
        from_dict(_block(["no_such_learner"]))


def test_audits_are_not_learners():
    """The learner registry holds learners only; a learner list in an audit block is an error."""
    registry.load_all()
    assert "auditor" not in registry.LEARNERS
    assert all(cls.family in ("batch", "online", "experts") for cls in registry.LEARNERS.values())
    with pytest.raises(ConfigError, match=r"experiments.privacy_audit.learners: experiment 'privacy_audit' lists audits"):
        from_dict(_block(["laplace"], learners=["laplace"]))


@pytest.mark.parametrize("config", ["config/config.yaml", "config/paper.yaml"])
def test_config_blocks_audit_every_private_learner_on_this_branch(config):
    """Every private learner of the catalogue has a registered audit, and every audit is listed."""
    from dpbench.audits import audited_names

    cells = load(ROOT / config).experiments["privacy_audit"].cells
    listed = {c.learner for c in cells}
    assert listed == set(audited_names())
    registry.load_all()
    private = {n for n, c in registry.LEARNERS.items() if c.private and c.__module__.startswith("dpbench.")}
    assert private <= listed, private - listed


def test_figure_tells_a_learners_audits_at_two_deltas_apart():
    """output_perturbation is audited in its ℓ2-Laplace (δ = 0) and Gaussian (δ > 0) modes at
    the same ε: the figure's rows name the δ so the two do not overlap; others stay unchanged."""
    from dpbench.plotting.privacy_audit import audit_bounds

    rows = [dict(status="ok", learner=name, variant=v, eps_reported=1.0, delta_reported=d, epsilon_lower_bound=0.7,
                 epsilon_exact=0.8, instance="pair") for name, deltas in (("output_perturbation", (0.0, 1e-5)), ("laplace", (0.0,)))
            for d in deltas for v in ("correct", "broken")]
    labels = [t.get_text() for t in audit_bounds(pd.DataFrame(rows)).axes[0].get_yticklabels()]
    assert sorted(labels) == ["laplace (ε = 1)", "output_perturbation (ε = 1, δ = 0)", "output_perturbation (ε = 1, δ = 1e-05)"]


def test_without_the_peers_extra_its_audit_is_skipped_with_the_reason(monkeypatch):
    """The default workflow audits diffprivlib_logreg through its own fit: on an install
    without the extra (the README's ``pip install -e .``) that cell gives skipped rows with
    the reason, and the workflow goes on."""
    from dpbench.experiments.privacy_audit import run_audit_cell
    from dpbench.learners import peers

    real_find_spec = peers.importlib.util.find_spec
    monkeypatch.setattr(peers.importlib.util, "find_spec", lambda name, *a: None if name == "diffprivlib" else real_find_spec(name, *a))
    peers.diffprivlib.cache_clear()
    try:
        grid = from_dict({"seed": 1, "experiments": {"privacy_audit": {"problem": "audit_pairs", "audits": ["diffprivlib_logreg"], "epsilon": [1.0], "n": [20]}}})
        (cell,) = grid.experiments["privacy_audit"].cells
        rows = run_audit_cell(cell, None, 1)
    finally:
        peers.diffprivlib.cache_clear()
    assert [(r["variant"], r["status"]) for r in rows] == [("correct", "skipped"), ("broken", "skipped")]
    assert rows[0]["reason"] == "diffprivlib is not installed (pip install -e '.[peers]')"
