"""Measure the example plugin's cost-model coefficients (its entry in dpbench's cost table).

    python examples/plugin/bench_cost.py [--repeat 5]

Process CPU seconds of one ``fit`` of ``kconj_erm`` and ``kconj_noisy_max`` on a fresh sample
(the class's mistakes included: in a shard the second learner on a sample finds them cached,
so the model errs high) at d = 10, k = 3 (|H_k| = 1161), n = 2^10 … 2^17, best of
``--repeat``; then the least-squares fit of ``per_rep + per_hypothesis_word · |H_k| ·
ceil(n/64)`` (the plugin's ``kconj_words`` formula) in relative error. Numbers depend on the
machine and its load: say which when you copy them into ``learners.py``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from dpbench_noisy_max.learners import class_size

from dpbench.foundation import registry

D, K, SIZES = 10, 3, (1024, 8192, 65536, 131072)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    problem = registry.problem("conjunction")(d=D, k=K)
    rng = np.random.default_rng(1)
    target = problem.draw_target(rng=rng)
    rows = []
    for name, params in (("kconj_erm", {"k": K}), ("kconj_noisy_max", {"k": K, "epsilon": 1.0})):
        learner = registry.learner(name)(**params)
        for n in SIZES:
            best = math.inf
            for _ in range(args.repeat):
                sample = target.sample(n, rng=rng)
                start = time.process_time()
                learner.fit(sample, rng=rng)
                best = min(best, time.process_time() - start)
            words = class_size(D, K, False) * math.ceil(n / 64)
            rows.append((words, best))
            print(f"{name:<16} n = {n:>7}  {best * 1e3:8.3f} ms  (|H_k|·words = {words})")
    x, y = np.array([r[0] for r in rows], float), np.array([r[1] for r in rows])
    a = np.stack([1 / y, x / y], axis=1)  # relative error: (c0 + c1 x) / y ≈ 1
    (c0, c1), *_ = np.linalg.lstsq(a, np.ones_like(y), rcond=None)
    print(f"per_rep = {c0:.2g} s, per_hypothesis_word = {c1:.2g} s; predicted/measured {min((c0 + c1 * x) / y):.2f}–{max((c0 + c1 * x) / y):.2f}")


if __name__ == "__main__":
    main()
