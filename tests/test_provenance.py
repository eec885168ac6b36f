"""Code-aware invalidation (dpbench.foundation.provenance): a shard's fingerprint covers the source of
the learners, problems and experiment its cells run — editing one learner changes exactly
the shards that run it, and nothing else — and the summary's fingerprint covers the
analysis and plotting code (which in turn changes no shard). The workflow half (Snakemake
re-running exactly those jobs) is tests/test_outputs.py's plugin test."""

from __future__ import annotations

import pytest
import yaml

from dpbench.experiments.base import run_shard
from dpbench.foundation import provenance, sources
from dpbench.foundation.results import read_results
from dpbench.orchestration.config import from_dict
from tests.conftest import TINY_CONFIG


@pytest.fixture(scope="module")
def grid():
    return from_dict(yaml.safe_load(TINY_CONFIG.read_text()))


def _hashes(grid):
    shards = {(exp, i): provenance.shard_code_hash(cells) for exp, plan in grid.experiments.items() for i, cells in enumerate(plan.shards())}
    summaries = {exp: provenance.summary_code_hash(exp) for exp in grid.experiments}
    return shards, summaries


def _edited(monkeypatch, module: str):
    """Pretend ``module``'s source was edited: its file digest changes."""
    path = sources.module_file(module)
    assert path is not None, module
    real = sources.file_digest
    monkeypatch.setattr(sources, "file_digest", lambda p: real(p) + "-edited" if p == path else real(p))
    provenance._modules_hash.cache_clear()


def test_editing_a_learner_changes_exactly_its_shards(grid, monkeypatch):
    before_shards, before_summaries = _hashes(grid)
    _edited(monkeypatch, "dpbench.learners.exp_mech_erm")
    after_shards, after_summaries = _hashes(grid)
    provenance._modules_hash.cache_clear()
    changed = {key for key in before_shards if before_shards[key] != after_shards[key]}
    uses = {(exp, i) for exp, plan in grid.experiments.items() for i, cells in enumerate(plan.shards())
            if any(c.learner == "exp_mech_erm" for c in cells)}  # fmt: skip
    assert uses and changed == uses  # both directions: every shard running it, and no other
    assert len(changed) < len(before_shards)


def test_editing_shared_code_changes_every_shard_using_it(grid, monkeypatch):
    before, _ = _hashes(grid)
    _edited(monkeypatch, "dpbench.learners.erm")  # exp_mech_erm imports erm's class enumeration
    after, _ = _hashes(grid)
    provenance._modules_hash.cache_clear()
    changed = {k for k in before if before[k] != after[k]}
    uses = {(exp, i) for exp, plan in grid.experiments.items() for i, cells in enumerate(plan.shards())
            if any(c.learner in ("erm", "exp_mech_erm") for c in cells)}  # fmt: skip
    assert changed == uses


@pytest.mark.parametrize("module,learners", [("dpbench.theory.decision_lists", ("privdl",)),
                                              ("dpbench.theory.logistic_objective", ("dp_gd",))])
def test_editing_theory_code_a_learner_computes_with_reruns_its_shards(grid, monkeypatch, module, learners):
    """privdl's λ and dp_gd's objective are computed in dpbench.theory: editing them must
    change the fingerprint of every shard that runs those learners (the rows change)."""
    before, _ = _hashes(grid)
    _edited(monkeypatch, module)
    after, _ = _hashes(grid)
    provenance._modules_hash.cache_clear()
    uses = {(exp, i) for exp, plan in grid.experiments.items() for i, cells in enumerate(plan.shards())
            if any(c.learner in learners for c in cells)}  # fmt: skip
    assert uses and all(before[k] != after[k] for k in uses)


def test_analysis_code_changes_summaries_not_shards(grid, monkeypatch):
    before_shards, before_summaries = _hashes(grid)
    _edited(monkeypatch, "dpbench.theory_check.analysis")
    after_shards, after_summaries = _hashes(grid)
    provenance._modules_hash.cache_clear()
    assert after_shards == before_shards
    assert all(after_summaries[e] != before_summaries[e] for e in ("conjunctions", "private_erm", "experts"))


def test_plotting_code_changes_its_experiments_summary(grid, monkeypatch):
    _, before = _hashes(grid)
    _edited(monkeypatch, "dpbench.plotting.conjunctions")
    _, after = _hashes(grid)
    provenance._modules_hash.cache_clear()
    assert after["conjunctions"] != before["conjunctions"] and after["experts"] == before["experts"]


def test_theory_check_code_changes_its_experiments_summary_not_shards(grid, monkeypatch):
    """An experiment registers its theory check by name (``"module:function"``, no import from
    the run module): the summary's fingerprint must still follow that module, and no shard's."""
    before_shards, before = _hashes(grid)
    _edited(monkeypatch, "dpbench.experiments.checks.conjunctions")
    after_shards, after = _hashes(grid)
    provenance._modules_hash.cache_clear()
    assert after_shards == before_shards
    assert after["conjunctions"] != before["conjunctions"] and after["experts"] == before["experts"]


def test_rows_record_their_cells_code_hash(grid, tmp_path):
    cells = [c for c in grid.experiments["conjunctions"].cells if c.learner in ("erm", "elimination")][:4]
    run_shard(cells, root_seed=grid.seed, out=tmp_path / "s.parquet")
    df = read_results(tmp_path / "s.parquet")
    by_learner = df.groupby("learner")["code_hash"].unique()
    assert {len(v) for v in by_learner} == {1} and by_learner["erm"][0] != by_learner["elimination"][0]
    assert by_learner["erm"][0] == provenance.cell_code_hash(cells[0] if cells[0].learner == "erm" else cells[-1])


def test_relative_and_function_level_imports_are_followed(tmp_path, monkeypatch):
    pkg = tmp_path / "provpkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text("from . import b\ndef f():\n    from ..c import g\n    import provpkg.d as d\n")
    for name in ("sub/b.py", "c.py", "d.py", "e.py"):
        (pkg / name).write_text("import numpy\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = sources.closure(["provpkg.sub.a"], {"provpkg"})
    assert found == ["provpkg", "provpkg.c", "provpkg.d", "provpkg.sub", "provpkg.sub.a", "provpkg.sub.b"]


def test_editing_an_audit_module_changes_the_privacy_audit_shards_only(grid, monkeypatch):
    """The audits are registered by listing ``dpbench.audits``' modules (no import statement
    names them): editing one (here the ERM audits, which hold diffprivlib's) must still re-run
    the privacy_audit shards — and no learner's experiment shard."""
    if "privacy_audit" not in grid.experiments:
        pytest.skip("the tiny config has no privacy_audit experiment")
    before, _ = _hashes(grid)
    _edited(monkeypatch, "dpbench.audits.cases.erm")
    after, _ = _hashes(grid)
    provenance._modules_hash.cache_clear()
    changed = {key for key in before if before[key] != after[key]}
    assert changed and {exp for exp, _ in changed} == {"privacy_audit"}
    assert changed == {key for key in before if key[0] == "privacy_audit"}
