"""The plugin learners' entries in dpbench's cost model (docs/plugins.md, "Cost model").

Both learners compute the mistakes of every hypothesis of :math:`H_k`, bit-packed (64
examples a word), then take an argmin (``kconj_erm``) or a noisy argmax
(``kconj_noisy_max``): own seconds per repetition ``per_rep + per_hypothesis_word · |H_k| ·
ceil(n/64)``, a formula of the plugin's own (:func:`kconj_words`). The coefficients come from
``python examples/plugin/bench_cost.py`` (its docstring says how); planning reads them
through :func:`dpbench.orchestration.cost.cell_cost`, which otherwise falls back to the
batch family's uncalibrated default.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from dpbench.foundation.cell import Cell
from dpbench.orchestration.cost import cost_formula
from dpbench.orchestration.cost_table import CostModel, Measurement, register_cost_model
from dpbench_noisy_max.learners import class_size


@cost_formula
def kconj_words(cell: Cell, c: Mapping[str, float]) -> float:
    """Own seconds per repetition: ``per_rep + per_hypothesis_word · |H_k| · ceil(n/64)``."""
    params = dict(cell.problem_params)
    hypotheses = class_size(int(params.get("d", 10)), int(dict(cell.learner_params).get("k", 3)), bool(params.get("monotone", False)))
    return c["per_rep"] + c["per_hypothesis_word"] * hypotheses * math.ceil(cell.size / 64)


#: Process CPU of one fit on a fresh sample (mistakes included), d = 10, k = 3, n = 2^10 … 2^17,
#: best of 5: 2.1 ms … 28 ms; predicted/measured 0.91–1.09.
MEASURED = Measurement(date="2026-11-27", machine="2-core shared VM (AMD EPYC), load average 15",
                       benchmark="python examples/plugin/bench_cost.py")  # fmt: skip
COEFFICIENTS = {"per_rep": 1.9e-3, "per_hypothesis_word": 1e-8}

for _name in ("kconj_erm", "kconj_noisy_max"):
    register_cost_model(_name, CostModel("kconj_words", COEFFICIENTS, MEASURED))
