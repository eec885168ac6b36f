"""Example dpbench plugin (README "Add your learner"): two conjunction learners over the
class of conjunctions of at most ``k`` literals — ``kconj_erm`` (non-private) and its
private twin ``kconj_noisy_max`` (report noisy max with Laplace noise); and one problem with
a parameter no built-in problem has, ``spread_conjunction`` (input biases spread around ½ by
its parameter ``spread``; ``problem.yaml`` runs it).

Importing this package registers both with dpbench, and their entries in dpbench's cost
model (:mod:`dpbench_noisy_max.cost`); the entry point group ``dpbench.plugins`` in
pyproject.toml makes dpbench import it by itself.
"""

from dpbench_noisy_max import cost  # noqa: F401 (registers the learners' cost models)
from dpbench_noisy_max.learners import KConjERM, KConjNoisyMax
from dpbench_noisy_max.problems import SpreadConjunctionProblem

__all__ = ["KConjERM", "KConjNoisyMax", "SpreadConjunctionProblem"]
