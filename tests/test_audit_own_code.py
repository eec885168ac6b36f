"""Every private learner in the registry is audited through its own code (issue 19).

For each private learner (finite ε in its guarantee), its sampling entry point (the public
``release`` that ``fit`` itself calls, else ``run``, else ``fit``) is patched to raise: every
end-to-end row of its audit must then fail. The release-based learners' ``fit`` must equal
``release`` bit for bit on a common seed, and fail when ``release`` is patched (one code path).
A learner without an end-to-end audit must be listed here, with the reason.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from dpbench.audits import cases_for, default_claim
from dpbench.audits.engine import audit_kind, run_case, run_cases
from dpbench.foundation import registry

registry.load_all()

#: private learners without an end-to-end audit row, and why (shown in docs/privacy.md)
NOT_END_TO_END: dict[str, str] = {}


def private_learners() -> list[str]:
    names = []
    for name, cls in sorted(registry.LEARNERS.items()):
        params = next(iter(cls.test_params()), {}) if hasattr(cls, "test_params") else {}
        try:
            eps = cls(**params).guarantee().epsilon
        except TypeError:
            eps = cls(epsilon=1.0).guarantee().epsilon
        if math.isfinite(eps):
            names.append(name)
    return names


def entry_point(cls) -> str:
    return next(m for m in ("release", "run", "fit") if callable(getattr(cls, m, None)))


class OwnCodeRan(RuntimeError):
    pass


def boom(*args, **kwargs):
    raise OwnCodeRan("the learner's own code ran")


@pytest.mark.parametrize("name", private_learners())
def test_the_audit_runs_the_learners_own_code(name, monkeypatch):
    if name in NOT_END_TO_END:
        kinds = {audit_kind(c) for c in cases_for(name, epsilon=1.0, delta=0.0)}
        assert "end_to_end" not in kinds, f"{name} now has an end-to-end audit: drop it from NOT_END_TO_END"
        pytest.skip(NOT_END_TO_END[name])
    eps, delta = default_claim(name)
    cases = [c for c in cases_for(name, epsilon=eps, delta=delta) if audit_kind(c) == "end_to_end"]
    assert {c.variant for c in cases} == {"correct", "broken"}
    cls = registry.learner(name)
    monkeypatch.setattr(cls, entry_point(cls), boom)
    for case in cases:
        with pytest.raises(OwnCodeRan):
            run_case(case, runs=3, seed=0)


def _samples():
    from dpbench.problems.base import Sample
    from dpbench.problems.conjunction import ConjunctionClass

    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(40, 3)), (rng.random(40) < 0.5).astype(np.uint8)
    Xb = (rng.random((40, 3)) < 0.6).astype(np.uint8)
    return {"linear": Sample(X, y), "monotone": Sample(Xb, y, concept_class=ConjunctionClass(d=3, monotone=True)),
            "general": Sample(Xb, y, concept_class=ConjunctionClass(d=3, monotone=False))}


RELEASE = [("dp_gd", {"epsilon": 1.0, "delta": 1e-6}, "linear"), ("dp_sgd", {"epsilon": 1.0, "delta": 1e-6, "batch_size": 7}, "linear"),
           ("output_perturbation", {"epsilon": 1.0}, "linear"), ("objective_perturbation", {"epsilon": 1.0}, "linear"),
           ("exp_mech_grid", {"epsilon": 1.0, "points": 3}, "linear"), ("exp_mech_erm", {"epsilon": 1.0}, "monotone"),
           ("private_sq_conjunction", {"epsilon": 1.0}, "monotone"), ("private_sq_conjunction", {"epsilon": 1.0}, "general")]


@pytest.mark.parametrize("name, params, kind", RELEASE)
def test_fit_is_release(name, params, kind, monkeypatch):
    """``fit`` outputs ``release`` (same seed, bit for bit); a batch of one is the same law's
    draw; with ``release`` patched to raise, ``fit`` raises (the audit's path is fit's)."""
    sample = _samples()[kind]
    learner = registry.learner(name)(**params)
    fitted = learner.fit(sample, rng=np.random.default_rng(3))
    released = learner.release(sample, rng=np.random.default_rng(3))
    released = released[0] if isinstance(released, tuple) else released
    if hasattr(fitted, "theta"):
        expected = fitted.theta
        if name == "exp_mech_grid":
            from dpbench.learners.exp_mech_grid import grid

            released = grid(3, 3, learner.radius)[released]
        assert np.array_equal(expected, released)
    elif name == "exp_mech_erm":
        assert fitted == sample.concept_class.hypothesis(released)
    else:
        from dpbench.learners.sq_conjunction import conjunction_from_answers

        assert fitted == conjunction_from_answers(released, learner.threshold(sample), sample.concept_class.monotone)
    batch = learner.release(sample, rng=np.random.default_rng(4), runs=5)
    batch = batch[0] if isinstance(batch, tuple) else batch
    assert len(batch) == 5
    monkeypatch.setattr(type(learner), "release", boom)
    with pytest.raises(OwnCodeRan):
        learner.fit(sample, rng=np.random.default_rng(3))


@pytest.mark.parametrize("name", ["exp_mech_erm", "exp_mech_grid", "private_sq_conjunction", "dp_gd"])
def test_a_miscalibrated_learner_fails_its_audit(name, monkeypatch):
    """Doubling the noise-free budget inside the learner's own release (its mechanism or
    per-query budget, or halving DP-GD's noise multiplier) turns the correct row's verdict into
    a violation: the audit samples the learner, not a copy of it."""
    cls = registry.learner(name)
    if name == "exp_mech_erm":
        original = cls.mechanism
        monkeypatch.setattr(cls, "mechanism", lambda self: type(original(self))(epsilon=self.epsilon, sensitivity=0.5))
    elif name == "exp_mech_grid":
        original = cls.mechanism
        monkeypatch.setattr(cls, "mechanism", lambda self, d: type(original(self, d))(epsilon=self.epsilon, sensitivity=original(self, d).sensitivity / 2))
    elif name == "private_sq_conjunction":
        original = cls.epsilon_per_query
        monkeypatch.setattr(cls, "epsilon_per_query", lambda self, m: 2 * original(self, m))
    else:
        original = cls.noise_multiplier
        monkeypatch.setattr(cls, "noise_multiplier", lambda self: original(self) / 2)
    eps, delta = default_claim(name)
    rows = run_cases(cases_for(name, epsilon=eps, delta=delta), runs=200_000, confidence=0.999, seed=0)
    assert rows[0]["variant"] == "correct" and rows[0]["epsilon_lower_bound"] > rows[0]["epsilon_claimed"]
    assert rows[0]["verdict"] == "violation"


@pytest.mark.slow
def test_component_rows_sample_the_learners_own_noise(monkeypatch):
    """The component rows draw through the learner's own functions: halving DP-Winnow's
    sparse-vector noise (``query_noise``/``threshold_noise`` as its loop calls them) or
    doubling ``sv_experts``' switch budget makes the correct component row a violation."""
    from dpbench.learners import dp_winnow
    from dpbench.learners.sv_experts import SVExperts

    query, threshold, switch = dp_winnow.query_noise, dp_winnow.threshold_noise, SVExperts.switch_mechanism
    monkeypatch.setattr(dp_winnow, "query_noise", lambda eps, size, *, rng: query(2 * eps, size, rng=rng))
    monkeypatch.setattr(dp_winnow, "threshold_noise", lambda eps, *, rng, size=None: threshold(2 * eps, rng=rng, size=size))
    monkeypatch.setattr(SVExperts, "switch_mechanism", lambda self, eps: switch(self, 2 * eps))
    for name, runs in (("dp_winnow_batched", 3_000_000), ("sv_experts", 1_000_000)):
        cases = [c for c in cases_for(name, epsilon=1.0, delta=1e-6) if c.component]
        row = run_cases(cases, runs=runs, confidence=0.999, seed=0)[0]
        assert row["variant"] == "correct" and row["verdict"] == "violation", row


