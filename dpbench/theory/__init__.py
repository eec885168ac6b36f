"""Every theoretical rate and bound of the catalogue, as plain vectorised functions.

One module per family of results (``../shared/spec/algorithms.md`` §2–§6); everything is
re-exported here, so ``from dpbench import theory; theory.rate_consistent(...)`` works.
Each docstring gives the formula, its constants and its source; reconstructed formulas
(algorithms.md marks them) say so.
"""

from dpbench.theory.pac import *  # noqa: F401,F403
from dpbench.theory.decision_lists import *  # noqa: F401,F403
from dpbench.theory.experts import *  # noqa: F401,F403
from dpbench.theory.winnow import *  # noqa: F401,F403
from dpbench.theory.erm import *  # noqa: F401,F403
