"""One look for every figure: rc settings, a palette keyed by learner name (so a learner
has the same colour in every figure), and ``save`` (PDF + PNG)."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RC = {
    "figure.dpi": 110,
    "savefig.dpi": 200,
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 7.5,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "pdf.fonttype": 42,
}

#: Every catalogue learner, in legend order, grouped by the experiments that draw them
#: together (the PAC group serves conjunctions and decision_lists).
LEARNER_GROUPS = [
    ["elimination", "erm", "exp_mech_erm", "sq_conjunction", "private_sq_conjunction",
     "rivest", "privdl", "privdl_composition", "decision_tree"],
    ["rwm", "private_rwm", "private_rwm_tight", "private_mw_001", "ftl", "linear_learner", "sv_experts"],
    ["perceptron", "winnow", "confident_winnow", "dp_winnow", "dp_winnow_tight"],
    ["output_perturbation", "objective_perturbation", "dp_gd", "dp_sgd", "exp_mech_grid",
     "sklearn_logreg", "diffprivlib_logreg"],
]
LEARNER_ORDER = [name for group in LEARNER_GROUPS for name in group]
# Distinct tab10 hues within each group (figures never mix groups), the same colour for a
# learner in every figure.
_tab10 = [tuple(c) for c in matplotlib.colormaps["tab10"].colors]
PALETTE = {name: _tab10[i % 10] for group in LEARNER_GROUPS for i, name in enumerate(group)}


def color(learner: str):
    return PALETTE.get(learner, (0.3, 0.3, 0.3))


def order(learners) -> list[str]:
    """Learners in legend order (unknown names last, alphabetically)."""
    known = [l for l in LEARNER_ORDER if l in set(learners)]
    return known + sorted(set(learners) - set(known))


def eps_label(epsilon: float) -> str:
    return "ε = ∞" if math.isinf(epsilon) else f"ε = {epsilon:g}"


def subplots(n_panels: int, *, width: float = 2.8, height: float = 2.5, max_cols: int = 4, sharey: bool = True):
    cols = min(n_panels, max_cols)
    rows = math.ceil(n_panels / cols)
    with plt.rc_context(RC):
        fig, axes = plt.subplots(rows, cols, figsize=(width * cols + 1.6, height * rows + 0.4), squeeze=False, sharey=sharey)
    for ax in axes.flat[n_panels:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n_panels])


def save(fig, stem: str | Path) -> None:
    """Write ``stem.pdf`` and ``stem.png``."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    with plt.rc_context(RC):
        fig.savefig(stem.with_suffix(".pdf"), bbox_inches="tight")
        fig.savefig(stem.with_suffix(".png"), bbox_inches="tight")
    plt.close(fig)