def _eta_times_inside_hedge(monkeypatch, factor: float, where: str) -> None:
    """The reviewer's defect, inside the learner's code below ``eta()``: ``run_hedge`` running
    the kernel at ``factor`` × the η it is handed, or the kernel's weight table built at
    ``factor`` × its step (on the audit pair every weight the kernel uses comes from it)."""
    from dpbench.learners import experts_common

    original = getattr(experts_common, where)
    if where == "run_hedge":
        monkeypatch.setattr(experts_common, where, lambda losses, eta, **kw: original(losses, factor * eta, **kw))
    else:
        monkeypatch.setattr(experts_common, where, lambda step, T, scale_max: original(factor * step, T, scale_max))


def _lambda_times_in_the_covering_loop(monkeypatch, factor: float, where: str) -> None:
    """``factor`` × λ inside privdl's own code: where ``covering_list`` hands λ to the
    exponential mechanism (``exp_mech_select``), or where the logits are formed
    (``selection_logits``)."""
    from dpbench.learners import privdl

    original = getattr(privdl, where)
    if where == "exp_mech_select":
        monkeypatch.setattr(privdl, where, lambda pos, neg, available, rng, lam: original(pos, neg, available, rng, factor * lam))
    else:
        monkeypatch.setattr(privdl, where, lambda pos, neg, available, lam: original(pos, neg, available, factor * lam))


