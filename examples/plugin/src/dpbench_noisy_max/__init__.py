"""Example dpbench plugin (README "Add your learner"): two conjunction learners over the
class of conjunctions of at most ``k`` literals — ``kconj_erm`` (non-private) and its
private twin ``kconj_noisy_max`` (report noisy max with Laplace noise).

Importing this package registers both with dpbench, and their entries in dpbench's cost
model (:mod:`dpbench_noisy_max.cost`); the entry point group ``dpbench.plugins`` in
pyproject.toml makes dpbench import it by itself.
"""

from dpbench_noisy_max import cost  # noqa: F401 (registers the learners' cost models)
from dpbench_noisy_max.learners import KConjERM, KConjNoisyMax

__all__ = ["KConjERM", "KConjNoisyMax"]
