"""Benchmark of the Hedge kernel (run by hand: ``python benchmarks/bench_rwm.py [--T T] [--k K]``).

T = 10^6 rounds, k = 100 experts (10^8 loss entries, uint8): loss entries processed per
second by ``run_hedge`` (rwm's η, a private η, FTL, and linear_learner's per-round
probabilities), against physical baselines timed in the same run, interleaved, by CPU time
of the thread (one BLAS thread):

- ``serial sum``: one compiled pass adding every entry to one float64 running sum — one
  dependent addition per entry, the latency floor of any round-by-round Hedge (its weight
  sum ``z`` is such a chain); the kernel runs eight rounds' sums side by side, which lifts
  that floor, but does more than one addition per entry (lags, lookups, two sums, draws);
- ``numpy sum``: one streaming vectorised pass over the uint8 matrix (memory bound);
- ``numpy exp``: a per-entry exponential over the same number of float64 entries.

Also the loss generation rate and ``sv_experts``. Target (issue 22): ≥ 1 G loss entries/s
for the Hedge family; the last line says whether each learner meets it. Where the time goes
when it does not: docs/performance.md (the Hedge bullet: the passes' profile).
"""

from __future__ import annotations

import argparse
import math
import time

import numba
import numpy as np
from pinned import interleaved  # one BLAS thread, as the workflow runs (before numpy)

from dpbench.learners.experts_common import run_hedge
from dpbench.learners.private_rwm import calibrate
from dpbench.learners.sv_experts import SVExperts
from dpbench.problems.experts import ExpertsProblem


@numba.njit(cache=True)
def serial_sum(codes):
    """Every entry added to one float64 running sum, row by row (one dependent add each)."""
    total = 0.0
    T, k = codes.shape
    for t in range(T):
        for i in range(k):
            total += codes[t, i]
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--T", type=int, default=10**6)
    parser.add_argument("--k", type=int, default=100)
    args = parser.parse_args()
    T, K = args.T, args.k
    entries = T * K
    target = ExpertsProblem(kind="stochastic", k=K, gap=0.1).draw_target(rng=np.random.default_rng(0))
    target.losses(10, rng=np.random.default_rng(1))  # compile / load the cache
    start = time.thread_time()
    losses = target.losses(T, rng=np.random.default_rng(1))
    gen = time.thread_time() - start
    print(f"T = {T:,}, k = {K}: {entries:,} loss entries ({losses.codes.nbytes / 1e6:.0f} MB uint8); CPU seconds of this thread, best of 3")
    print(f"{'loss generation':<36s} {gen:7.3f} s  {entries / gen / 1e9:6.3f} G entries/s")

    chunk = np.random.default_rng(2).random(min(entries, 10**7))
    out = np.empty_like(chunk)
    run_hedge(losses.prefix(1000), 0.1, rng=np.random.default_rng(0))  # compile / load caches
    serial_sum(losses.codes[:10])
    sv = SVExperts(epsilon=1.0)
    cases = {
        "rwm  (eta = sqrt(ln k/T))": lambda: run_hedge(losses, math.sqrt(math.log(K) / T), rng=np.random.default_rng(3)),
        "private_rwm (eps=1, delta=1e-6)": lambda: run_hedge(losses, calibrate(1.0, 1e-6, T, K).eta, rng=np.random.default_rng(3)),
        "ftl  (eta = inf)": lambda: run_hedge(losses, math.inf, rng=np.random.default_rng(3)),
        "rwm with p_t sums (linear_learner)": lambda: run_hedge(losses, math.sqrt(math.log(K) / T), rng=np.random.default_rng(3), track_p=True),
        "sv_experts (eps=1)": lambda: sv.run(losses, rng=np.random.default_rng(4)),
    }
    baselines = {
        "serial sum (baseline)": lambda: serial_sum(losses.codes),
        "numpy sum (baseline)": lambda: losses.codes.sum(dtype=np.uint64),
        "numpy exp (baseline)": lambda: [np.exp(-chunk, out=out) for _ in range(entries // len(chunk))],
    }
    t = interleaved({**baselines, **cases}, repeat=3, clock=time.thread_time)
    for name in baselines:
        print(f"{name:<36s} {t[name]:7.3f} s  {entries / t[name] / 1e9:6.3f} G entries/s")
    serial = t["serial sum (baseline)"]
    for name in cases:
        print(f"{name:<36s} {t[name]:7.3f} s  {entries / t[name] / 1e9:6.3f} G entries/s  "
              f"({serial / t[name]:4.2f}x serial sum, {t['numpy exp (baseline)'] / t[name]:4.1f}x numpy exp)")
    short = {"rwm  (eta": "rwm", "private_rwm": "private_rwm", "ftl  (eta": "ftl", "rwm with p_t": "linear_learner"}
    rates = {label: entries / t[name] / 1e9 for prefix, label in short.items() for name in cases if name.startswith(prefix)}
    verdict = "met" if min(rates.values()) >= 1.0 else "NOT met (profile: docs/performance.md, Hedge bullet)"
    print("Hedge family >= 1 G entries/s: " + ", ".join(f"{n} {r:.2f}" for n, r in rates.items()) + f": {verdict}")


if __name__ == "__main__":
    main()