def _eta_times_in_the_shadow_update(monkeypatch, factor: float, where: str) -> None:
    """``factor`` × η inside DP-Winnow's own loop: the shadow update ``log w += η g`` that
    ``run_dp_winnow`` (all three DP-Winnow learners) calls at every firing."""
    from dpbench.learners import dp_winnow

    original = getattr(dp_winnow, where)
    monkeypatch.setattr(dp_winnow, where, lambda logw, g, eta: original(logw, g, factor * eta))


INSIDE = [("private_rwm", "run_hedge"), ("private_rwm", "weight_table"), ("linear_learner", "run_hedge"),
          ("private_rwm_tight", "weight_table"), ("private_mw_001", "run_hedge"),
          ("privdl", "exp_mech_select"), ("privdl", "selection_logits"), ("privdl_composition", "exp_mech_select"),
          ("dp_winnow", "_shadow_update"), ("dp_winnow_batched", "_shadow_update"), ("dp_winnow_batched_tight", "_shadow_update")]


@pytest.mark.parametrize("name, where", INSIDE)
def test_a_miscalibration_inside_the_learners_code_is_a_violation(name, where, monkeypatch):
    """The exact ε(δ) of the experts and privdl audits is composed from the laws the learner's
    own code records as it draws (not from a formula beside the sampler): the error the audit's
    broken copy makes through ``eta()``/``lam()`` (the smallest power of 2 whose exact ε clears
    the claim: x2 where the analysis is tight, x8 for private_rwm and linear_learner, x128 for
    privdl; DP-Winnow's release-audit factor), patched instead deep inside the learner (η in ``run_hedge`` or the kernel's
    weight table; λ in the covering loop or its logits; η in DP-Winnow's shadow update), turns the correct row into a ``violation`` by its exact value; the
    unpatched audit passes that check."""
    eps, delta = default_claim(name)
    clean = cases_for(name, epsilon=eps, delta=delta)
    factor = float(re.search(r"broken: (?:eta|lambda) x([0-9.]+)", clean[1].note)[1])  # "broken: eta x8, the smallest ..."
    broken_exact = clean[1].exact()
    assert clean[0].exact() <= eps < broken_exact
    if where in ("run_hedge", "weight_table"):
        _eta_times_inside_hedge(monkeypatch, factor, where)
    elif where == "_shadow_update":
        _eta_times_in_the_shadow_update(monkeypatch, factor, where)
    else:
        _lambda_times_in_the_covering_loop(monkeypatch, factor, where)
    correct = cases_for(name, epsilon=eps, delta=delta)[0]
    assert correct.exact() == pytest.approx(broken_exact, rel=1e-6)  # the patched learner is the broken copy
    rows = run_cases([correct], runs=100, confidence=0.999, seed=0)
    assert rows[0]["epsilon_exact"] > eps and rows[0]["verdict"] == "violation", rows[0]
