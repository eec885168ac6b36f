"""``dpbench check NAME``: the conformance suite on one learner (issue 12; docs/plugins.md, "Check it").

The same checks back ``dpbench check`` (any learner: catalogue, plugin, ``module:Class``)
and the test suite (``tests/test_conformance.py`` runs them on every registered learner):

- ``construct``: class attributes, construction from the config conventions
  (:meth:`~dpbench.learners.base.Learner.from_cell` on every ``test_params``), pickling,
  rejection of bad ε / δ by private learners;
- ``guarantee``: :meth:`guarantee` returns a :class:`Guarantee` within the cell's (ε, δ),
  with a known neighbouring relation;
- ``runs``: one cell per declared problem (the first experiment of the learner's family
  that runs it) gives rows in the results schema, and the same cell and seed give the same
  rows (``deterministic``);
- ``global rng``: the learner's module never names a global or legacy generator
  (:func:`global_rng_uses`), and running it leaves numpy's and ``random``'s global states
  untouched;
- ``twin``: a private learner that declares ``twin = "name"`` matches its non-private twin
  at ε = ∞ on the same samples (:func:`twin_results`);
- ``privacy audit``: the learner's declared worst-case instance
  (:func:`dpbench.audits.cases_for`: its ``audit_cases`` classmethod or a registered audit),
  else a generic instance of its family (:mod:`dpbench.audits.generic`), through
  :func:`dpbench.audits.engine.run_case`; the lower bound on ε must not exceed the claim (and an
  exact ε, where the instance computes one, neither). The ``broken`` copy's bound is shown
  (the generic instance's broken copy: the learner built at 8ε), and the audit's verdict
  (:func:`dpbench.audits.engine.judge`): ``violation`` fails, ``no_power`` warns (the broken copy
  was not caught: the audit lacks power, not the learner) and makes the exit status 3.
"""

from __future__ import annotations

import ast
import inspect
import math
import pickle
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from dpbench.audits import cases_for
from dpbench.audits.engine import NO_POWER, VIOLATION, caught_by_sampling, judge, no_power_reason, refuted, run_case
from dpbench.audits.generic import generic_cases
from dpbench.foundation import registry
from dpbench.foundation.cell import Cell, freeze
from dpbench.learners.base import ADD_REMOVE, REPLACE_ONE, Guarantee
from dpbench.orchestration.config import ConfigError, error_line, load_config_plugins, read_yaml

#: Audit defaults: runs per side, and the confidence of each Clopper–Pearson bound
#: (1 − 5e-7: a correct learner fails the audit with probability ≤ 1e-6, as in the tests).
AUDIT_RUNS = 20_000
AUDIT_CONFIDENCE = 1 - 5e-7
#: Wall-clock budget of one audit case; slower learners get fewer runs (weaker, never
#: more false alarms), the table says how many.
AUDIT_SECONDS = 60.0
#: Repetitions and false-alarm rate of the ε → ∞ twin comparison (paired t-test).
TWIN_REPETITIONS = 20
TWIN_FALSE_ALARM = 1e-6
FAMILIES = ("batch", "online", "experts")
NEIGHBOURS = (REPLACE_ONE, ADD_REMOVE)
#: The metric compared per family (last checkpoint of each repetition).
FAMILY_METRIC = {"batch": "error", "online": "mistakes", "experts": "regret"}


@dataclass(frozen=True)
class CheckResult:
    """One line of the table: ``status`` is ``pass``, ``fail``, ``warn`` or ``skip``."""

    check: str
    status: str
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.status == "fail"


def _guarded(check: str, fn: Callable[[], Iterable[CheckResult]]) -> list[CheckResult]:
    """Run one check; an exception is its failure, reported on one line."""
    try:
        return list(fn())
    except Exception as exc:  # noqa: BLE001 - a learner's error is a check's result
        message = str(exc).splitlines()[0] if str(exc) else ""
        return [CheckResult(check, "fail", f"{type(exc).__name__}: {message}"[:200])]


# --------------------------------------------------------------------------- construction


def _privacy_free(params: Mapping[str, object]) -> dict[str, object]:
    return {k: v for k, v in params.items() if k not in ("epsilon", "delta")}


