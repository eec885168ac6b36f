"""What every problem provides (docs/plugins.md).

A :class:`Problem` is a frozen record of distribution parameters; ``draw_target(rng=)``
draws the random concept and returns a :class:`Target`, which is JSON-serialisable (the
``distribution`` rule writes it to ``results/distributions/{problem_id}.json``) and can
sample data and score hypotheses. Parameter names double as results columns.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np
import numpy.typing as npt

from dpbench.foundation import registry
from dpbench.foundation.seeding import key_hash, make_rng


class Hypothesis(Protocol):
    """Anything that labels a batch of examples."""

    def predict(self, X: npt.NDArray) -> npt.NDArray: ...


@dataclass
class Sample:
    """A labelled sample.

    ``X`` is ``(n, d)``; ``y`` is ``(n,)`` in {0, 1} for the PAC problems.
    ``concept_class`` is the finite hypothesis class the problem is learned with (public
    information, not data), used by class-generic learners such as ``erm``.
    ``cache`` memoises data-derived statistics (e.g. the mistakes of every hypothesis)
    shared by the cells of a shard that see this same sample: it is keyed by the
    statistic's name and must only hold deterministic functions of (X, y).
    """

    X: npt.NDArray
    y: npt.NDArray
    concept_class: Any = None
    cache: dict = field(default_factory=dict, repr=False, compare=False)
    #: seconds each cached statistic took to compute (wall clock)
    cache_seconds: dict = field(default_factory=dict, repr=False, compare=False)
    #: running total of those seconds over the calls that found the statistic cached
    reused_seconds: float = field(default=0.0, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.y)

    def cached(self, name: str, compute):
        """``compute()`` once per sample and statistic name. A call that finds it cached adds
        the seconds it took to :attr:`reused_seconds`, so a fit can be timed as if it had
        computed what it reused (``fit_seconds``, :func:`dpbench.experiments.base.run_batch_cell`):
        the same whichever cell of a shard computed it first."""
        if name in self.cache:
            self.reused_seconds += self.cache_seconds.get(name, 0.0)
            return self.cache[name]
        start = time.perf_counter()
        value = self.cache[name] = compute()
        self.cache_seconds[name] = time.perf_counter() - start
        return value

    def prefix(self, n: int) -> "Sample":
        """The first ``n`` examples (samples are nested across n)."""
        return Sample(self.X[:n], self.y[:n], self.concept_class)


class Target(Protocol):
    """A drawn distribution: data source and judge of hypotheses."""

    def to_json(self) -> dict: ...


@dataclass(frozen=True, kw_only=True)
class Problem:
    """Base of the problem parameter records.

    Subclasses set ``name`` and ``family`` (``batch``, ``online`` or ``experts``) and
    implement ``draw_target(*, rng)`` and the class method ``target_from_json(data)``.
    """

    name: ClassVar[str]
    family: ClassVar[str]

    def params(self) -> dict[str, object]:
        """The parameters, as results columns."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def param_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def test_params(cls) -> Iterator[Mapping[str, object]]:
        """Small, fast parameter sets for the conformance tests."""
        yield {}

    def draw_target(self, *, rng: np.random.Generator) -> Target:  # pragma: no cover
        raise NotImplementedError

    @classmethod
    def target_from_json(cls, data: Mapping[str, Any]) -> Target:  # pragma: no cover
        raise NotImplementedError


def redraw_target(problem: str, params: Mapping[str, Any], root_seed: int) -> Any:
    """The target every shard draws for ``problem`` with ``params`` under ``root_seed``: its
    ``draw_target`` on the ``"target"`` stream keyed by the problem and its parameters
    (:mod:`dpbench.foundation.seeding`), so all learners — and any later reader — face the same one."""

    key = {"problem": problem, **params}
    return registry.problem(problem)(**params).draw_target(rng=make_rng(int(root_seed), "target", key))


def target_of_row(row: Mapping[str, Any]) -> Any:
    """The target a results row was run on (:func:`redraw_target` with the row's
    ``root_seed`` and the problem parameters in its ``cell_key``), checked against the row's
    ``problem_id``. For statistics the rows do not record (e.g. a target's label balance)."""
    import json


    cell = json.loads(row["cell_key"])
    names = {f.name for f in dataclasses.fields(registry.problem(cell["problem"]))}
    params = {k: v for k, v in cell.items() if k in names}
    if f"{cell['problem']}-{key_hash({'problem': cell['problem'], **params})}" != row["problem_id"]:
        raise ValueError(f"cell_key of {row['problem_id']} does not rebuild its problem key {params}")
    return redraw_target(cell["problem"], params, int(row["root_seed"]))
