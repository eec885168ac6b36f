"""Benchmark (run by hand): ``dp_gd`` and ``dp_sgd`` at n = 10^5, d = 50 — seconds per fit
and test accuracy — against diffprivlib's ``LogisticRegression`` (the baseline, measured in
the same run at the same ε) and scikit-learn's non-private fit.

    python benchmarks/bench_dp_gd.py [--repeats 3] [--n 100000] [--d 50]

Data: the ``logistic`` problem (unit-ball features, margin 0.01, no label noise). Every
learner minimises the same J_λ (λ = 0.01). Times are medians over repeats of ``fit`` alone;
the one-off noise calibration of dp_gd/dp_sgd (RDP accountant, cached per process) is timed
separately. BLAS threads are whatever the environment gives (set OMP_NUM_THREADS to pin).
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time

import numpy as np

from dpbench.learners.diffprivlib_logreg import DiffprivlibLogReg
from dpbench.learners.dp_gd import DPGD
from dpbench.learners.dp_sgd import DPSGD, sampling_rate
from dpbench.learners.objective_perturbation import ObjectivePerturbation
from dpbench.learners.output_perturbation import OutputPerturbation
from dpbench.learners.sklearn_logreg import SklearnLogReg
from dpbench.problems.logistic import LogisticProblem

DELTA = 1e-6


def timed(learner, sample, target, repeats: int) -> tuple[float, float]:
    times, errors = [], []
    for r in range(repeats):
        start = time.perf_counter()
        h = learner.fit(sample, rng=np.random.default_rng(r))
        times.append(time.perf_counter() - start)
        errors.append(target.population_error(h))
    return statistics.median(times), 1 - float(np.mean(errors))


def main() -> None:
    logging.disable(logging.WARNING)  # dp-accounting's convergence warnings
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--d", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    target = LogisticProblem(d=args.d, rho=0.01).draw_target(rng=np.random.default_rng(0))
    sample = target.sample(args.n, rng=np.random.default_rng(1))
    print(f"n = {args.n}, d = {args.d}, delta = {DELTA:g} (dp_gd, dp_sgd), median of {args.repeats} fits")
    sk_s, sk_acc = timed(SklearnLogReg(), sample, target, args.repeats)
    print(f"{'sklearn_logreg (non-private)':34s} {sk_s:8.3f} s   acc {sk_acc:.4f}")
    print(f"{'learner':22s} {'eps':>5s} {'fit s':>8s} {'x diffprivlib':>13s} {'acc':>7s}   calibration s")
    for eps in (0.1, 1.0, 10.0):
        base_s, base_acc = timed(DiffprivlibLogReg(epsilon=eps), sample, target, args.repeats)
        print(f"{'diffprivlib_logreg':22s} {eps:5g} {base_s:8.3f} {1.0:13.2f} {base_acc:7.4f}   -")
        for learner in (DPGD(epsilon=eps, delta=DELTA), DPSGD(epsilon=eps, delta=DELTA),
                        ObjectivePerturbation(epsilon=eps), OutputPerturbation(epsilon=eps)):
            start = time.perf_counter()
            if isinstance(learner, DPGD):
                learner.noise_multiplier()
            elif isinstance(learner, DPSGD):
                learner.calibration(args.n)
            cal = time.perf_counter() - start
            s, acc = timed(learner, sample, target, args.repeats)
            extra = f"{cal:.3f}" if isinstance(learner, (DPGD, DPSGD)) else "-"
            print(f"{learner.name:22s} {eps:5g} {s:8.3f} {s / base_s:13.2f} {acc:7.4f}   {extra}")
    steps = DPGD(epsilon=1.0, delta=DELTA).steps
    sgd = DPSGD(epsilon=1.0, delta=DELTA)
    print(f"(dp_gd: T = {steps} full-batch steps; dp_sgd: T = {sgd.steps} steps, q = {sampling_rate(sgd.batch_size, args.n):g})")


if __name__ == "__main__":
    main()