def _construct_params(params: Mapping[str, object]) -> tuple[float, float, dict[str, object]]:
    """(ε, δ, other parameters) of one ``test_params`` entry, as a config cell gives them."""
    return float(params.get("epsilon", math.inf)), float(params.get("delta", 0.0)), _privacy_free(params)


def construction_results(cls: type) -> list[CheckResult]:
    """Class attributes, construction from every ``test_params``, pickling, guarantee,
    and (private learners) rejection of ε ∈ {0, −1, NaN} and δ = 1."""

    def attributes() -> Iterator[CheckResult]:
        problems = list(getattr(cls, "problems", ()))
        bad = []
        if not (isinstance(getattr(cls, "name", None), str) and cls.name.isidentifier()):
            bad.append("name must be an identifier")
        if getattr(cls, "family", None) not in FAMILIES:
            bad.append(f"family must be one of {FAMILIES}")
        if not problems:
            bad.append("problems is empty")
        for p in problems:
            try:
                registry.problem(p)  # (batch learners may also run on an online problem's samples)
            except KeyError:
                bad.append(f"unknown problem {p!r}")
        if not all(callable(getattr(cls, m, None)) for m in ("from_cell", "guarantee", "supports", "test_params")):
            bad.append("not a dpbench.learners.base.Learner")
        yield CheckResult("attributes", "fail" if bad else "pass", "; ".join(bad) or f"family={cls.family} private={cls.private} problems={','.join(problems)}")

    def construct() -> Iterator[CheckResult]:
        built = []
        for params in cls.test_params():
            epsilon, delta, rest = _construct_params(params)
            learner = cls.from_cell(epsilon=epsilon, delta=delta, params=rest)
            if pickle.loads(pickle.dumps(learner)) != learner:
                raise AssertionError(f"{learner!r} does not survive pickling")
            built.append(learner)
        yield CheckResult("construct", "pass", f"{len(built)} test_params built and pickled")

    def guarantee() -> Iterator[CheckResult]:
        shown = []
        for params in cls.test_params():
            epsilon, delta, rest = _construct_params(params)
            g = cls.from_cell(epsilon=epsilon, delta=delta, params=rest).guarantee()
            if not isinstance(g, Guarantee):
                raise AssertionError(f"guarantee() returned {type(g).__name__}, not Guarantee")
            if cls.private:
                if not (g.epsilon <= epsilon + 1e-12 and g.delta <= delta + 1e-15):
                    raise AssertionError(f"claims (ε={g.epsilon:g}, δ={g.delta:g}) beyond the cell's (ε={epsilon:g}, δ={delta:g})")
                if g.neighbours not in NEIGHBOURS and math.isfinite(epsilon):
                    raise AssertionError(f"neighbours {g.neighbours!r} not one of {NEIGHBOURS}")
            shown.append(f"ε={g.epsilon:g} δ={g.delta:g} {g.neighbours}")
        yield CheckResult("guarantee", "pass", "; ".join(dict.fromkeys(shown)))

    def rejects_bad_privacy() -> Iterator[CheckResult]:
        if not cls.private:
            yield CheckResult("rejects bad ε/δ", "skip", "non-private")
            return
        _, _, rest = _construct_params(next(iter(cls.test_params())))
        accepted = []
        for bad in (0.0, -1.0, float("nan")):
            try:
                cls.from_cell(epsilon=bad, delta=1e-6, params=rest)
                accepted.append(f"epsilon={bad}")
            except ValueError as exc:
                if "epsilon" not in str(exc):
                    accepted.append(f"epsilon={bad} (message does not name epsilon)")
        if "delta" in cls.field_names():
            try:
                cls.from_cell(epsilon=1.0, delta=1.0, params=rest)
                accepted.append("delta=1")
            except ValueError as exc:
                if "delta" not in str(exc):
                    accepted.append("delta=1 (message does not name delta)")
        yield CheckResult("rejects bad ε/δ", "fail" if accepted else "pass", f"accepted {', '.join(accepted)}" if accepted else "ε ∈ {0, −1, nan}, δ = 1 rejected")

    out = _guarded("attributes", attributes)
    if out[0].failed:
        return out
    for name, fn in (("construct", construct), ("guarantee", guarantee), ("rejects bad ε/δ", rejects_bad_privacy)):
        out += _guarded(name, fn)
    return out


# --------------------------------------------------------------------------- runs


