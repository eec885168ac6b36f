"""The Hedge kernel's vector passes (dpbench/learners/hedge_pass.py) against plain loops:
each lane must give exactly the numbers of one round computed on its own."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from dpbench.learners.experts_common import _draw
from dpbench.learners.hedge_pass import ROUNDS, add_probabilities, block_weights, draw_block, leaders_and_transpose


@numba.njit
def _passes(codes, row, L, table, leads, bt, cum, wbuf, zd):
    leaders_and_transpose(codes, row, L, leads, bt)
    block_weights(bt, L, table, leads, cum, wbuf, zd)


@numba.njit
def _draws(cum, targets, actions):
    draw_block(cum, targets, actions)


@numba.njit
def _scalar_draw(cum, target):
    return _draw(cum, target)


@numba.njit
def _add(wbuf, invs, p_sum):
    add_probabilities(wbuf, invs, p_sum)


@pytest.mark.parametrize("k", [2, 5, 16, 17, 48, 100])
@pytest.mark.parametrize("top", [1, 255])
def test_block_passes_are_the_round_by_round_numbers(k, top):
    rng = np.random.default_rng(k + top)
    codes = rng.integers(0, top + 1, size=(3 * ROUNDS, k), dtype=np.uint8)
    L = rng.integers(0, 50, size=k).astype(np.int64)
    table = np.exp(-0.05 * np.arange(40))
    table[-1] = 0.0
    row = ROUNDS
    block = codes[row:row + ROUNDS].astype(np.int64)
    before = L + np.vstack([np.zeros(k, np.int64), np.cumsum(block, axis=0)[:-1]])  # L before each round
    leads = np.zeros(ROUNDS + 1, np.int64)
    leads[0] = before[0].min()
    bt = np.zeros((k + 15 - (k + 15) % 16, ROUNDS), np.uint8)
    cum, wbuf, zd = np.empty((k, ROUNDS)), np.empty((k, ROUNDS)), np.empty(2 * ROUNDS)
    _passes(codes, row, L.copy(), table, leads, bt, cum, wbuf, zd)
    np.testing.assert_array_equal(bt[:k], codes[row:row + ROUNDS].T)
    np.testing.assert_array_equal(leads[1:], (before + block).min(axis=1))
    for r in range(ROUNDS):
        w = table[np.minimum(before[r] - leads[r], len(table) - 1)]
        z = d = 0.0
        for i in range(k):  # one round at a time, in expert order
            z += w[i]
            d += w[i] * float(block[r, i])
            assert cum[i, r] == z
        assert zd[r] == z and zd[ROUNDS + r] == d
        np.testing.assert_array_equal(wbuf[:, r], w)


def test_lockstep_draws_are_the_binary_search_and_the_linear_scan():
    rng = np.random.default_rng(3)
    for k in (1, 2, 3, 7, 8, 100, 257):
        w = rng.random((k, ROUNDS)) * (rng.random((k, ROUNDS)) < 0.7)  # zero weights: equal running sums
        cum = np.cumsum(w, axis=0)
        targets = rng.random(ROUNDS) * cum[-1] * 1.1  # some beyond the total
        targets[0] = cum[0, 0]  # a target equal to a running sum
        actions = np.empty(ROUNDS, np.int64)
        _draws(cum, targets, actions)
        for r in range(ROUNDS):
            scan = min(int(np.searchsorted(cum[:, r], targets[r], side="right")), k - 1)
            assert actions[r] == scan == _scalar_draw(np.ascontiguousarray(cum[:, r]), targets[r])


def test_probability_sums_add_round_by_round():
    rng = np.random.default_rng(4)
    wbuf, invs, p = rng.random((37, ROUNDS)), 1 / rng.random(ROUNDS), rng.random(37)
    expect = p.copy()
    for i in range(37):
        for r in range(ROUNDS):
            expect[i] += wbuf[i, r] * invs[r]
    _add(wbuf, invs, p)
    np.testing.assert_array_equal(p, expect)
