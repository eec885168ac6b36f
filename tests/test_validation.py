"""Frozen dataclasses validate through one pattern (:func:`dpbench.foundation.validation.normalise`)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from dpbench.foundation.validation import check_epsilon, normalise
from tests.conftest import REPO


def test_normalise_writes_frozen_fields_in_order():
    @dataclasses.dataclass(frozen=True)
    class Claim:
        epsilon: float
        n: int

        def __post_init__(self) -> None:
            normalise(self, epsilon=check_epsilon(self.epsilon), n=int(self.n))

    claim = Claim(1, 3.0)
    assert (claim.epsilon, claim.n) == (1.0, 3) and type(claim.epsilon) is float and type(claim.n) is int
    with pytest.raises(dataclasses.FrozenInstanceError):
        claim.epsilon = 2.0
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        Claim(-1, 3)


def test_no_frozen_field_is_written_by_hand():
    """Every ``__post_init__`` normalises through :func:`normalise`: no other module of the
    package or the example plugin calls ``object.__setattr__``."""
    offenders = [f"{path.relative_to(REPO)}:{i}"
                 for root in (REPO / "dpbench", REPO / "examples")
                 for path in sorted(root.rglob("*.py")) if path.name != "validation.py"
                 for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if re.search(r"\bobject\.__setattr__\(", line)]
    assert offenders == []