def experiment_for(cls: type, problem: str) -> str | None:
    """The first registered experiment (by id) that runs ``problem`` with the learner's
    size axis (``n`` for batch learners, ``T`` otherwise), or None."""
    registry.load_all()
    for exp_id, exp in sorted(registry.EXPERIMENTS.items()):
        if problem in exp.problems and (exp.size == "n") == (cls.family == "batch"):
            return exp_id
    return None


def conformance_cell(cls: type, problem: str, experiment: str, params: Mapping[str, object], *, repetitions: int = 2,
                     problem_params: Mapping[str, object] | None = None):
    """The conformance cell: the problem's first ``test_params`` (unless given), the
    experiment's ``test_size``, ε and δ from ``params`` (default ∞ and 0)."""

    epsilon, delta, rest = _construct_params(params)
    if problem_params is None:
        problem_params = dict(next(iter(registry.problem(problem).test_params())))
    size = registry.experiment(experiment).test_size
    return Cell(experiment, problem, freeze(problem_params), cls.name, freeze(rest), epsilon, delta, size, repetitions)


def _strip_timing(rows: list[dict]) -> list[dict]:
    from dpbench.foundation.results import TIMING_COLUMNS  # deferred: imports pandas

    return [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rows]


def _global_states() -> tuple[object, ...]:
    """numpy's legacy global state (key, position, cached Gaussian) and ``random``'s."""
    _, keys, position, has_gauss, gauss = np.random.get_state()
    stdlib = sys.modules.get("random")
    return keys.tobytes(), position, has_gauss, gauss, (stdlib.getstate() if stdlib is not None else None)


def cell_results(cls: type, problem: str, experiment: str, params: Mapping[str, object], *, seed: int = 3) -> list[CheckResult]:
    """Run one conformance cell twice: rows in the results schema, all ``ok``/``skipped``
    with the learner's name; identical rows for the same seed (``deterministic``); the
    global generators untouched by the second run (``global rng``)."""
    from dpbench.experiments.base import draw_target  # deferred: imports pandas
    from dpbench.foundation.results import to_table  # deferred: imports pandas

    shown_params = [f"{k}={v}" for k, v in sorted(params.items()) if k != "epsilon"]
    if "epsilon" in params:
        shown_params.insert(0, f"ε={params['epsilon']:g}")
    label = f"[{problem}/{experiment}" + "".join(" " + x for x in shown_params) + "]"
    state: dict[str, Any] = {}

    def runs() -> Iterator[CheckResult]:
        cell = conformance_cell(cls, problem, experiment, params)
        target = draw_target(cell, root_seed=seed)
        run = registry.experiment(experiment).run_cell
        start = time.perf_counter()
        first = run(cell, target, seed)
        seconds = time.perf_counter() - start
        if not first:
            raise AssertionError("no rows")
        to_table(first)
        if {r["learner"] for r in first} != {cls.name}:
            raise AssertionError(f"rows name learners {sorted({r['learner'] for r in first})}")
        statuses = {r["status"] for r in first}
        if not statuses <= {"ok", "skipped"}:
            raise AssertionError(f"statuses {sorted(statuses)}")
        reason = cls.from_cell(epsilon=cell.epsilon, delta=cell.delta, params=dict(cell.learner_params)).supports(target)
        if not (reason is None or isinstance(reason, str)):
            raise AssertionError(f"supports() returned {reason!r}, not None or a reason")
        before = _global_states()
        second = run(cell, target, seed)
        state.update(first=first, second=second, moved=_global_states() != before)
        metric = FAMILY_METRIC[cls.family]
        values = [r[metric] for r in first if r["status"] == "ok" and r.get(metric) is not None]
        shown = f"{metric}={np.mean(values):.3g}" if values else "all skipped: " + str(first[0]["reason"])
        yield CheckResult("runs " + label, "pass", f"{len(first)} rows, {shown}, {seconds:.2f} s ({cell.size} {registry.experiment(experiment).size})")

    out = _guarded("runs " + label, runs)
    if out[0].failed:
        return out
    same = _strip_timing(state["first"]) == _strip_timing(state["second"])
    out.append(CheckResult("deterministic " + label, "pass" if same else "fail", "same seed, identical rows" if same else "same seed, different rows"))
    out.append(CheckResult("global rng " + label, "fail" if state["moved"] else "pass",
                           "a run moved numpy's or random's global state" if state["moved"] else "global states untouched"))
    return out


