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

#: Every catalogue learner, in legend order; colours are assigned once from this list.
LEARNER_ORDER = [
    # PAC (§2) and decision lists (§3)
    "elimination", "erm", "exp_mech_erm", "sq_conjunction", "private_sq_conjunction",
    "rivest", "privdl", "privdl_composition", "decision_tree",
    # experts (§4)
    "rwm", "private_rwm", "private_rwm_tight", "private_mw_001", "ftl", "linear_learner", "sv_experts",
    # halfspaces online (§5)
    "perceptron", "winnow", "confident_winnow", "dp_winnow", "dp_winnow_tight",
    # private ERM (§6)
    "output_perturbation", "objective_perturbation", "dp_gd", "dp_sgd", "exp_mech_grid",
    "sklearn_logreg", "diffprivlib_logreg",
]
# matplotlib's qualitative maps (the same colours seaborn would give; importing seaborn
# costs ~2 s per figure job, for palettes alone)
_colors = [tuple(c) for name in ("tab20", "Dark2", "Set1") for c in matplotlib.colormaps[name].colors]
PALETTE = {name: _colors[i % len(_colors)] for i, name in enumerate(LEARNER_ORDER)}


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
