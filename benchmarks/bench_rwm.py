"""Benchmark of the Hedge kernel (run by hand: ``python benchmarks/bench_rwm.py``).

T = 10^6 rounds, k = 100 experts (10^8 loss entries, uint8): loss entries processed per
second by ``run_hedge`` (rwm's η, a private η, FTL) against, measured in the same run,
numpy's ``exp`` over the same number of float64 entries — the cost a per-entry
exponential would put on any implementation. Also the loss generation rate and
``sv_experts``.
"""

from __future__ import annotations

import math
import time

from pinned import best_of  # one BLAS thread, as the workflow runs (before numpy)

import numpy as np

from dpbench.learners.experts_common import run_hedge
from dpbench.learners.private_rwm import calibrate
from dpbench.learners.sv_experts import SVExperts
from dpbench.problems.experts import ExpertsProblem

T, K = 10**6, 100


def main() -> None:
    entries = T * K
    target = ExpertsProblem(kind="stochastic", k=K, gap=0.1).draw_target(rng=np.random.default_rng(0))
    start = time.perf_counter()
    losses = target.losses(T, rng=np.random.default_rng(1))
    gen = time.perf_counter() - start
    print(f"T = {T:,}, k = {K}: {entries:,} loss entries ({losses.codes.nbytes / 1e6:.0f} MB uint8)")
    print(f"{'loss generation':<34s} {gen:7.3f} s  {entries / gen / 1e6:8.1f} M entries/s")

    chunk = np.random.default_rng(2).random(10**7)
    out = np.empty_like(chunk)
    t_exp = best_of(lambda: [np.exp(-chunk, out=out) for _ in range(entries // len(chunk))], repeat=2)
    print(f"{'numpy exp (baseline, same entries)':<34s} {t_exp:7.3f} s  {entries / t_exp / 1e6:8.1f} M entries/s")

    run_hedge(losses.prefix(1000), 0.1, rng=np.random.default_rng(0))  # compile / load cache
    cases = {
        "rwm  (eta = sqrt(ln k/T))": math.sqrt(math.log(K) / T),
        "private_rwm (eps=1, delta=1e-6)": calibrate(1.0, 1e-6, T, K).eta,
        "ftl  (eta = inf)": math.inf,
    }
    for name, eta in cases.items():
        t = best_of(lambda: run_hedge(losses, eta, rng=np.random.default_rng(3)))
        print(f"{name:<34s} {t:7.3f} s  {entries / t / 1e6:8.1f} M entries/s  ({t_exp / t:4.1f}x numpy exp)")
    sv = SVExperts(epsilon=1.0)
    t = best_of(lambda: sv.run(losses, rng=np.random.default_rng(4)), repeat=2)
    print(f"{'sv_experts (eps=1)':<34s} {t:7.3f} s  {entries / t / 1e6:8.1f} M entries/s")


if __name__ == "__main__":
    main()