def cell_cases(cls: type) -> Iterator[tuple[str, str, dict[str, object]]]:
    """(problem, experiment, test_params) of every conformance cell of ``cls``."""
    for problem in cls.problems:
        experiment = experiment_for(cls, problem)
        if experiment is not None:
            for params in cls.test_params():
                yield problem, experiment, dict(params)


def run_results(cls: type, *, seed: int = 3) -> list[CheckResult]:
    """:func:`cell_results` on every declared problem and ``test_params``; a declared
    problem that no experiment runs is a failure."""
    out = []
    for problem in cls.problems:
        if experiment_for(cls, problem) is None:
            out.append(CheckResult(f"runs [{problem}]", "fail", f"no experiment runs problem {problem!r} with size axis of family {cls.family}"))
    for problem, experiment, params in cell_cases(cls):
        out += cell_results(cls, problem, experiment, params, seed=seed)
    return out


# --------------------------------------------------------------------------- global randomness

#: Attributes of ``np.random`` that draw from (or reseed) the legacy global generator.
FORBIDDEN_ATTRS = {"seed", "RandomState", "rand", "randn", "randint", "random", "choice", "shuffle", "permutation",
                   "normal", "uniform", "laplace", "binomial", "exponential", "gumbel", "poisson", "beta", "gamma"}


