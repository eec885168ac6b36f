"""``dpbench check``: passes on the example plugin, fails on a deliberately broken copy of
it (noise halved, same claimed ε), runs on catalogue learners. The audit's false-alarm
rate is that of dpbench.check (≤ 1e-6: confidence 1 − 5e-7 per Clopper–Pearson bound)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from dpbench import check
from dpbench.foundation import registry

plugin = pytest.importorskip("dpbench_noisy_max.learners", reason="example plugin not installed (uv pip install -e examples/plugin)")


@dataclass(frozen=True, kw_only=True)
class BrokenKConjNoisyMax(plugin.KConjNoisyMax):
    """The example plugin with its Laplace scale halved, still claiming ε."""

    name = "kconj_noisy_max_broken"

    def noise_scale(self) -> float:
        return super().noise_scale() / 2


@pytest.fixture
def own_registry(monkeypatch):
    """Registrations made by a test (module:Class) do not leak into other tests."""
    monkeypatch.setattr(registry, "LEARNERS", dict(registry.LEARNERS))


def test_check_passes_on_the_example_plugin(capsys):
    assert check.cli_check("kconj_noisy_max") == 0
    out = capsys.readouterr().out
    lines = {line.split("  ")[0].strip(): line for line in out.splitlines()}
    for name in ("construct", "guarantee", "global rng (source)", "privacy audit", "audit power (broken copy)", "privacy audit verdict"):
        assert " pass " in lines[name], lines.get(name, out)
    assert any(line.startswith("ε→∞ twin [conjunction") and " pass " in line for line in out.splitlines())
    assert "0 failed" in out


def test_check_fails_on_a_broken_copy(capsys, own_registry):
    assert check.cli_check(f"{__name__}:BrokenKConjNoisyMax") == 1
    out = capsys.readouterr().out
    audit = next(line for line in out.splitlines() if line.startswith("privacy audit"))
    assert " fail " in audit and "exact 1.595" in audit, audit
    verdict = next(line for line in out.splitlines() if line.startswith("privacy audit verdict"))
    assert " fail " in verdict and "violation" in verdict, verdict
    # everything else about the copy conforms: the audit alone catches it
    failed = [line for line in out.splitlines() if " fail " in line]
    assert failed == [audit, verdict], failed


def test_exact_epsilon_of_the_declared_instance():
    """The instance's exact ε (closed form of the Laplace difference) is below the claim
    for the learner and ≈ 2.24× higher for the broken copy; both cases are declared."""
    correct, broken = plugin.KConjNoisyMax.audit_cases(epsilon=1.0, delta=0.0)
    assert (correct.variant, broken.variant) == ("correct", "broken")
    assert 0.7 < correct.exact() <= 1.0 < 1.5 < broken.exact()
    assert plugin.pair_epsilon(2.0, gap=200.0) == pytest.approx(1.0, abs=0.02)  # the tail approaches ε


@pytest.mark.parametrize("name", ["private_sq_conjunction", "elimination"])
def test_check_runs_on_catalogue_learners(name):
    results = check.learner_results(registry.learner(name), audit_runs=4_000, budget=10.0)
    assert not [r for r in results if r.failed], check.format_table(name, results)
    statuses = {r.check: r.status for r in results}
    assert statuses["privacy audit"] == ("pass" if registry.learner(name).private else "skip")


def test_check_catches_a_learner_that_uses_the_global_generator(own_registry):
    """Dynamic detection: drawing from numpy's global generator moves its state."""
    import numpy

    from dpbench.learners.elimination import Elimination

    @dataclass(frozen=True, kw_only=True)
    class GlobalNoise(Elimination):
        name = "elimination_global_noise"

        def fit(self, sample, *, rng):
            getattr(numpy.random, "random")()  # what the check must catch
            return super().fit(sample, rng=rng)

    registry.register_learner(GlobalNoise)
    results = check.run_results(GlobalNoise)
    assert any(r.check.startswith("global rng [") and r.failed for r in results)


def test_unknown_learner_is_one_line_exit_2(capsys):
    assert check.cli_check("no_such_learner") == 2
    assert check.cli_check("no_such_module:Learner") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "no_such_learner" in err[0] and "no_such_module" in err[1]


