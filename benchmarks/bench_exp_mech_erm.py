"""Benchmark: exp_mech_erm over all 3^12 conjunctions with n = 10^4 examples.

Prints hypothesis·example evaluations per second of the bit-packed, shared evaluation
(ConjunctionClass.mistakes) used by `erm` and `exp_mech_erm`, and of a plain dense numpy
evaluation (a float matrix product per block of hypotheses) measured in the same run on a
subset of hypotheses, and the speed-up. Run: python benchmarks/bench_exp_mech_erm.py
"""

from __future__ import annotations

import time

import numpy as np

from dpbench.learners.exp_mech_erm import ExpMechERM
from dpbench.problems.conjunction import ConjunctionProblem


def best_of(fn, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main(d: int = 12, n: int = 10_000, dense_subset: int = 3**8) -> None:
    target = ConjunctionProblem(d=d, k=3, skew=3.0).draw_target(rng=np.random.default_rng(0))
    sample = target.sample(n, rng=np.random.default_rng(1))
    cls = sample.concept_class
    t_packed, mistakes = best_of(lambda: cls.mistakes(sample.X, sample.y))
    subset = np.random.default_rng(2).choice(cls.size, dense_subset, replace=False)
    t_dense, dense = best_of(lambda: cls.mistakes_dense(sample.X, sample.y, subset))
    assert np.array_equal(dense, mistakes[subset])
    t_fit, _ = best_of(lambda: ExpMechERM(epsilon=1.0).fit(type(sample)(sample.X, sample.y, cls), rng=np.random.default_rng(3)))
    packed_rate = cls.size * n / t_packed
    dense_rate = dense_subset * n / t_dense
    print(f"class: 3^{d} = {cls.size:,} conjunctions, n = {n:,}")
    print(f"bit-packed shared evaluation: {t_packed:.3f} s  -> {packed_rate / 1e9:.2f} G hypothesis·example evals/s")
    print(f"dense numpy ({dense_subset:,} hypotheses): {t_dense:.3f} s  -> {dense_rate / 1e9:.3f} G evals/s")
    print(f"speed-up: {packed_rate / dense_rate:.0f}x")
    print(f"exp_mech_erm.fit (evaluation + Gumbel-max selection): {t_fit:.3f} s")


if __name__ == "__main__":
    main()