def global_rng_uses(path: str | Path) -> Iterator[tuple[int, str]]:
    """(line, what) for every use of global or legacy randomness in a Python file
    (docs/plugins.md, "Rules the checks enforce"): the stdlib ``random`` module, ``np.random.<draw or seed>``,
    ``check_random_state``, ``default_rng()`` without a seed."""
    tree = ast.parse(Path(path).read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            if "random" in names:
                yield node.lineno, "stdlib random"
        if isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_ATTRS:
            v = node.value
            if isinstance(v, ast.Attribute) and v.attr == "random" and isinstance(v.value, ast.Name) and v.value.id in ("np", "numpy"):
                yield node.lineno, f"np.random.{node.attr}"
        if isinstance(node, ast.Name) and node.id == "check_random_state":
            yield node.lineno, "check_random_state"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "default_rng" and not node.args and not node.keywords:
            yield node.lineno, "default_rng() without a seed"


def lint_results(cls: type) -> list[CheckResult]:
    """:func:`global_rng_uses` on the module that defines ``cls`` and on its bases' modules
    outside the catalogue's shared code."""

    def lint() -> Iterator[CheckResult]:
        files = {inspect.getsourcefile(k) for k in cls.__mro__ if k.__module__ not in ("builtins", "dpbench.learners.base")}
        found = [f"{Path(f).name}:{line}: {what}" for f in sorted(x for x in files if x) for line, what in global_rng_uses(f)]
        yield CheckResult("global rng (source)", "fail" if found else "pass", "; ".join(found[:3]) or f"{len(files)} module(s) clean")

    return _guarded("global rng (source)", lint)


# --------------------------------------------------------------------------- twin


def _last_metric(rows: list[dict], metric: str) -> dict[int, float]:
    """Per repetition, the metric at the last checkpoint (ok rows only)."""
    out: dict[int, tuple[int, float]] = {}
    for r in rows:
        if r["status"] == "ok" and r.get(metric) is not None:
            t = r.get("t") or 0
            if r["rep"] not in out or t >= out[r["rep"]][0]:
                out[r["rep"]] = (t, float(r[metric]))
    return {rep: v for rep, (_, v) in out.items()}


def twin_results(cls: type, *, seed: int = 3, repetitions: int = TWIN_REPETITIONS) -> list[CheckResult]:
    """ε → ∞ limit: the learner at ε = ∞ and its declared non-private ``twin`` on the same
    samples (common data streams), per problem both run on. Passes when every repetition's
    metric is identical, or when a paired t-test cannot tell them apart at false-alarm rate
    :data:`TWIN_FALSE_ALARM` (twins that break ties with their own randomness)."""
    twin_name = getattr(cls, "twin", None)
    if not cls.private:
        return [CheckResult("ε→∞ twin", "skip", "non-private")]
    if not twin_name:
        return [CheckResult("ε→∞ twin", "skip", "no twin declared (class attribute twin = 'name')")]

    def compare() -> Iterator[CheckResult]:
        from dpbench.experiments.base import draw_target  # deferred: imports pandas

        twin = registry.learner(twin_name)
        if twin.private:
            raise AssertionError(f"twin {twin_name!r} is private")
        shared = [p for p in cls.problems if p in twin.problems and experiment_for(cls, p) is not None]
        if not shared:
            raise AssertionError(f"twin {twin_name!r} runs on none of {list(cls.problems)}")
        _, _, params = _construct_params(next(iter(cls.test_params())))
        metric = FAMILY_METRIC[cls.family]
        for problem, problem_params in ((p, dict(pp)) for p in shared for pp in registry.problem(p).test_params()):
            base = conformance_cell(cls, problem, experiment_for(cls, problem), {**params, "epsilon": math.inf},
                                    repetitions=repetitions, problem_params=problem_params)
            label = f"{problem} " + " ".join(f"{k}={v}" for k, v in sorted(problem_params.items()))
            twin_cell = Cell(base.experiment, base.problem, base.problem_params, twin_name,
                             freeze({k: v for k, v in params.items() if k in twin.field_names()}), math.inf, 0.0, base.size, repetitions)
            target = draw_target(base, root_seed=seed)
            run = registry.experiment(base.experiment).run_cell
            a, b = _last_metric(run(base, target, seed), metric), _last_metric(run(twin_cell, target, seed), metric)
            reps = sorted(set(a) & set(b))
            if len(reps) < 2:  # e.g. a class too large to enumerate: nothing to compare
                yield CheckResult(f"ε→∞ twin [{label}]", "skip", "fewer than 2 repetitions ran on both (skipped cells)")
                continue
            diff = np.array([a[r] - b[r] for r in reps])
            shown = f"{metric} {np.mean([a[r] for r in reps]):.4g} vs {twin_name} {np.mean([b[r] for r in reps]):.4g} ({len(reps)} reps"
            if np.all(np.abs(diff) <= 1e-12):
                yield CheckResult(f"ε→∞ twin [{label}]", "pass", shown + ", identical)")
                continue
            p = stats.ttest_1samp(diff, 0.0).pvalue if np.std(diff) > 0 else 0.0
            status = "fail" if p < TWIN_FALSE_ALARM else "pass"
            yield CheckResult(f"ε→∞ twin [{label}]", status, shown + f", paired p={p:.2g})")

    return _guarded("ε→∞ twin", compare)


# --------------------------------------------------------------------------- privacy audit


def default_privacy(cls: type) -> tuple[float, float]:
    """The (ε, δ) audited by default: ε = 1, δ = 1e-6 for learners that take δ, else 0."""
    return 1.0, (1e-6 if "delta" in cls.field_names() else 0.0)


def audit_cases(cls: type, *, epsilon: float, delta: float) -> tuple[list, str]:
    """The learner's audit cases and where they come from (declared or generic)."""

    if registry.LEARNERS.get(cls.name) is cls:
        try:
            return cases_for(cls.name, epsilon=epsilon, delta=delta), "declared"
        except KeyError:
            pass
    elif getattr(cls, "audit_cases", None) is not None:
        return list(cls.audit_cases(epsilon=epsilon, delta=delta)), "declared"
    return generic_cases(cls, epsilon=epsilon, delta=delta), "generic"


def _runs_within(case, runs: int, budget: float, seed: int) -> int:
    """``runs``, or fewer if a timed probe predicts more than ``budget`` seconds."""
    probe = 20
    case.sample(0, 1, np.random.default_rng(seed))  # warm-up: imports, numba compilation
    start = time.perf_counter()
    case.sample(0, probe, np.random.default_rng(seed))
    per_run = (time.perf_counter() - start) / probe
    return int(max(1_000, min(runs, budget / max(2 * per_run, 1e-9))))


def audit_results(cls: type, *, epsilon: float | None = None, delta: float | None = None, runs: int = AUDIT_RUNS,
                  confidence: float = AUDIT_CONFIDENCE, seed: int = 0, budget: float = AUDIT_SECONDS) -> list[CheckResult]:
    """Audit the correct case (bound ≤ claimed ε, exact ε ≤ claim where computed) and show
    the broken copy's bound."""

    if not cls.private:
        return [CheckResult("privacy audit", "skip", "non-private")]
    eps0, delta0 = default_privacy(cls)
    epsilon = eps0 if epsilon is None else epsilon
    delta = delta0 if delta is None else delta

    def audit() -> Iterator[CheckResult]:
        cases, source = audit_cases(cls, epsilon=epsilon, delta=delta)
        if not cases:
            yield CheckResult("privacy audit", "skip", "no audit instance for this learner")
            return
        groups: dict[str, list] = {}
        for case in cases:
            n = _runs_within(case, runs, budget, seed)
            groups.setdefault(case.component, []).append((case, n, run_case(case, runs=n, confidence=confidence, seed=seed)))
        for component, members in groups.items():
            rows = judge([row for _, _, row in members])
            for (case, n, _), row in zip(members, rows):
                bound, exact = row["epsilon_lower_bound"], row["epsilon_exact"]
                shown = f"ε̂ ≥ {bound:.3f} vs claimed ε={case.epsilon:g}" + (f", exact {exact:.3f}" if not math.isnan(exact) else "")
                shown += f" ({n} runs/side, {source}: {row['instance']})"
                if case.variant == "correct":
                    name, status = "privacy audit", ("fail" if refuted(row) else "pass")
                else:
                    caught = caught_by_sampling(row)  # the exact value alone is no evidence about the sampled code
                    name, status = "audit power (broken copy)", ("pass" if caught else "warn")
                    shown = ("caught by sampling: " if caught else ("caught by exact eps only: " if refuted(row) else "not caught: ")) + shown
                yield CheckResult(name + (f" [{component}]" if component else ""), status, shown)
            verdict = rows[0]["verdict"]
            status = {VIOLATION: "fail", NO_POWER: "warn"}.get(verdict, "pass")
            why = {VIOLATION: "the correct copy's loss exceeds its claim",
                   NO_POWER: f"this audit could not have failed ({no_power_reason(rows)})"}.get(verdict, "correct within its claim, broken copy caught by sampling")
            yield CheckResult("privacy audit verdict" + (f" [{component}]" if component else ""), status, f"{verdict}: {why}")

    return _guarded("privacy audit", audit)


# --------------------------------------------------------------------------- all of it


def learner_results(cls: type, *, seed: int = 3, audit_runs: int = AUDIT_RUNS, epsilon: float | None = None,
                    delta: float | None = None, budget: float = AUDIT_SECONDS) -> list[CheckResult]:
    """Every check on learner class ``cls`` (construction first: nothing runs if it fails)."""
    out = construction_results(cls)
    if any(r.failed for r in out[:2]):
        return out
    out += run_results(cls, seed=seed)
    out += lint_results(cls)
    out += twin_results(cls, seed=seed)
    out += audit_results(cls, epsilon=epsilon, delta=delta, runs=audit_runs, seed=seed, budget=budget)
    return out


def problem_results(cls: type) -> list[CheckResult]:
    """A problem's contract: targets round-trip through JSON; batch samples are nested
    across sizes (a size-m sample is the prefix of a size-n one from the same seed)."""

    def contract() -> Iterator[CheckResult]:
        for params in cls.test_params():
            target = cls(**params).draw_target(rng=np.random.default_rng(1))
            if cls.target_from_json(target.to_json()).to_json() != target.to_json():
                raise AssertionError(f"{params}: target does not round-trip through JSON")
            if cls.family == "batch":
                big = target.sample(300, rng=np.random.default_rng(5))
                small = target.sample(100, rng=np.random.default_rng(5))
                if not (np.array_equal(big.X[:100], small.X) and np.array_equal(big.y[:100], small.y)):
                    raise AssertionError(f"{params}: samples are not nested across sizes")
        yield CheckResult(f"problem {cls.name}", "pass", "targets round-trip, samples nested")

    return _guarded(f"problem {cls.name}", contract)


#: how a privacy-audit verdict line without power starts (:func:`format_table`)
NO_POWER_PREFIX = "no_power:"
#: exit status of ``dpbench check`` when no check failed but a privacy audit had no power
NOT_SHOWN_TO_CONFORM = 3


def powerless(results: list[CheckResult]) -> bool:
    """A privacy audit among ``results`` had no power (its verdict is ``no_power``: it could not have failed)."""
    return any(r.check.startswith("privacy audit verdict") and r.detail.startswith(NO_POWER_PREFIX) for r in results)


def format_table(name: str, results: list[CheckResult]) -> str:
    width = max(len(r.check) for r in results)
    lines = [f"dpbench check {name}", f"{'check':<{width}}  status  detail", "-" * (width + 40)]
    lines += [f"{r.check:<{width}}  {r.status:<6}  {r.detail}" for r in results]
    failed = sum(r.failed for r in results)
    if failed:
        verdict = ""
    elif powerless(results):
        verdict = " — NOT shown to conform: a privacy audit had no power (it could not have failed; see the no_power line)"
    else:
        verdict = " — conforms"
    lines.append(f"{len(results)} checks: {failed} failed" + verdict)
    return "\n".join(lines)


def _config_privacy(config: str, name: str) -> tuple[float | None, float | None]:
    """Load the config's plugins; the first finite ε (and δ) of a block listing ``name``."""
    try:
        data = read_yaml(config) or {}  # a syntax error: its file, line and column, as dpbench validate words it
    except ConfigError as exc:
        raise ValueError(error_line(config, exc)) from None
    if not isinstance(data, Mapping):
        raise ValueError(f"config {config}: must be a mapping")
    load_config_plugins(data)
    for block in (data.get("experiments") or {}).values():
        for sub in [block, *block.get("sweeps", [])]:
            if name in sub.get("learners", block.get("learners", [])):
                eps = [float(e) for e in np.atleast_1d(sub.get("epsilon", block.get("epsilon", [1.0]))) if math.isfinite(float(e))]
                deltas = np.atleast_1d(sub.get("delta", block.get("delta", 0.0)))
                return (eps[0] if eps else None), float(deltas[0])
    return None, None


#: what ``dpbench check`` adds when a bare name is not registered (docs/plugins.md, "Check it")
MODULE_CLASS_HINT = ("a learner in a module of your own (not installed as a plugin): "
                     "dpbench check module:Class, e.g. my_majority:PrivateMajority")


def unknown_name_hint(target: str, message: str) -> str:
    """The registry's "unknown learner" message, one line, with the ``module:Class`` form
    and close registered names: a plugin learner that is neither installed (entry point) nor
    imported is found by its module instead."""
    import difflib

    close = difflib.get_close_matches(target, sorted(registry.LEARNERS), n=2, cutoff=0.75)
    head, _, known = message.partition("; known: ")
    parts = [head]
    if close:
        parts.append("did you mean " + " or ".join(repr(c) for c in close) + "?")
    module, dot, attribute = target.rpartition(".")
    if dot and module and attribute:  # my_majority.PrivateMajority: a dotted path, not the module:Class form
        parts.append(f"did you mean {module}:{attribute}?")
    else:
        parts.append(MODULE_CLASS_HINT)
    if known:
        parts.append("known: " + known)
    return "; ".join(parts)


def cli_check(target: str, *, config: str | None = None) -> int:
    """Run every check on learner ``target`` (a registry name or ``module:Class``), print a
    table of checks (pass/fail, detail) and return the exit status: 0 if every check
    passes (``warn``/``skip`` allowed) and every privacy audit had power; 1 on a failure;
    2 if the learner cannot be found; :data:`NOT_SHOWN_TO_CONFORM` (3) if nothing failed but
    a privacy audit's verdict is ``no_power`` (it could not have failed, so CI must not
    read it as conformance).

    With ``config``, the config's ``plugins:`` are imported first and the audit runs at the
    first finite ε (and δ) the config gives the learner."""
    epsilon = delta = None
    try:
        if config is not None:
            epsilon, delta = _config_privacy(config, target)
        cls = registry.resolve_learner(target)
    except OSError as exc:
        print(f"dpbench check: cannot read config {config}: {exc.strerror}", file=sys.stderr)
        return 2
    except (KeyError, ImportError, ValueError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        if isinstance(exc, KeyError) and ":" not in target:
            message = unknown_name_hint(target, message)
        print(f"dpbench check: {message}", file=sys.stderr)
        return 2
    if cls.private and delta is not None and "delta" in cls.field_names() and delta == 0:
        delta = None  # a δ-taking learner is audited at its default δ, not at 0
    results = learner_results(cls, epsilon=epsilon, delta=delta)
    print(format_table(cls.name if ":" not in target else f"{target} ({cls.name})", results))
    if any(r.failed for r in results):
        return 1
    return NOT_SHOWN_TO_CONFORM if powerless(results) else 0
