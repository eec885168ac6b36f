"""``logistic``: a margin halfspace in the unit ℓ2 ball, for private ERM
([CMS11]; [BST14]).

Target: ``w`` uniform on the unit sphere of ``R^d``. Inputs: ``u`` uniform in the unit
ball, then pushed away from the decision boundary,

.. math:: x = (1-\\rho)\\,u + \\rho\\,\\mathrm{sign}(\\langle w, u\\rangle)\\, w ,

so ``‖x‖ ≤ 1`` and ``|⟨w, x⟩| ≥ ρ`` (``rho`` = margin; ``rho = 0`` is the uniform ball).
Labels: ``y = 1[⟨w, x⟩ > 0]`` flipped with probability ``noise``. Samples are nested across
n (each example uses one fixed-size row of ``d + 2`` standard normals, drawn in one call).
Population error: on a held-out sample of :data:`HOLDOUT_SIZE` examples drawn from the
target's own seed (every hypothesis of a target is scored on the same held-out sample).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from scipy.special import ndtr

from dpbench.foundation.registry import register_problem
from dpbench.foundation.validation import check_positive_int, normalise
from dpbench.problems.base import Problem, Sample

HOLDOUT_SIZE = 50_000


@register_problem(name="logistic", family="batch")
@dataclass(frozen=True, kw_only=True)
class LogisticProblem(Problem):
    """Parameters: dimension ``d``, margin ``rho`` ∈ [0, 1), label-flip rate ``noise`` ∈ [0, ½)."""

    d: int = 10
    rho: float = 0.05
    noise: float = 0.0

    def __post_init__(self) -> None:
        check_positive_int(self.d, name="d")
        if isinstance(self.rho, bool) or not isinstance(self.rho, (int, float)) or not 0 <= self.rho < 1:
            raise ValueError(f"rho must be in [0, 1), got {self.rho!r}")
        if isinstance(self.noise, bool) or not isinstance(self.noise, (int, float)) or not 0 <= self.noise < 0.5:
            raise ValueError(f"noise must be in [0, 0.5), got {self.noise!r}")
        normalise(self, rho=float(self.rho), noise=float(self.noise))

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"d": 3, "rho": 0.1}
        yield {"d": 5, "rho": 0.0, "noise": 0.1}

    def draw_target(self, *, rng: np.random.Generator) -> "LogisticTarget":
        w = rng.standard_normal(self.d)
        w /= np.linalg.norm(w)
        return LogisticTarget(w=w, rho=self.rho, noise=self.noise, holdout_seed=int(rng.integers(2**63)))

    @classmethod
    def target_from_json(cls, data: dict) -> "LogisticTarget":
        return LogisticTarget(w=np.array(data["w"], dtype=float), rho=data["rho"], noise=data["noise"], holdout_seed=data["holdout_seed"])


@dataclass(frozen=True)
class LogisticTarget:
    """A drawn margin halfspace with its input distribution."""

    w: npt.NDArray[np.float64]
    rho: float
    noise: float
    holdout_seed: int
    _holdout: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def d(self) -> int:
        return len(self.w)

    def to_json(self) -> dict:
        return {"w": self.w.tolist(), "rho": self.rho, "noise": self.noise, "holdout_seed": self.holdout_seed}

    def columns(self) -> dict[str, object]:
        return {}

    def sample(self, n: int, *, rng: np.random.Generator) -> Sample:
        """``n`` labelled examples (``X`` float64 ``(n, d)`` in the unit ball, ``y`` in {0,1});
        a sample of size m is the prefix of one of size n > m from the same generator."""
        d = self.d
        g = rng.standard_normal((n, d + 2))
        z = g[:, :d]
        radius = ndtr(g[:, d]) ** (1.0 / d)  # U^{1/d}: uniform in the ball
        u = z * (radius / np.maximum(np.linalg.norm(z, axis=1), 1e-300))[:, None]
        side = np.where(u @ self.w >= 0, 1.0, -1.0)
        X = (1 - self.rho) * u + self.rho * side[:, None] * self.w[None, :]
        clean = (X @ self.w > 0).astype(np.uint8)
        flip = ndtr(g[:, d + 1]) < self.noise
        return Sample(X, (clean ^ flip).astype(np.uint8))

    def holdout(self) -> Sample:
        if "sample" not in self._holdout:
            self._holdout["sample"] = self.sample(HOLDOUT_SIZE, rng=np.random.default_rng(self.holdout_seed))
        return self._holdout["sample"]

    def population_error(self, h) -> float:
        """``P[h(x) ≠ y]`` estimated on the held-out sample (standard error ≤ 0.0023)."""
        holdout = self.holdout()
        return float(np.mean(h.predict(holdout.X) != holdout.y))
