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

from dpbench.kernels import numba_cache  # noqa: F401 (kernel caches stamped with the compiled code they use)

#: ``SIGNS[b, k] = 2·bit_k(b) − 1``, bit k of byte b in ``np.unpackbits``'s big-endian order.
SIGNS = (2 * np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.int8) - 1).astype(np.int8)


def signs_from_bytes(raw, d):
    """``X[r, j] = 2·bit_j(raw[r]) − 1`` (int8, shape ``(n, d)``), bit j being bit ``7 − j mod 8``
    of byte ``j // 8`` (``np.unpackbits``'s order): the Boolean inputs from the random bytes
    in one pass (was ``unpackbits``, a slice, two casts and an affine map)."""
    return _signs_from_bytes(raw, d, SIGNS)


@numba.njit(cache=True)
def _signs_from_bytes(raw, d, table):
    n = raw.shape[0]
    X = np.empty((n, d), dtype=np.int8)
    full, rest = d >> 3, d & 7
    for r in range(n):
        for c in range(full):
            b = raw[r, c]
            for k in range(8):
                X[r, 8 * c + k] = table[b, k]
        if rest:
            b = raw[r, full]
            for k in range(rest):
                X[r, 8 * full + k] = table[b, k]
    return X


@numba.njit(cache=True)
def single_coordinate_labels(X, j, sign):
    """Labels of the one-coordinate target ``u = sign·e_j`` on Boolean rows:
    ``y = sign(sign·x_j)`` (never 0 on ±1 inputs: no tie for a coin to break)."""
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
