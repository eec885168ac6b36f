"""The compiled PCG64 Bernoulli draws equal numpy's, value for value and state for state."""

import numpy as np
import pytest

from dpbench.kernels.pcg64_float32 import bernoulli_fill
from dpbench.problems.experts import bernoulli_codes


def numpy_codes(T, means, rng):
    return (rng.random((T, len(means)), dtype=np.float32) < np.asarray(means, dtype=np.float32)).astype(np.uint8)


@pytest.mark.parametrize("T,k", [(1, 1), (7, 3), (1001, 10), (300, 100)])
def test_same_codes_and_state_as_numpy(T, k):
    means = np.random.default_rng(k).random(k)
    ours, theirs = np.random.default_rng(11), np.random.default_rng(11)
    for _ in range(3):  # odd entry counts leave a buffered half-word: the next call must use it
        assert np.array_equal(bernoulli_codes(T, means, rng=ours), numpy_codes(T, means, theirs))
        assert ours.bit_generator.state == theirs.bit_generator.state
    assert ours.random() == theirs.random()


def test_other_bit_generators_use_numpy():
    means = np.full(4, 0.3)
    rng = np.random.Generator(np.random.Philox(5))
    out = np.zeros((5, 4), dtype=np.uint8)
    assert not bernoulli_fill(out, means, rng) and not out.any()
    assert np.array_equal(bernoulli_codes(9, means, rng=np.random.Generator(np.random.Philox(5))), numpy_codes(9, means, np.random.Generator(np.random.Philox(5))))


def test_a_wrong_multiplier_is_caught(monkeypatch):
    """The test can fail: a stream with another LCG multiplier gives other codes."""
    import dpbench.kernels.pcg64_float32 as pcg

    monkeypatch.setattr(pcg, "_bernoulli_fill", pcg._bernoulli_fill.py_func)
    monkeypatch.setattr(pcg, "MULT_LO", np.uint64(0x4385DF649FCCF647))
    monkeypatch.setattr(pcg, "_mulhi", lambda a, b: np.uint64((int(a) * int(b)) >> 64))
    means = np.full(8, 0.5)
    out = np.empty((50, 8), dtype=np.uint8)
    with np.errstate(over="ignore"):  # uint64 arithmetic wraps, as compiled
        pcg.bernoulli_fill(out, means, np.random.default_rng(3))
    assert not np.array_equal(out, numpy_codes(50, means, np.random.default_rng(3)))
