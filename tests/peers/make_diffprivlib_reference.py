"""Write tests/peers/diffprivlib_reference.json: diffprivlib_logreg's coefficients on a few
samples, made with the UNPATCHED diffprivlib on scikit-learn 1.7 (the last release it
imports on). tests/test_peers.py checks that the same fits on the installed scikit-learn
(with dpbench.learners.peers' compatibility layer where it is needed) are identical.

Recreate the reference environment from its lock file and run this script there:

    python3 -m venv /tmp/ref && . /tmp/ref/bin/activate && pip install uv
    uv pip install -r requirements/reference-sklearn-1.7.lock && uv pip install --no-deps -e .
    python tests/peers/make_diffprivlib_reference.py
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from dpbench.learners.diffprivlib_logreg import DiffprivlibLogReg
from dpbench.problems.base import redraw_target

OUT = Path(__file__).with_name("diffprivlib_reference.json")

#: (d, n, epsilon, seed): small and large d and n, a private and the non-private stand-in
CASES = [(2, 100, 1.0, 0), (2, 1000, 0.3, 1), (10, 300, 3.0, 2), (10, 3000, math.inf, 3), (4, 2000, 1.0, 4)]


def fits() -> list[dict]:
    """Each case: the sample (data stream seed), the learner's coefficients (exact, as repr)."""
    out = []
    for d, n, eps, seed in CASES:
        target = redraw_target("logistic", {"d": d, "rho": 0.01, "noise": 0.0}, seed)
        sample = target.sample(n, rng=np.random.default_rng(seed))
        h = DiffprivlibLogReg(epsilon=eps).fit(sample, rng=np.random.default_rng(1000 + seed))
        out.append({"d": d, "n": n, "epsilon": repr(eps), "seed": seed, "coef": [repr(float(c)) for c in h.theta]})
    return out


if __name__ == "__main__":
    import diffprivlib
    import scipy
    import sklearn

    versions = {"sklearn": sklearn.__version__, "diffprivlib": diffprivlib.__version__, "numpy": np.__version__, "scipy": scipy.__version__}
    OUT.write_text(json.dumps({**versions, "cases": fits()}, indent=1) + "\n")
    print(f"wrote {OUT}")
