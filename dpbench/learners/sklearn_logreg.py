"""``sklearn_logreg``: the non-private reference, ``sklearn.linear_model.LogisticRegression``
run through its own API ([PVG11]).

``C = 1/(nλ)`` and ``fit_intercept=False`` make scikit-learn minimise exactly the
objective ``J_λ`` of the private learners (scikit-learn's objective is
``C Σ ℓ + ½‖θ‖² = nC·J_λ`` with ``λ = 1/(nC)``); solver ``lbfgs`` with a tight tolerance.
Features are projected onto the unit ball like the private learners' (a no-op on the
``logistic`` problem). Not private.
Utility: the minimiser of ``J_λ`` to the solver's tolerance (excess empirical risk ≈ 0).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from dpbench.foundation.registry import register_learner
from dpbench.foundation.validation import normalise
from dpbench.learners.base import Learner
from dpbench.learners.logistic_common import DEFAULT_LAM, LinearClassifier, check_lam, projected
from dpbench.problems.base import Sample


@register_learner(name="sklearn_logreg", family="batch", private=False, problems=("logistic", "halfspace"))
@dataclass(frozen=True, kw_only=True)
class SklearnLogReg(Learner):
    lam: float = DEFAULT_LAM

    def __post_init__(self) -> None:
        normalise(self, lam=check_lam(self.lam))

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {}

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> LinearClassifier:
        X, y = projected(sample)[0], np.asarray(sample.y)
        if len(np.unique(y)) < 2:  # one class only: the regularised optimum has ⟨θ, x⟩ of that sign
            return LinearClassifier(np.zeros(X.shape[1]))
        from sklearn.linear_model import LogisticRegression  # deferred like decision_tree's: 0.4 s to import

        model = LogisticRegression(C=1.0 / (len(y) * self.lam), fit_intercept=False, tol=1e-8, max_iter=1000)
        model.fit(X, y)
        return LinearClassifier(model.coef_.ravel().astype(np.float64))
