"""The privacy audit: the registry of worst-case audit instances (here), the harness
(:mod:`dpbench.audits.engine`), the generic black-box instances (:mod:`dpbench.audits.generic`)
and the instances themselves, one module per learner family in :mod:`dpbench.audits.cases`.

Each module registers, per private learner (or mechanism), a function
``cases(*, epsilon, delta) -> list[AuditCase]`` returning the ``correct`` case and its
``broken`` copy on neighbouring inputs near the worst case of the learner's analysis, run
end to end through the learner's own ``fit``/``run`` (plus, where useful, a labelled
component pair). A learner class outside the catalogue (a plugin) may instead define a
classmethod ``audit_cases(*, epsilon, delta)`` with the same contract; :func:`cases_for`
prefers it. Registration also records the default claim, the ``dpbench audit`` runs and a
cost model (planning never builds the cases).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable

from dpbench.foundation import registry

AUDITS: dict[str, Callable[..., list]] = {}
#: name → (ε, δ) audited when none is given (``dpbench audit NAME``).
DEFAULTS: dict[str, tuple[float, float]] = {}
#: name → runs per side of ``dpbench audit NAME`` (enough to catch the broken copy).
RUNS: dict[str, int] = {}
#: name → predicted seconds of the audit (all its cases, both sides) at n runs per side
COSTS: dict[str, Callable[[int], float]] = {}
#: why a sampled bound falls short of a small pure ε (a row's note)
SMALL_PURE_EPSILON = ("a pure eps this small is attained by events whose probabilities differ by a factor e^eps ~ 1 + eps: "
                      "Clopper-Pearson at these runs resolves ~0.6-0.8 of it")
#: the cost of an audit of vectorised cases: two copies, two sides, ~0.25 µs a run
VECTORISED = 4 * 2.5e-7
#: Audits' costs are recalibrated against their measured process CPU at the sizes
#: config/paper.yaml runs (2026-11-26, idle 2-core build machine, one BLAS thread, less the
#: ≈ 3 s of job start-up and first use the plan charges separately): seconds per run per
#: side, for audits whose cases are not vectorised alike (the registrations say which).
_loaded = False


def register_audit(name: str, *, epsilon: float = 1.0, delta: float = 1e-6, runs: int = 200_000,
                   cost: Callable[[int], float] | None = None) -> Callable[[Callable[..., list]], Callable[..., list]]:
    """Decorator: register ``cases(*, epsilon, delta)`` as the audit of ``name``;
    ``epsilon``/``delta``: the claim audited by default (e.g. where the learner runs);
    ``runs``: the runs per side of ``dpbench audit NAME`` (enough to catch the broken copy);
    ``cost(n)``: predicted seconds at n runs per side (shard balancing; building the cases
    would import the learners, which planning must not)."""

    def wrap(fn: Callable[..., list]) -> Callable[..., list]:
        if name in AUDITS and AUDITS[name] is not fn:
            raise ValueError(f"audit {name!r} registered twice")
        AUDITS[name] = fn
        DEFAULTS[name] = (float(epsilon), float(delta))
        RUNS[name] = int(runs)
        COSTS[name] = cost if cost is not None else (lambda n: VECTORISED * n)
        return fn

    return wrap


def default_claim(name: str) -> tuple[float, float]:
    """The (ε, δ) audited for ``name`` when the caller gives none."""
    load_all()
    return DEFAULTS.get(name, (1.0, 1e-6))


def default_runs(name: str) -> int:
    """Runs per side of ``dpbench audit NAME`` when none is given."""
    load_all()
    return RUNS.get(name, 200_000)


def per_run(seconds: float) -> Callable[[int], float]:
    """A cost of ``seconds`` per run per side (all the audit's cases and copies)."""
    return lambda n: seconds * n


def predicted_seconds(name: str, runs: int) -> float:
    """Predicted seconds of the audit of ``name`` at ``runs`` per side (0.05 s overhead)."""
    load_all()
    return COSTS.get(name, lambda n: VECTORISED * n)(int(runs)) + 0.05


def load_all() -> None:
    global _loaded
    if not _loaded:
        cases = importlib.import_module(f"{__name__}.cases")
        for info in pkgutil.iter_modules(cases.__path__):
            importlib.import_module(f"{cases.__name__}.{info.name}")
        _loaded = True


def audited_names() -> list[str]:
    load_all()
    return sorted(AUDITS)


def cases_for(name: str, *, epsilon: float, delta: float, accounting: bool = False) -> list:
    """The audit cases of learner or mechanism ``name`` at the claimed (ε, δ); with
    ``accounting``, its per-step accounting cases too (``audit`` = ``accounting``, after the
    others: :mod:`dpbench.audits.step_accounting`), as the workflow and ``dpbench audit`` run them."""

    if registry.is_learner(name):
        own = getattr(registry.learner(name), "audit_cases", None)
        if own is not None:
            return list(own(epsilon=epsilon, delta=delta))
    load_all()
    if name not in AUDITS:
        raise KeyError(f"no audit registered for {name!r}; audited: {', '.join(sorted(AUDITS))}")
    cases = list(AUDITS[name](epsilon=epsilon, delta=delta))
    own = [c for c in cases if c.kind != "accounting"]
    return own + [c for c in cases if c.kind == "accounting"] if accounting else own
