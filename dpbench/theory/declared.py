"""Theorems a plugin learner declares (docs/plugins.md, "Declare its theorem").

The catalogue's rates are keyed by learner name in this package (``conjunction_rates``,
``dl_rates``, …). A learner defined elsewhere declares its own: a classmethod
``theorem(setting) -> list[DeclaredRate]``, where ``setting`` is the results row of one curve
(problem parameters, ``log_class_size``, ``epsilon``, ``delta``, the learner's parameters as
``lp_<name>``) plus ``beta``, the failure probability the experiment checks bounds at. Each
:class:`DeclaredRate` is a bound (counted by the theory check at level 1 − β) or a shape
(drawn, never counted), with its exponent in n and its citation; the experiment then draws it
as the learner's theory line and gives its curve a verdict, as for a catalogue learner
(:func:`declared_rates`, consulted by ``conjunction_rates_of`` and ``dl_rates_of`` for a
learner the catalogue has no rate for).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dpbench.foundation import registry
from dpbench.foundation.validation import normalise

__all__ = ["DeclaredRate", "declared_rates", "RATE_KINDS"]

#: ``bound``: a proven bound (cells above it are counted); ``shape``: an O(·) rate with unit constants
RATE_KINDS = ("bound", "shape")


@dataclass(frozen=True)
class DeclaredRate:
    """One theory curve a learner declares: ``error(n)`` (a numpy array of n in, errors out),
    its ``kind`` (:data:`RATE_KINDS`), ``exponent`` (error ∝ n^exponent: the slope the theory
    check compares the fitted one with), ``citation`` (a bibliography key with a locator,
    ``[DR14, §3.3]``; docs/references.md), optionally ``n_at(alpha, epsilon)`` (the sample
    complexity: the n*(α) vs ε figure and check) and ``primary`` (False: drawn only)."""

    label: str
    kind: str
    error: Callable[[Any], Any]
    exponent: float
    citation: str
    n_at: Callable[[float, Any], Any] | None = None
    primary: bool = True

    def __post_init__(self) -> None:
        if self.kind not in RATE_KINDS:
            raise ValueError(f"DeclaredRate kind must be one of {RATE_KINDS}, got {self.kind!r}")
        if not (isinstance(self.exponent, (int, float)) and math.isfinite(self.exponent) and self.exponent < 0):
            raise ValueError(f"DeclaredRate exponent must be a finite negative number, got {self.exponent!r}")
        if not (isinstance(self.citation, str) and self.citation.strip()):
            raise ValueError("DeclaredRate needs a citation (a bibliography key with a locator, e.g. '[DR14, §3.3]')")
        if self.citation not in self.label:
            normalise(self, label=f"{self.label} {self.citation}")


def declared_rates(learner: str, row: Mapping[str, Any], *, beta: float,
                   epsilon: float | None = None) -> list[DeclaredRate]:
    """The rates learner ``learner`` declares (its ``theorem`` classmethod) in the setting
    ``row`` records, with ``beta`` and ``epsilon`` (overriding the row's) added; [] for a
    learner that declares none or is not registered here."""
    cls = registry.LEARNERS.get(learner)
    if cls is None:
        try:
            cls = registry.learner(learner)
        except KeyError:
            return []
    theorem = getattr(cls, "theorem", None)
    if theorem is None:
        return []
    setting = {**dict(row), "beta": float(beta)}
    if epsilon is not None:
        setting["epsilon"] = float(epsilon)
    rates = list(theorem(setting))
    for rate in rates:
        if not isinstance(rate, DeclaredRate):
            raise TypeError(f"{learner}.theorem() must return DeclaredRate objects, got {type(rate).__name__}")
    return rates
