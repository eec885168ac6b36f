"""Do the hand-written kernels earn their place? (issue 28, item 4.) Each LLVM-IR intrinsic is
timed against the plain numba loop with the same summation order and the same bits, in the
same process, interleaved, best of ``--repeat``, one BLAS thread (``pinned``), process CPU
time (the machine is shared: wall time would measure the other jobs too), at the sizes the
grids use (``config/config.yaml``, ``config/paper.yaml``). Every pair is checked bit for bit
before it is timed. Run by hand: ``python benchmarks/bench_intrinsics.py [--quick]``.

1. dp_gd's gradient pass (one pass over X per step; T = 200 steps per fit):
   :func:`dpbench.learners.logistic_common._full_batch_clipped_sums` (margins by
   ``lane_dot.block_dots``, the running sum by ``lane_dot.block_axpy``) against
   :func:`~dpbench.learners.logistic_common.plain_clipped_sums`, at d = 1 … 6, 10, 20, 50 and
   n = 100 … 10⁵ (``private_erm``'s grids), and the privacy audit's shape (5·10⁴ runs of a
   two-example, two-feature sample per call). Printed: µs per pass, and plain / intrinsic
   (> 1: the intrinsic is faster).
2. The Winnow family's margin ``⟨w, X[r]⟩`` summed over all rows (the per-round loops' only
   use of it): the plain loop :func:`dpbench.kernels.simd_dot._row_dot_scalar` inlined as
   the kernels would inline it, the intrinsic's vector path alone (``row_dot_intrinsic(0, 0)``)
   and the kernel the learners use (``_row_dot_simd``: the scalar path up to
   ``SHORT_INT`` / ``SHORT_FLOAT`` coordinates, the vector path above), for int8 (Boolean
   streams) and float64 (cube streams) inputs, at N = 1 … 9 (where the scalar path and the
   vector path cross) and the grids' N = 16 … 2048. Printed: ns per row, plain / kernel and
   vector / kernel (> 1: the kernel the learners use is faster).
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np
import pinned

from dpbench.kernels import simd_dot
from dpbench.learners.logistic_common import _full_batch_clipped_sums, plain_clipped_sums

_plain_dot = numba.njit(inline="always")(simd_dot._row_dot_scalar)
_vector_dot = simd_dot.row_dot_intrinsic(0, 0)
_kernel_dot = simd_dot._row_dot_simd


def _row_sum(dot):
    """A compiled loop adding ``dot(w, X, r)`` over the rows (one per margin kernel timed)."""

    @numba.njit
    def total(w, X):
        t = 0.0
        for r in range(X.shape[0]):
            t += dot(w, X, r)
        return t

    return total


_sum_plain, _sum_vector, _sum_kernel = _row_sum(_plain_dot), _row_sum(_vector_dot), _row_sum(_kernel_dot)


def _logistic_data(n: int, d: int, runs: int, rng: np.random.Generator):
    X = rng.standard_normal((n, d))
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    s = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return rng.standard_normal((runs, d)), X, s, np.linalg.norm(X, axis=1)


def bench_gradient_pass(repeat: int, quick: bool) -> None:
    print("dp_gd gradient pass: lane_dot intrinsics vs the plain numba loop (same bits), process CPU, "
          f"best of {repeat}")  # fmt: skip
    print(f"  {'d':>3} {'n':>7} {'runs':>6}  {'intrinsic':>10} {'plain':>10}  plain/intrinsic")
    shapes = [(d, n, 1) for d in ((2, 10, 50) if quick else (1, 2, 3, 4, 5, 6, 10, 20, 50)) for n in ((1000, 100_000) if quick else (100, 1000, 10_000, 100_000))]
    shapes.append((2, 2, 50_000))  # the privacy audit's canary pair, one chunk of runs
    rng = np.random.default_rng(0)
    for d, n, runs in shapes:
        theta, X, s, norms = _logistic_data(n, d, runs, rng)
        a, b = _full_batch_clipped_sums(theta, X, s, norms, 1.0), plain_clipped_sums(theta, X, s, norms, 1.0)
        assert a.tobytes() == b.tobytes(), (d, n, runs)
        calls = max(1, 2_000_000 // (n * d * runs))
        t = pinned.interleaved({
            "intrinsic": lambda: [_full_batch_clipped_sums(theta, X, s, norms, 1.0) for _ in range(calls)],
            "plain": lambda: [plain_clipped_sums(theta, X, s, norms, 1.0) for _ in range(calls)],
        }, repeat, clock=time.process_time)  # fmt: skip
        us = {k: v / calls * 1e6 for k, v in t.items()}
        print(f"  {d:3d} {n:7d} {runs:6d}  {us['intrinsic']:8.1f}µs {us['plain']:8.1f}µs  {t['plain'] / t['intrinsic']:6.2f}", flush=True)


def bench_margins(repeat: int, quick: bool) -> None:
    print(f"Winnow-family margins: the plain loop, the vector path and the learners' kernel "
          f"(scalar path to N = {simd_dot.SHORT_INT} int8 / {simd_dot.SHORT_FLOAT} float64), ns per row, best of {repeat}")  # fmt: skip
    print(f"  {'dtype':7} {'N':>5}  {'plain':>8} {'vector':>8} {'kernel':>8}  plain/kernel vector/kernel")
    sizes = (2, 8, 32, 2048) if quick else (1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 22, 32, 42, 64, 100, 128, 256, 512, 1024, 2048)
    rng = np.random.default_rng(1)
    for dtype in (np.int8, np.float64):
        for N in sizes:
            rows = max(2000, 2_000_000 // N)
            X = rng.integers(-1, 2, (rows, N)).astype(dtype) if dtype == np.int8 else rng.uniform(-1, 1, (rows, N))
            w = rng.random(N)
            sums = {_sum_plain(w, X).hex(), _sum_vector(w, X).hex(), _sum_kernel(w, X).hex()}
            assert len(sums) == 1, (dtype, N, sums)
            t = pinned.interleaved({"plain": lambda: _sum_plain(w, X), "vector": lambda: _sum_vector(w, X), "kernel": lambda: _sum_kernel(w, X)},
                                   repeat, clock=time.process_time)  # fmt: skip
            ns = {k: v / rows * 1e9 for k, v in t.items()}
            print(f"  {np.dtype(dtype).name:7} {N:5d}  {ns['plain']:8.2f} {ns['vector']:8.2f} {ns['kernel']:8.2f}  "
                  f"{t['plain'] / t['kernel']:12.2f} {t['vector'] / t['kernel']:13.2f}", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="a few sizes of each")
    args = parser.parse_args()
    bench_gradient_pass(args.repeat, args.quick)
    bench_margins(args.repeat, args.quick)


if __name__ == "__main__":
    main()
