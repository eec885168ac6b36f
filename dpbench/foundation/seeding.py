"""Every random stream in dpbench comes from here (docs/results.md, "Randomness").

A stream is named (``"target"``, ``"data"``, ``"holdout"``, ``"mech"``) and keyed by a
canonical mapping of the grid cell's identity. The same (root seed, stream, key) always
gives the same generator, independent of shard layout, job order or Python's ``hash``.
Streams:

- ``target``: keyed by the problem (name + parameters): the drawn concept.
- ``data``: keyed by the problem and the repetition only — not by learner, ε or n — so
  every learner and every ε sees the same sample (common random numbers); problems draw
  samples so that a size-m sample is the prefix of a size-n one (m < n).
- ``holdout``: keyed by the problem: the held-out sample for population error.
- ``mech``: keyed by the whole cell and the repetition: the learner's own randomness.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping

import numpy as np


def canonical(value: object) -> object:
    """A JSON-stable form of a key value: ints stay ints, floats become floats, inf is 'inf'."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if isinstance(value, Mapping):
        return {str(k): canonical(value[k]) for k in sorted(value)}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    raise TypeError(f"cannot canonicalise key value {value!r}")


def key_string(key: Mapping[str, object]) -> str:
    """The canonical text of a key mapping (sorted keys, no whitespace)."""
    return json.dumps(canonical(key), sort_keys=True, separators=(",", ":"))


def key_hash(key: Mapping[str, object], length: int = 12) -> str:
    """A short stable hex digest of a key mapping (used in ids and file names)."""
    return hashlib.sha256(key_string(key).encode()).hexdigest()[:length]


def make_rng(root_seed: int, stream: str, key: Mapping[str, object]) -> np.random.Generator:
    """Generator for one named stream of one grid cell: same inputs, same stream."""
    canon = stream + "|" + key_string(key)
    words = np.frombuffer(hashlib.sha256(canon.encode()).digest()[:16], dtype=np.uint32)
    return np.random.default_rng([*map(int, words), int(root_seed)])
