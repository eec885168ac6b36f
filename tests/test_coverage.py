"""The slope intervals cover: a simulation with a known slope, skewed noise and the repetition
counts the configs use (config/config.yaml: 10, 12, 20; config/paper.yaml: 20, 30, 50).

Each simulated curve is y(x, r) = 5·x^s·g_r·e_{x,r} at 6 log-spaced x, with a per-repetition
factor g_r ~ Gamma(4, ¼) shared across x (the repetitions are paired) and exponential noise
e_{x,r} ~ Exp(1) (skewed, mean 1), so the mean curve is exactly 5·E[g]·x^s and its log–log
slope is s. The interval under test is the one every theory row gets:
:func:`dpbench.theory_check.analysis.fit_regime` (the regime chosen in every resample, the
symmetric studentised bootstrap of :func:`dpbench.theory_check.fit.studentized_fit`). The
percentile bootstrap of the same slope over the same resamples — the method it replaced —
is computed beside it and under-covers (issue 29: 0.89–0.90 at 10 repetitions, 0.83–0.85 at 5).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbench.theory_check.analysis import fit_regime
from dpbench.theory_check.fit import masked_ols

SLOPE = -1.0
X = np.geomspace(100, 1e4, 6)


def _coverage(R: int, sims: int, seed: int = 7, n_boot: int = 1000) -> tuple[float, float]:
    """(studentised coverage, percentile coverage) of the 95 % intervals of ``sims`` curves."""
    rng = np.random.default_rng(seed)
    lx = np.log(X)
    hit_t = hit_p = 0
    for _ in range(sims):
        Y = 5 * X[:, None] ** SLOPE * rng.gamma(4.0, 0.25, size=(1, R)) * rng.exponential(1.0, size=(len(X), R))
        fit = fit_regime(np.repeat(X, R), Y.ravel(), np.tile(np.arange(R), len(X)), trivial=1e9, predicted=SLOPE, n_boot=n_boot,
                         seed=int(rng.integers(2**31))).fit
        hit_t += fit.low <= SLOPE <= fit.high
        idx = rng.integers(0, R, size=(n_boot, R))
        boot = np.log(Y[:, idx].mean(axis=2).T)
        lo, hi = np.quantile(masked_ols(lx[None, :], boot, np.ones_like(boot)), [0.025, 0.975])
        hit_p += lo <= SLOPE <= hi
    return hit_t / sims, hit_p / sims


def test_intervals_cover_at_the_default_repetitions_and_the_percentile_did_not():
    """10 repetitions (the default config): the studentised intervals cover ≥ 0.93, the
    percentile intervals over the same data do not (≈ 0.89)."""
    studentised, percentile = _coverage(10, sims=400)
    assert studentised >= 0.93, studentised
    assert percentile < 0.92, percentile  # the old method under-covers on the same curves


@pytest.mark.slow
@pytest.mark.parametrize("R", [12, 20, 30, 50])
def test_intervals_cover_at_every_configured_repetition_count(R):
    studentised, _ = _coverage(R, sims=400, seed=R)
    assert studentised >= 0.93, (R, studentised)


def _ratio_coverage(R: int, sims: int, seed: int) -> tuple[float, float]:
    """(studentised, percentile) coverage of the cost-of-privacy ratio-of-means interval
    (:func:`dpbench.theory_check.cost_of_privacy.mean_ratio`): paired repetitions a_r = 3·g_r·e_r,
    b_r = g_r·f_r with g_r ~ Gamma(4, ¼) shared and e, f ~ Exp(1) (skewed), so E a / E b = 3."""
    from dpbench.theory_check.cost_of_privacy import _draws, mean_ratio

    rng = np.random.default_rng(seed)
    hit_t = hit_p = 0
    for _ in range(sims):
        g = rng.gamma(4.0, 0.25, R)
        a, b = 3 * g * rng.exponential(1.0, R), g * rng.exponential(1.0, R)
        _, lo, hi = mean_ratio(a, b)
        hit_t += lo <= 3 <= hi
        idx = _draws(R)
        plo, phi = np.quantile(a[idx].mean(1) / b[idx].mean(1), [0.025, 0.975])
        hit_p += plo <= 3 <= phi
    return hit_t / sims, hit_p / sims


def test_cost_of_privacy_ratio_intervals_cover_and_the_percentile_did_not():
    """The cost-of-privacy ratio of means gets the slopes' interval method (symmetric studentised,
    here on the log ratio): ≥ 0.93 at 10 repetitions where its old percentile interval gave ≈ 0.88
    (measured: 0.935 vs 0.885 over 400 curves; at 5, 20, 30, 50 repetitions 0.965/0.94/0.94/0.96
    against 0.82/0.92/0.93/0.94)."""
    studentised, percentile = _ratio_coverage(10, sims=400, seed=1)
    assert studentised >= 0.93, studentised
    assert percentile < 0.92, percentile


@pytest.mark.slow
@pytest.mark.parametrize("R", [20, 30, 50])
def test_cost_of_privacy_ratio_intervals_cover_at_every_configured_repetition_count(R):
    studentised, _ = _ratio_coverage(R, sims=400, seed=R)
    assert studentised >= 0.93, (R, studentised)
