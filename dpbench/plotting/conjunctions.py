"""Figures of the ``conjunctions`` experiment: error vs n (one panel per ε and setting) and
n*(α) vs ε. Rows and :mod:`dpbench.theory` only: every curve comes from
:func:`dpbench.theory.conjunction_rates` for the setting a row records."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.plotting.common import learning_curves, sample_complexity_figure
from dpbench.plotting.overlays import TheoryLine, error_lines, n_star_lines

ALPHA = theory.CONJUNCTIONS_ALPHA


def _error_lines(learner: str, row: pd.Series, n: np.ndarray) -> list[TheoryLine]:
    return error_lines(learner, theory.conjunction_rates_of(learner, row), n)


def _n_lines(learner: str, row: pd.Series, eps: np.ndarray) -> list[TheoryLine]:
    return n_star_lines(learner, theory.conjunction_rates_of(learner, row, epsilon=float(eps[0])), eps, ALPHA)


def error_vs_n(df: pd.DataFrame):
    return learning_curves(df, x="n", y="error", ylabel="population error", theory=_error_lines, trivial=theory.trivial_error_of)


def sample_complexity(df: pd.DataFrame):
    return sample_complexity_figure(df, alpha=ALPHA, beta=theory.CONJUNCTIONS_BETA, theory=_n_lines)
