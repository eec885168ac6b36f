"""Shared argument checkers: one rule, one message format (``<key> must be <rule>, got <value!r>``).

Used by learner/mechanism constructors (``__post_init__``) and by :mod:`dpbench.orchestration.config`,
so the CLI, the workflow and the library reject the same inputs with the same words.
"""

from __future__ import annotations

import math
from numbers import Integral, Real


def check_epsilon(epsilon: float, *, name: str = "epsilon") -> float:
    """ε > 0; ``inf`` is allowed and means the non-private limit."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real):
        raise TypeError(f"{name} must be a real number, got {epsilon!r}")
    if not epsilon > 0:  # rejects NaN too
        raise ValueError(f"{name} must be > 0 (inf allowed), got {epsilon!r}")
    return float(epsilon)


def check_delta(delta: float, *, name: str = "delta") -> float:
    """0 ≤ δ < 1."""
    if isinstance(delta, bool) or not isinstance(delta, Real):
        raise TypeError(f"{name} must be a real number, got {delta!r}")
    if not 0 <= delta < 1:
        raise ValueError(f"{name} must be in [0, 1), got {delta!r}")
    return float(delta)


def check_positive_int(value: int, *, name: str) -> int:
    """An integer ≥ 1."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value!r}")
    return int(value)


def check_nonneg_int(value: int, *, name: str) -> int:
    """An integer ≥ 0."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return int(value)


def check_probability(value: float, *, name: str, closed: bool = True) -> float:
    """A probability in [0, 1] (``closed=False``: in (0, 1))."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    ok = 0 <= value <= 1 if closed else 0 < value < 1
    if not ok:
        interval = "[0, 1]" if closed else "(0, 1)"
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
    return float(value)


def check_positive(value: float, *, name: str, allow_inf: bool = False) -> float:
    """A real number > 0 (finite unless ``allow_inf``)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    if not value > 0 or (math.isinf(value) and not allow_inf):
        raise ValueError(f"{name} must be > 0{' (inf allowed)' if allow_inf else ' and finite'}, got {value!r}")
    return float(value)


def normalise(obj: object, **fields: object) -> None:
    """Replace fields of a frozen dataclass instance by their checked, normalised values, in
    the order given: ``normalise(self, epsilon=check_epsilon(self.epsilon), lam=float(self.lam))``
    in ``__post_init__``. The one place that writes a frozen dataclass's fields (a frozen
    dataclass refuses ``setattr``; this is the escape hatch the :mod:`dataclasses` documentation
    names for ``__post_init__``, ``object.__setattr__``). The values are computed before the
    call: a check that reads a field normalised earlier goes in a later call."""
    for name, value in fields.items():
        object.__setattr__(obj, name, value)
