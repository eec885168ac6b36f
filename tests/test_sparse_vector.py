"""AboveThreshold: interface, vectorised form, noise law, accuracy constants."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpbench.mechanisms.sparse_vector import AboveThreshold, accuracy, accuracy_tight, first_above, query_noise


def test_noiseless_limit_fires_at_first_query_above_threshold():
    sv = AboveThreshold.init(math.inf, 3.0, 0.1, rng=np.random.default_rng(0))
    fired = []
    for q in [0, 1, 2, 3, 4]:
        sv.add_query(q)
        fired.append(sv.test_above_threshold())
        if fired[-1]:
            break
    assert fired == [False, False, False, True]
    with pytest.raises(RuntimeError):
        sv.add_query(5)
    assert first_above([0, 1, 2, 3, 4], np.zeros(5), 3.0) == 3
    assert first_above([0, 1], np.zeros(2), 3.0) == -1


def test_class_and_vectorised_form_agree():
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
    sv = AboveThreshold.init(0.5, 10.0, 0.1, rng=rng_a)
    queries = np.arange(60, dtype=float)
    idx = -1
    for i, q in enumerate(queries):
        sv.add_query(q)
        if sv.test_above_threshold():
            idx = i
            break
    thr = 10.0 + rng_b.laplace(0.0, 2.0 / 0.5)
    noise = np.array([rng_b.laplace(0.0, 4.0 / 0.5) for _ in range(len(queries))])
    assert idx == first_above(queries, noise, thr)


def test_query_noise_is_laplace_4_over_epsilon():
    """KS test of 20,000 draws against Lap(4/ε): false-alarm rate 1e-6 (threshold on the p-value)."""
    draws = query_noise(0.8, 20000, rng=np.random.default_rng(11))
    assert stats.kstest(draws, stats.laplace(scale=5.0).cdf).pvalue > 1e-6


def test_accuracy_constants():
    assert accuracy(1.0, 100, 0.1) == pytest.approx(8 * (math.log(100) + math.log(20)))
    assert accuracy_tight(1.0, 100, 0.1) < accuracy(1.0, 100, 0.1)
    assert accuracy(math.inf, 100, 0.1) == 0.0
