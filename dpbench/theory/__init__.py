"""Every theoretical rate and bound of the catalogue, as plain vectorised functions.

One module per family of results (docs/catalogue.md lists each with its source); everything is
re-exported here, so ``from dpbench import theory; theory.rate_consistent(...)`` works.
Each docstring gives the formula, its constants and its source; reconstructed formulas
(**[reconstructed]**: the source's text lost them, they were rebuilt from its proofs) say so.
"""

from dpbench.theory.decision_lists import *  # noqa: F401,F403
from dpbench.theory.declared import *  # noqa: F401,F403
from dpbench.theory.erm import *  # noqa: F401,F403
from dpbench.theory.experts import *  # noqa: F401,F403
from dpbench.theory.pac import *  # noqa: F401,F403
from dpbench.theory.winnow import *  # noqa: F401,F403
