r"""A plugin problem with a parameter of its own: conjunctions whose input biases are spread
at random around ½.

``spread_conjunction`` is :class:`~dpbench.problems.conjunction.ConjunctionProblem` (a
target of ``k`` literals over ``d`` variables, label noise ``noise``) except for the input
distribution: coordinate ``i`` is 1 with probability :math:`p_i \sim U[\tfrac12 - s,
\tfrac12 + s]`, iid over ``i`` and drawn with the target, for the parameter ``s = spread``
(:math:`0 \le s < \tfrac12`; ``p`` and ``skew`` are not used). The population error of a
conjunction hypothesis stays exact (the product formula of the conjunction module); the PAC
bounds of the conjunction learners hold for any product distribution (Valiant, "A theory of
the learnable", 1984), so the catalogue's conjunction learners and experiment run on it
unchanged: it is a subclass of the conjunction problem
(:func:`dpbench.foundation.registry.runs_on`).

No built-in problem has a ``spread``: its rows carry it in the ``problem_params`` JSON
column (docs/results.md), the built-in parameters also in their own columns.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from dpbench.foundation.registry import register_problem
from dpbench.foundation.validation import normalise
from dpbench.problems.conjunction import ConjunctionProblem, ConjunctionTarget


@register_problem
@dataclass(frozen=True, kw_only=True)
class SpreadConjunctionProblem(ConjunctionProblem):
    """Parameters: those of ``conjunction`` and ``spread``, the half-width of the interval
    around ½ the input biases are drawn from."""

    name: ClassVar[str] = "spread_conjunction"
    spread: float = 0.25

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.spread, bool) or not isinstance(self.spread, (int, float)) or not 0 <= self.spread < 0.5:
            raise ValueError(f"spread must be in [0, 0.5), got {self.spread!r}")
        normalise(self, spread=float(self.spread))

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"d": 5, "k": 2, "spread": 0.3}

    def draw_target(self, *, rng: np.random.Generator) -> ConjunctionTarget:
        """The conjunction problem's target, then the biases :math:`p_i \\sim U[\\tfrac12 - s, \\tfrac12 + s]`."""
        target = super().draw_target(rng=rng)
        p = 0.5 + self.spread * (2 * rng.random(self.d) - 1)
        return ConjunctionTarget(concept=target.concept, p=p, noise=target.noise, monotone=target.monotone,
                                 holdout_seed=target.holdout_seed)
