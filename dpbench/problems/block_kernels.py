"""Compiled one-pass builders of the online streams' blocks (issue 22 item 2).

The random draws stay where they were (the same numpy calls in the same order, so every
stream is bit-identical to the one drawn before these kernels existed); what these
functions replace is the chain of whole-array numpy temporaries that turned the draws into
features and labels — at T = 10^7 rounds and N ≤ 42 features those passes, not the
learners, were most of a cell's time.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def signs_from_bytes(raw, d):
    """``X[r, j] = 2·bit_j(raw[r]) − 1`` (int8, shape ``(n, d)``), bit j being bit ``7 − j mod 8``
    of byte ``j // 8`` (``np.unpackbits``'s big-endian order): the Boolean inputs from the
    random bytes in one pass (was ``unpackbits``, a slice, two casts and an affine map)."""
    n = raw.shape[0]
    X = np.empty((n, d), dtype=np.int8)
    for r in range(n):
        for j in range(d):
            X[r, j] = 2 * ((raw[r, j >> 3] >> (7 - (j & 7))) & 1) - 1
    return X


@numba.njit(cache=True)
def single_coordinate_labels(X, j, sign, coin):
    """Labels of the one-coordinate target ``u = sign·e_j`` on Boolean rows:
    ``y = sign(sign·x_j)`` (never 0 on ±1 inputs, so the fair ``coin`` is never used)."""
    n = X.shape[0]
    y = np.empty(n, dtype=np.int8)
    for r in range(n):
        y[r] = 1 if sign * X[r, j] > 0 else -1
    return y


@numba.njit(cache=True)
def decision_list_block(B, variables, bits):
    """A block of the decision-list stream from its Boolean inputs ``B`` (n, d; 0/1):
    features ``(1, x, −1, −x)`` (int8, n × 2(d+1)) and labels ``y`` = the bit of the first
    list item whose variable is 1, else the default ``bits[-1]``."""
    n, d = B.shape
    l = variables.shape[0]  # noqa: E741
    F = np.empty((n, 2 * (d + 1)), dtype=np.int8)
    y = np.empty(n, dtype=np.int8)
    for r in range(n):
        F[r, 0] = 1
        F[r, d + 1] = -1
        for i in range(d):
            v = 1 if B[r, i] else 0
            F[r, 1 + i] = v
            F[r, d + 2 + i] = -v
        label = bits[l]
        for k in range(l):
            if B[r, variables[k]]:
                label = bits[k]
                break
        y[r] = label
    return F, y
