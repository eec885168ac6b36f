"""Throughput of the compiled online loops (issues 4 and 22): every Winnow-family learner and
every DP-Winnow, in rounds·coordinates per second, against a plain single-thread float64
``X @ w`` over the same rows (the memory-bound limit of any per-round linear prediction),
timed in the same run, interleaved, best of ``--repeat``, in process CPU seconds (the
machine is shared: at N = 2 a round takes a few ns and wall times move with the other jobs);
one BLAS thread (as the workflow, ``pinned``). Run by hand: ``python benchmarks/bench_winnow.py``.

Shapes: issue 22's (T = 10^5 rounds, N = 2,000 features; target ≥ 1.0× ``X @ w`` for the
Winnow family and DP-Winnow) and the paper grid's long streams (N = 2, 8, 32 on margin-1
halfspaces, N = 42 the decision lists; T = 10^6 here). The stream hands out precomputed
blocks, so the times are the learners' (kernel, per-block driver, DP-Winnow's noise draws
and feature check), not the data generation (``benchmarks/bench_cost.py`` times whole cells).
The margins are summed in a fixed blocked order (:mod:`dpbench.kernels.simd_dot`), the
references' too: the ratio is reached without changing a single rounding.

Each DP-Winnow is also printed against Winnow on the same stream (issue 32, item 2: per
round ≤ 3× Winnow's at every N of the grids); ``--epsilon`` sets their ε (the paper grid
runs 0.03 … 10; the small ε fire more and query the sparse vector's noise more often).
"""

import argparse
import time

import numpy as np
import pinned  # noqa: F401  (one BLAS thread; before numpy)

from dpbench.foundation import registry
from dpbench.problems.dl_as_halfspace import DlAsHalfspace
from dpbench.problems.halfspace import Halfspace, OnlineStream

LEARNERS = ["perceptron", "winnow", "confident_winnow", "dp_winnow", "dp_winnow_batched", "dp_winnow_batched_tight"]


def fixed_stream(problem, T: int) -> OnlineStream:
    """The first T examples of ``problem``'s stream, handed out as one precomputed block."""
    target = problem.draw_target(rng=np.random.default_rng(0))
    X, y = target.stream(T, rng=np.random.default_rng(1)).materialise()
    return OnlineStream(T=T, n_features=X.shape[1], rho=target.rho, make_block=lambda b, rng: (X, y), rng=np.random.default_rng(0), block_size=T)


def learner(name: str, epsilon: float):
    cls = registry.learner(name)
    return cls(epsilon=epsilon, delta=1e-6) if cls.private else cls()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--epsilon", type=float, default=1.0, help="the DP-Winnows' ε (default 1)")
    parser.add_argument("--quick", action="store_true", help="issue 22's shape only")
    args = parser.parse_args()
    registry.load_all()
    shapes = [("issue 22", Halfspace(d=2000, s=10, rho=0.1), 100_000)]
    if not args.quick:
        shapes += [(f"paper N = {d}", Halfspace(d=d, s=1, rho=1.0), 1_000_000) for d in (2, 8, 32)]
        shapes.append(("paper N = 42 (decision list)", DlAsHalfspace(d=20, l=1, p=0.3), 1_000_000))
    for label, problem, T in shapes:
        stream = fixed_stream(problem, T)
        X, _ = stream.materialise()
        Xf, w = X.astype(np.float64), np.full(X.shape[1], 1.0 / X.shape[1])
        runs = {name: (lambda name=name: learner(name, args.epsilon).run(stream, rng=np.random.default_rng(2))) for name in LEARNERS}
        for run in runs.values():
            run()  # compile / warm
        baseline = {"X @ w (float64)": lambda: Xf @ w}
        times = pinned.interleaved(baseline | runs, repeat=args.repeat, clock=time.process_time)
        base = times["X @ w (float64)"]
        N = X.shape[1]
        print(f"{label}: T = {T:,}, N = {N:,} (rounds·coordinates per second, best of {args.repeat}; DP-Winnows at ε = {args.epsilon:g})")
        for name, seconds in times.items():
            private = name.startswith("dp_")
            versus = f"  {seconds / times['winnow']:5.2f}× winnow's time (target ≤ 3: {'met' if seconds <= 3 * times['winnow'] else 'NOT met'})" if private else ""
            print(f"  {name:26s} {seconds * 1e3:8.1f} ms  {T * N / seconds:10.3e} /s  {base / seconds:6.2f}× float64 X @ w{versus}")


if __name__ == "__main__":
    main()
