"""Benchmark: ``privdl`` at d = 50, k = 2 (|F| = 5,001), n = 10^4 (issue 3, item 8).

Run by hand: ``python benchmarks/bench_privdl.py [--n 10000] [--d 50] [--k 2] [--reps 3]``.
Prints, for each ε: seconds per run of privdl with incremental counts (the algorithm as
specified, O(n|F| + |F|²)) and of the same loop recounting every feature's positive/negative
counts from scratch after each round (O(n|F|) per round), both on the same sample with the
same mechanism seed (the two produce the same list, which is checked), the number of
data-dependent rounds, and the speed-up. Also: building the feature matrix Φ once, and
rivest for reference. Not a timed test: numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from dpbench.learners.privdl import PrivDL, covering_list
from dpbench.learners.rivest import Rivest, feature_matrix
from dpbench.problems.decision_list import DecisionListProblem


def timed(fn, reps: int):
    out, best = None, math.inf
    for _ in range(reps):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return out, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--d", type=int, default=50)
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--reps", type=int, default=3, help="timing repetitions (best of)")
    parser.add_argument("--epsilon", type=float, nargs="+", default=[1.0, 8.0])
    args = parser.parse_args()

    problem = DecisionListProblem(d=args.d, k=args.k, l=6, r=3)
    target = problem.draw_target(rng=np.random.default_rng(0))
    sample = target.sample(args.n, rng=np.random.default_rng(1))
    f = target.features.size
    print(f"privdl benchmark: d = {args.d}, k = {args.k}, |F| = {f:,}, n = {args.n:,} (best of {args.reps})")

    start = time.perf_counter()
    packed = feature_matrix(sample)  # cached on the sample from here on
    print(f"  feature matrix Φ (packed, {packed.nbytes / 1e6:.1f} MB): {time.perf_counter() - start:.3f} s (once per sample)")
    covering_list(sample, 1.0, rng=np.random.default_rng(0))  # compile the numba kernels

    h, t = timed(lambda: Rivest().fit(sample, rng=np.random.default_rng(2)), args.reps)
    print(f"  rivest: {t:.3f} s per run, list length {len(h)}, error {target.population_error(h):.4f}")
    print(f"  {'ε':>5} {'λ':>8} {'rounds':>7} {'incremental s':>14} {'recount s':>10} {'speed-up':>9} {'error':>7}")
    for eps in args.epsilon:
        lam = PrivDL(epsilon=eps, delta=1e-6).lam()
        fast, t_fast = timed(lambda lam=lam: covering_list(sample, lam, rng=np.random.default_rng(3)), args.reps)
        slow, t_slow = timed(lambda lam=lam: covering_list(sample, lam, rng=np.random.default_rng(3), incremental=False), 1)
        assert np.array_equal(fast.features, slow.features) and np.array_equal(fast.bits, slow.bits)
        rounds = _data_rounds(sample, fast)
        print(f"  {eps:>5g} {lam:>8.4f} {rounds:>7d} {t_fast:>14.3f} {t_slow:>10.3f} {t_slow / t_fast:>8.1f}× {target.population_error(fast):>7.4f}")


def _data_rounds(sample, h) -> int:
    """Rounds selected while examples remained (the data-dependent part of the loop)."""
    alive = np.ones(len(sample), dtype=bool)
    for i, f in enumerate(h.features):
        if not alive.any():
            return i
        alive &= ~_column(sample, int(f))
    return len(h.features)


def _column(sample, f: int) -> np.ndarray:
    packed = feature_matrix(sample)
    return ((packed[:, f >> 3] >> (f & 7)) & 1).astype(bool)


if __name__ == "__main__":
    main()