def test_unknown_name_hints_at_the_module_class_form(capsys):
    """A bare name that is not registered (a plugin learner neither installed nor imported)
    gets one line naming the ``module:Class`` form, close registered names, and a dotted
    path its colon form; exit status 2 (issue 31)."""
    assert check.cli_check("my_majority") == 2
    assert check.cli_check("exp_mech_er") == 2
    assert check.cli_check("my_majority.PrivateMajority") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3, err
    assert err[0].startswith("dpbench check: unknown learner 'my_majority'; ")
    assert "dpbench check module:Class" in err[0]
    assert "did you mean 'exp_mech_erm'" in err[1] and "module:Class" in err[1]
    assert "did you mean my_majority:PrivateMajority?" in err[2]


def test_bad_config_is_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: [\n")
    assert check.cli_check("kconj_noisy_max", config=str(bad)) == 2
    assert check.cli_check("kconj_noisy_max", config=str(tmp_path / "missing.yaml")) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith(f"dpbench check: invalid config {bad}: YAML syntax error at line 2, column 1: ")  # as validate words it
    assert err[1:] == [f"dpbench check: invalid config {tmp_path / 'missing.yaml'}: no such file"]


def test_generic_audit_reports_no_power_when_its_broken_copy_is_not_caught(own_registry):
    """A private learner without a declared pair gets the family's generic instance and a
    generic broken copy (built at 8ε); a learner whose output ignores its data cannot be
    refuted by it, so the check says ``no_power`` (warn) instead of a silent pass."""
    from dpbench.learners.private_sq_conjunction import PrivateSQConjunction

    @dataclass(frozen=True, kw_only=True)
    class IgnoresItsData(PrivateSQConjunction):
        name = "sq_ignores_its_data"

        def fit(self, sample, *, rng):
            return super().fit(sample.prefix(0) if hasattr(sample, "prefix") else sample, rng=rng)

    results = check.audit_results(IgnoresItsData, runs=2_000, budget=10.0)
    verdict = next(r for r in results if r.check == "privacy audit verdict")
    assert verdict.status == "warn" and verdict.detail.startswith("no_power"), check.format_table("x", results)
    caught = check.audit_results(PrivateSQConjunction, runs=20_000, budget=20.0)
    assert {r.check: r.status for r in caught}["privacy audit verdict"] == "pass"


def test_the_summary_never_says_conforms_when_an_audit_had_no_power():
    """A ``no_power`` audit warns, and the summary line must not read as a clean bill."""
    from dpbench.check import CheckResult, format_table

    ok = [CheckResult("construction", "pass", "fine")]
    clean = ok + [CheckResult("privacy audit verdict", "pass", "pass: correct within its claim, broken copy caught by sampling")]
    assert format_table("x", clean).splitlines()[-1].endswith("— conforms")
    weak = ok + [CheckResult("privacy audit verdict", "warn", "no_power: this audit could not have failed (...)")]
    last = format_table("x", weak).splitlines()[-1]
    assert "conforms" not in last.replace("NOT shown to conform", "") and "no power" in last, last


@dataclass(frozen=True, kw_only=True)
class PowerlessKConjNoisyMax(plugin.KConjNoisyMax):
    """The example plugin, its declared audit's broken copy made identical to the correct one
    (the review of issue 19's ``weakplug``): an audit that could not have failed."""

    name = "kconj_noisy_max_powerless"

    @classmethod
    def audit_cases(cls, *, epsilon, delta):
        saved = plugin._halved_noise
        plugin._halved_noise = lambda c: c
        try:
            return plugin.KConjNoisyMax.audit_cases.__func__(cls, epsilon=epsilon, delta=delta)
        finally:
            plugin._halved_noise = saved


def test_check_exits_3_when_an_audit_had_no_power(capsys, own_registry):
    """Nothing fails, but the declared audit's broken copy is not caught: the verdict line
    says ``no_power`` and the exit status is 3 (CI can gate on it), not 0."""
    assert check.cli_check(f"{__name__}:PowerlessKConjNoisyMax") == check.NOT_SHOWN_TO_CONFORM == 3
    out = capsys.readouterr().out
    verdict = next(line for line in out.splitlines() if line.startswith("privacy audit verdict"))
    assert " warn " in verdict and "no_power" in verdict, verdict
    assert "0 failed — NOT shown to conform" in out
