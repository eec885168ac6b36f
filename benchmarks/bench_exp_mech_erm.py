"""Benchmark: exp_mech_erm over all 3^12 conjunctions (run by hand:
``python benchmarks/bench_exp_mech_erm.py [--n N]``).

Prints the time of the shared class evaluation used by ``erm`` and ``exp_mech_erm``
(``ConjunctionClass.mistakes``: the signed histogram of the sample over ``{0,1}^d`` and its
subcube zeta transform, ``O(n·d + d·3^d)``), and, timed in the same run (interleaved, one
BLAS thread):

- physical floors: one pass over the sample (``X.sum()``) and one write of the 3^d int64
  outputs;
- the previous numpy evaluation (prefix × suffix bitsets, ``np.bitwise_count`` over
  ``(suffixes, prefixes, words)`` temporaries; kept here as the baseline): the target is
  ≥ 5× (issue 22);
- a dense float evaluation (a matrix product per block of hypotheses) on a subset;
- ``exp_mech_erm.fit`` (evaluation + Gumbel-max selection) against the same fit with the
  numpy evaluation.
"""

from __future__ import annotations

import argparse

import numpy as np
from pinned import interleaved  # one BLAS thread, as the workflow runs (before numpy)

from dpbench.kernels.bitset import pack_columns, popcount_rows
from dpbench.learners.exp_mech_erm import ExpMechERM
from dpbench.problems.base import Sample
from dpbench.problems.conjunction import ConjunctionClass, ConjunctionProblem


def numpy_mistakes(cls: ConjunctionClass, X, y, block_words: int = 1 << 21):
    """The evaluation before the fused kernel (numpy temporaries), for the ratio."""
    X, y = np.asarray(X, dtype=bool), np.asarray(y, dtype=bool)
    ones, zeros = pack_columns(X), pack_columns(~X)
    ypos, yneg = pack_columns(y)[0], pack_columns(~y)[0]
    n_words = ones.shape[1]
    d1 = cls.d - cls.d // 2
    prefix, suffix = (level_bitsets(cls, [(ones[j], zeros[j]) for j in part], n_words) for part in (range(d1), range(d1, cls.d)))
    out = np.empty(len(prefix) * len(suffix), dtype=np.int64)
    chunk = max(1, block_words // (len(prefix) * n_words))
    for start in range(0, len(suffix), chunk):
        s = suffix[start : start + chunk, None, :]
        hits_pos = popcount_rows(prefix[None] & (s & ypos))
        hits_neg = popcount_rows(prefix[None] & (s & yneg))
        out[start * len(prefix) : (start + len(s)) * len(prefix)] = (int(y.sum()) - hits_pos + hits_neg).ravel()
    return out


def level_bitsets(cls: ConjunctionClass, literal_bits, n_words: int):
    rows = np.full((1, n_words), np.uint64(2**64 - 1))
    for on, off in literal_bits:
        rows = np.concatenate([rows, rows & on] if cls.monotone else [rows, rows & on, rows & off])
    return rows


class NumpyClass(ConjunctionClass):
    def mistakes(self, X, y):
        return numpy_mistakes(self, X, y)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--d", type=int, default=12)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--dense-subset", type=int, default=3**8)
    args = parser.parse_args()
    d, n = args.d, args.n
    target = ConjunctionProblem(d=d, k=3, skew=3.0).draw_target(rng=np.random.default_rng(0))
    sample = target.sample(n, rng=np.random.default_rng(1))
    cls = sample.concept_class
    old = NumpyClass(cls.d, cls.monotone)
    mistakes = cls.mistakes(sample.X, sample.y)  # compile / load the cache
    assert np.array_equal(mistakes, numpy_mistakes(cls, sample.X, sample.y))
    subset = np.random.default_rng(2).choice(cls.size, args.dense_subset, replace=False)
    assert np.array_equal(cls.mistakes_dense(sample.X, sample.y, subset), mistakes[subset])
    learner = ExpMechERM(epsilon=1.0)
    fresh = lambda c: Sample(sample.X, sample.y, c)  # noqa: E731  (no cached mistakes)
    assert learner.fit(fresh(cls), rng=np.random.default_rng(3)) == learner.fit(fresh(old), rng=np.random.default_rng(3))
    t = interleaved(
        {
            "transform": lambda: cls.mistakes(sample.X, sample.y),
            "pass over X": lambda: sample.X.sum(),
            "write outputs": lambda: np.full(cls.size, 1, dtype=np.int64),
            "numpy": lambda: numpy_mistakes(cls, sample.X, sample.y),
            "dense": lambda: cls.mistakes_dense(sample.X, sample.y, subset),
            "fit": lambda: learner.fit(fresh(cls), rng=np.random.default_rng(3)),
            "fit_numpy": lambda: learner.fit(fresh(old), rng=np.random.default_rng(3)),
        },
        repeat=3,
    )
    words = -(-n // 64)
    rate = lambda seconds, hyps: hyps * words / seconds / 1e9  # noqa: E731
    print(f"class: 3^{d} = {cls.size:,} conjunctions, n = {n:,} ({words} words of 64 examples); identical mistakes and draws")
    print(f"subcube transform (now)      : {t['transform']:.4f} s  = {t['transform'] / t['pass over X']:.1f}x one pass over X ({t['pass over X']:.4f} s), "
          f"{t['transform'] / t['write outputs']:.1f}x one write of the outputs ({t['write outputs']:.4f} s)")
    print(f"numpy AND + popcount (before): {t['numpy']:.4f} s  {rate(t['numpy'], cls.size):6.2f} G hypothesis·words/s")
    print(f"dense float ({args.dense_subset:,} hypotheses): {t['dense']:.4f} s  {rate(t['dense'], args.dense_subset):6.3f} G hypothesis·words/s")
    print(f"evaluation: {t['numpy'] / t['transform']:.0f}x the numpy evaluation (target >= 5x)")
    print(f"exp_mech_erm.fit: {t['fit']:.4f} s against {t['fit_numpy']:.4f} s with the numpy evaluation: {t['fit_numpy'] / t['fit']:.1f}x (target >= 5x)")


if __name__ == "__main__":
    main()
