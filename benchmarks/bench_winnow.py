"""Throughput of the compiled online loops (issue 4): Winnow and DP-Winnow at T = 1e5,
N = 2,000, in rounds·coordinates per second, against a plain ``X @ w`` over the same data
(the memory-bound limit of any per-round linear prediction). Run by hand:
``python benchmarks/bench_winnow.py``. One BLAS thread (as the workflow); the ratio column is
each case's rate over single-thread float64 ``X @ w`` of the same shape, timed in the same
run (issue 22's target: ≥ 1.0 for the Winnow family and DP-Winnow). The kernels' margins are
summed in a fixed blocked order (:func:`dpbench.learners.online.blocked_dot`), the references' too."""

import time

import pinned  # noqa: F401  (one BLAS thread; before numpy)
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
times = {name: best(fn) for name, fn in cases.items()}
base = T * N / times["X @ w (float64 X)"]
print(f"T = {T:,}, N = {N:,}: rounds·coordinates per second (best of 3)")
for name, s in times.items():
    rate = T * N / s
    print(f"  {name:38s} {s * 1e3:8.1f} ms  {rate:10.3e} /s  ({rate / base:5.2f}× float64 X @ w)")
