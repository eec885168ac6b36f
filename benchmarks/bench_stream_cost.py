"""Benchmark (run by hand): the online cost model's two parts, stream generation and the
learners' per-round work, measured apart (process CPU time, one thread).

    python benchmarks/bench_stream_cost.py [--T T] [--learner-T T]

- ``stream``: generating a halfspaces_online stream alone (every block of
  :meth:`OnlineStream.blocks`, as :meth:`OnlineStream.stored` does for the cells of a shard
  that share it), per problem setting of config/paper.yaml's grid: Boolean and cube
  halfspaces (d, s, order, monotone) and decision lists as halfspaces (l);
- ``learner``: each online learner run over a stored stream (generation excluded), per
  number of learner features N and input type (int8 {−1,+1} / float64 cube).

Prints one JSON line per measurement (seconds per round and per round × coordinate), the
numbers :func:`dpbench.orchestration.cost.online_stream_seconds` and the ``online_rounds``
entries of :data:`dpbench.orchestration.cost_table.COST_TABLE` (the non-private online learners,
the DP-Winnows) are fitted to.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import dpbench.experiments  # noqa: F401  (registers problems and learners)
from dpbench.foundation import registry
from dpbench.problems.halfspace import log_checkpoints

STREAMS = [  # (problem, params): the settings of config/paper.yaml's halfspaces_online
    *(("halfspace", {"d": d, "s": 1, "rho": 1.0}) for d in (8, 32)),  # one order: adversarial is refused at s = 1
    *(("halfspace", {"d": d, "s": 5, "rho": 0.2, "order": o, "domain": dom}) for d in (8, 128, 1024) for o in ("random", "adversarial")
      for dom in ("boolean", "cube")),
    *(("halfspace", {"d": 100, "s": 15, "rho": 0.2, "monotone": m}) for m in (True, False)),
    *(("dl_as_halfspace", {"d": 20, "l": l, "p": 0.3}) for l in (1, 5)),  # noqa: E741
]

LEARNERS = [("perceptron", {}), ("winnow", {}), ("confident_winnow", {}), ("dp_winnow", {"epsilon": 1.0, "delta": 1e-6}),
            ("dp_winnow_batched", {"epsilon": 1.0, "delta": 1e-6}), ("dp_winnow_batched_tight", {"epsilon": 1.0, "delta": 1e-6})]
LEARNER_STREAMS = [("halfspace", {"d": d, "s": 1, "rho": 1.0}) for d in (2, 8, 32)] + [
    ("halfspace", {"d": d, "s": 5, "rho": 0.2, "domain": dom}) for d in (128, 1024) for dom in ("boolean", "cube")] + [
    ("dl_as_halfspace", {"d": 20, "l": 3, "p": 0.3})]


def target_of(problem: str, params: dict):
    return registry.problem(problem)(**params).draw_target(rng=np.random.default_rng(1))


def cpu(f) -> float:
    start = time.process_time()
    f()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--T", type=float, default=2e6, help="rounds × 1e6 of the d ≤ 100 streams (fewer at larger d)")
    parser.add_argument("--learner-T", type=float, default=1e6)
    args = parser.parse_args()
    for problem, params in STREAMS:
        target = target_of(problem, params)
        T = int(min(args.T, args.T * 32 / params["d"]))
        stream = target.stream(T, rng=np.random.default_rng(2))
        next(stream.blocks())  # warm-up (numba cache loads)
        seconds = min(cpu(lambda: stream.stored(float("inf"))) for _ in range(2))
        print(json.dumps({"kind": "stream", "problem": problem, **params, "N": target.n_features, "T": T,
                          "seconds": round(seconds, 4), "per_round": seconds / T, "per_round_coordinate": seconds / T / params["d"]}), flush=True)
    for problem, params in LEARNER_STREAMS:
        target = target_of(problem, params)
        T = int(min(args.learner_T, args.learner_T * 32 / params["d"]))
        stream = target.stream(T, rng=np.random.default_rng(2), checkpoints=log_checkpoints(T, per_decade=8)).stored(float("inf"))
        for name, kw in LEARNERS:
            learner = registry.learner(name).from_cell(epsilon=kw.get("epsilon", float("inf")), delta=kw.get("delta", 0.0), params={})
            if learner.supports(target) is not None:
                continue
            learner.run(stream, rng=np.random.default_rng(3))  # warm-up
            seconds = min(cpu(lambda: learner.run(stream, rng=np.random.default_rng(3))) for _ in range(2))
            print(json.dumps({"kind": "learner", "learner": name, "problem": problem, **params, "N": target.n_features, "T": T,
                              "seconds": round(seconds, 4), "per_round": seconds / T, "per_round_feature": seconds / T / target.n_features}), flush=True)


if __name__ == "__main__":
    main()
