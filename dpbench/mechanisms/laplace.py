"""The Laplace mechanism ([DMNS06]; [DR14, Def. 3.3])."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpbench.foundation.validation import check_epsilon, check_positive, normalise
from dpbench.mechanisms.guarantee import Guarantee
from dpbench.mechanisms.laws import release_recorder


@dataclass(frozen=True, kw_only=True)
class Laplace:
    """``M(D) = f(D) + Lap(Δ₁/ε)`` per coordinate.

    Privacy: ε-DP for any ``f`` with ℓ1-sensitivity ``Δ₁ = sensitivity``.
    Utility: ``P[|Lap(b)| > b·ln(1/β)] = β`` with ``b = Δ₁/ε`` (:meth:`tail_bound`).
    ``epsilon = inf`` adds no noise (the non-private limit).
    """

    epsilon: float
    sensitivity: float

    def __post_init__(self) -> None:
        normalise(
            self,
            epsilon=check_epsilon(self.epsilon),
            sensitivity=check_positive(self.sensitivity, name="sensitivity"),
        )

    @property
    def scale(self) -> float:
        """``b = Δ₁/ε``."""
        return self.sensitivity / self.epsilon

    def sample(self, value: npt.ArrayLike, *, rng: np.random.Generator) -> npt.NDArray[np.float64]:
        value = np.asarray(value, dtype=np.float64)
        if self.scale == 0:
            return value.copy()

        recording = release_recorder()
        if recording is not None:  # the per-step accounting check: the scale drawn with
            recording.append({"mechanism": "laplace", "scale": self.scale, "sensitivity": self.sensitivity,
                              "queries": int(value.shape[-1]) if value.ndim else 1})
        return value + rng.laplace(0.0, self.scale, size=value.shape)

    def variance(self) -> float:
        return 2 * self.scale**2

    def tail_bound(self, beta: float) -> float:
        """``t`` with ``P[|noise| > t] = β`` for one coordinate."""
        return self.scale * math.log(1 / beta)

    def guarantee(self) -> Guarantee:
        return Guarantee(epsilon=self.epsilon, delta=0.0)
