"""Throughput of the compiled online loops (issue 4): Winnow and DP-Winnow at T = 1e5,
N = 2,000, in rounds·coordinates per second, against a plain ``X @ w`` over the same data
(the memory-bound limit of any per-round linear prediction). Run by hand:
``python benchmarks/bench_winnow.py``."""

import time

import numpy as np

from dpbench.learners.dp_winnow_batched_tight import DPWinnowBatchedTight
from dpbench.learners.online import WINNOW, nonprivate_block
from dpbench.learners.winnow import Winnow
from dpbench.problems.halfspace import Halfspace, OnlineStream

T, N = 100_000, 2_000


def best(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


target = Halfspace(d=N, s=10, rho=0.1).draw_target(rng=np.random.default_rng(0))
X, y = target.stream(T, rng=np.random.default_rng(1)).materialise()
stream = OnlineStream(T=T, n_features=N, rho=0.1, make_block=lambda b, rng: (X, y), rng=np.random.default_rng(0), block_size=T)
w = np.full(N, 1.0 / N)
Xf = X.astype(np.float64)
rng = np.random.default_rng(2)
Winnow().run(stream, rng=rng)
DPWinnowBatchedTight(epsilon=10.0, delta=1e-6).run(stream, rng=rng)
cases = {
    "X @ w (int8 X, float64 w)": lambda: X @ w,
    "X @ w (float64 X)": lambda: Xf @ w,
    "winnow.run": lambda: Winnow().run(stream, rng=rng),
    "winnow kernel only": lambda: nonprivate_block(X, y, w.copy(), WINNOW, 0.1, 0.0, np.array([T]), np.array([0, 0, 0, 0, -1]), np.zeros(1, np.int64), np.zeros(1, np.int64)),
    "dp_winnow_batched_tight.run (eps=10)": lambda: DPWinnowBatchedTight(epsilon=10.0, delta=1e-6).run(stream, rng=rng),
}
base = None
print(f"T = {T:,}, N = {N:,}: rounds·coordinates per second (best of 3)")
for name, fn in cases.items():
    s = best(fn)
    rate = T * N / s
    base = base or rate
    print(f"  {name:32s} {s * 1e3:8.1f} ms  {rate:10.3e} /s  ({rate / base:5.2f}× X @ w)")
