"""``diffprivlib_logreg``: IBM diffprivlib's ``diffprivlib.models.LogisticRegression``, a
private peer run through its own API ([HBML19]).

diffprivlib implements objective perturbation (Chaudhuri, Monteleoni & Sarwate 2011, via
its ``Vector`` mechanism). We pass ``data_norm=1`` (features are projected onto the unit
ball, a no-op on the ``logistic`` problem, so diffprivlib never has to clip or warn),
``fit_intercept=False``, ``C = 1/(nλ)`` (diffprivlib uses ``l2_reg_strength = 1/(C n)``, so it
minimises the same ``J_λ`` as our learners before perturbation) and a ``random_state``
drawn from the cell's mechanism stream.

Privacy: as diffprivlib documents it, ε-differential privacy (pure, δ = 0) for data with
``‖x‖ ≤ data_norm``; replace-one, as in [CMS11]. ``epsilon = inf`` is not accepted by
diffprivlib; it runs the same code with ``epsilon = 1e12`` (no meaningful noise) and is
reported as non-private (ε = ∞).
Utility: diffprivlib states none; its mechanism is objective perturbation [CMS11, Alg. 2],
whose excess-risk bound is that of ``objective_perturbation``.

Needs the optional ``peers`` extra (diffprivlib); without it every repetition is recorded
as ``skipped`` with that reason. diffprivlib 0.6.6 predates scikit-learn 1.8:
:func:`dpbench.learners.peers.diffprivlib` adapts it where attributes it uses are missing, and
``tests/test_peers.py`` checks the fits against a reference made with the unpatched
library on scikit-learn 1.7; ``tests/test_private_erm.py`` checks the peer really runs.

References
----------
.. [HBML19] Holohan, Braghin, Mac Aonghusa & Levacher, "Diffprivlib: the IBM differential
   privacy library", 2019.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.learners.logistic_common import LinearClassifier, PureDPLogistic, projected
from dpbench.learners.peers import PeerMissing, diffprivlib
from dpbench.problems.base import Sample

#: Stand-in for ε = ∞ (diffprivlib requires a finite ε).
EPSILON_INF_STANDIN = 1e12


@register_learner(name="diffprivlib_logreg")
@dataclass(frozen=True, kw_only=True)
class DiffprivlibLogReg(PureDPLogistic):
    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0}
        yield {"epsilon": math.inf}

    def supports(self, target: object) -> str | None:
        """The reason this peer cannot run (diffprivlib not installed), else None."""

        try:
            diffprivlib()
        except PeerMissing as exc:
            return str(exc)
        return super().supports(target)

    def peer_parameters(self, n: int) -> dict:
        """The parameters ``fit`` hands diffprivlib's ``LogisticRegression`` for ``n`` rows
        (besides ``random_state``): ``epsilon`` (the claim; :data:`EPSILON_INF_STANDIN` for
        ε = ∞), ``data_norm = 1`` (the rows are projected onto the unit ball), ``C = 1/(nλ)``.
        The privacy audit reads the peer's ε and bounds from here, so a wrapper that passes
        the peer another ε than it claims is audited at what it passes."""
        epsilon = EPSILON_INF_STANDIN if math.isinf(self.epsilon) else self.epsilon
        return {"epsilon": epsilon, "data_norm": 1.0, "C": 1.0 / (n * self.lam), "fit_intercept": False, "max_iter": 1000, "tol": 1e-8}

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> LinearClassifier:

        LogisticRegression = diffprivlib().LogisticRegression

        X, y = projected(sample)[0], np.asarray(sample.y)
        model = LogisticRegression(**self.peer_parameters(len(y)), random_state=int(rng.integers(2**31 - 1)))
        if len(np.unique(y)) < 2:
            return LinearClassifier(np.zeros(X.shape[1]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
        return LinearClassifier(model.coef_.ravel().astype(np.float64))
