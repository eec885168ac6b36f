"""One look for every figure: paper sizes and rc settings (text ≥ 7 pt at the printed size),
a colour-blind-safe palette keyed by learner name (a learner has the same colour in every
figure; a plugin learner gets a stable colour derived from its name), and ``save``
(PDF + PNG).

Sizes: :data:`SINGLE_COLUMN` (3.3 in) and :data:`DOUBLE_COLUMN` (7 in) wide; figures are
saved at that size (``bbox_inches="tight"`` only trims), so the rc font sizes are the
printed sizes. Recipes draw inside :func:`paper_style` and lay out with
:mod:`dpbench.plotting.layout`; :data:`RC` is what ``save`` writes the files with.
"""

from __future__ import annotations

import gc
import hashlib
import math
from contextlib import contextmanager
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dpbench.foundation import registry
from dpbench.foundation.results import atomic_write

#: the PNG's resolution (report, screens): 1,050 px across a 7 in figure; the PDF is the
#: paper's copy (vector, resolution-free). 200 dpi took 1.6 s more of the default run's 46 files.
PNG_DPI = 150
RC = {
    # figures are laid out at the resolution the PNG is drawn at: text extents depend on the
    # dpi (hinting), so the layout's measurements (tight_layout, the legend's placement, the
    # crop) are those of the file, and each text is measured once (matplotlib caches text
    # extents per dpi; at 110 every label was measured again for the PNG: 0.4 of the default
    # run's 11 CPU-s of figures)
    "figure.dpi": PNG_DPI,
    "savefig.dpi": PNG_DPI,
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
#: together (the PAC group serves conjunctions and decision_lists), with its colour. The
#: colours come from Paul Tol's and Okabe & Ito's colour-blind-safe schemes
#: (https://personal.sron.nl/~pault/; Okabe & Ito, "Color Universal Design", 2008), chosen
#: so that within a group every pair differs by CIELAB ΔE ≥ 25 seen normally and ≥ 12 under
#: simulated deuteranopia and protanopia, and ≥ 12 from the greys of reference and shared
#: theory lines (tests/test_figures.py checks the drawn legends against the same limits).
LEARNER_GROUPS = [
    {"elimination": "#332288", "erm": "#228833", "exp_mech_erm": "#999933", "sq_conjunction": "#DDAA33",
     "private_sq_conjunction": "#CC3311", "rivest": "#4477AA", "privdl": "#66CCEE", "privdl_composition": "#8866CC",
     "decision_tree": "#AA3377"},
    {"rwm": "#0072B2", "private_rwm": "#D55E00", "private_rwm_tight": "#EE3377", "private_mw_001": "#663333",
     "ftl": "#117733", "linear_learner": "#332288", "linear_learner (ε = ∞)": "#88CCEE", "sv_experts": "#CCBB44"},
    {"perceptron": "#663333", "winnow": "#CC3311", "confident_winnow": "#E69F00", "dp_winnow": "#AA3377",
     "dp_winnow_batched": "#66CCEE", "dp_winnow_batched_tight": "#8866CC"},
    {"output_perturbation": "#0072B2", "objective_perturbation": "#D55E00", "dp_gd": "#117733", "dp_sgd": "#88CCEE",
     "exp_mech_grid": "#663333", "sklearn_logreg": "#CCBB44", "diffprivlib_logreg": "#EE3377"},
]
LEARNER_ORDER = [name for group in LEARNER_GROUPS for name in group]
PALETTE = {name: c for group in LEARNER_GROUPS for name, c in group.items()}
#: Colours of learners outside the catalogue (plugins), in order: the i-th plugin learner
#: (registered names in alphabetical order) takes the i-th, so two plugins never share one
#: while there are fewer than 5; the first two are far from every colour of the PAC group.
PLUGIN_COLOURS = ["#EE3377", "#EE99AA", "#0072B2", "#009E73", "#994455"]
#: Each learner's marker, the second cue beside its colour (a reader who cannot tell two
#: colours apart — under deuteranopia erm, exp_mech_erm, sq_conjunction and
#: private_sq_conjunction are within CIELAB ΔE 13–15 of one another — tells the shapes
#: apart): one per learner of a :data:`LEARNER_GROUPS` group, the same in every figure.
#: Filled shapes only, and none of the triangles and crosses the figures give other
#: meanings (``v``/``^`` on an axis: a mean of 0, n* beyond the grid, where learning
#: starts; ``x``: an extrapolated point).
LEARNER_MARKER_SHAPES = ("o", "s", "D", "P", "X", "p", "h", "*", "d")
MARKERS = {name: LEARNER_MARKER_SHAPES[i] for group in LEARNER_GROUPS for i, name in enumerate(group)}
#: Markers of plugin learners, taken like :data:`PLUGIN_COLOURS`.
PLUGIN_MARKERS = ("H", "<", ">", "8", "o")
#: Reference levels (trivial predictor) and theory lines shared by several learners.
REFERENCE_GREY = "0.55"
SHARED_THEORY = "0.15"


def _plugin_names() -> list[str]:
    """Registered learners outside the catalogue, alphabetically (plugins loaded so far)."""

    return sorted(name for name in registry.LEARNERS if name not in PALETTE)


def _style_of(learner: str, catalogue, plugin_styles) -> str:
    """One learner's style (colour or marker): the catalogue's, or for a plugin learner its
    place among the registered plugin learners in ``plugin_styles`` (an unregistered name: a
    hash of the name). Shared by :func:`color` and :func:`marker`."""
    if learner in catalogue:
        return catalogue[learner]
    plugins = _plugin_names()
    if learner in plugins:
        return plugin_styles[plugins.index(learner) % len(plugin_styles)]
    digest = int(hashlib.sha256(learner.encode()).hexdigest(), 16)
    return plugin_styles[digest % len(plugin_styles)]


def _styles_of(learners, catalogue, style_of, spare) -> dict[str, str]:
    """``{learner: style}`` for one figure: the catalogue's, then ``style_of(name)`` for the
    others unless a learner of this figure has it already (then the first of ``spare`` still
    free). Shared by :func:`palette` and :func:`markers`."""
    out, used = {}, set()
    learners = list(dict.fromkeys(learners))
    for name in learners:
        if name in catalogue:
            out[name] = catalogue[name]
            used.add(catalogue[name])
    for name in learners:
        if name not in out:
            s = style_of(name)
            free = [p for p in spare if p not in used]
            out[name] = s if s not in used or not free else free[0]
            used.add(out[name])
    return out


def color(learner: str) -> str:
    """The learner's colour in every figure: the catalogue's (:data:`LEARNER_GROUPS`), or for
    a plugin learner its place among the registered plugin learners in
    :data:`PLUGIN_COLOURS` (an unregistered name: a hash of the name)."""
    return _style_of(learner, PALETTE, PLUGIN_COLOURS)


def palette(learners) -> dict[str, str]:
    """``{learner: colour}`` for seaborn's ``palette=``; learners outside the catalogue that
    would share a colour in this figure get the next free plugin colour instead."""
    return _styles_of(learners, PALETTE, color, PLUGIN_COLOURS)


def marker(learner: str) -> str:
    """The learner's marker in every figure: the catalogue's (:data:`MARKERS`), or for a
    plugin learner its place among the registered plugin learners in :data:`PLUGIN_MARKERS`
    (an unregistered name: a hash of the name) — chosen like :func:`color`."""
    return _style_of(learner, MARKERS, PLUGIN_MARKERS)


def markers(learners) -> dict[str, str]:
    """``{learner: marker}`` for seaborn's ``markers=``; learners outside the catalogue that
    would share a marker in this figure get the next free plugin marker (as :func:`palette`)."""
    return _styles_of(learners, MARKERS, marker, (*PLUGIN_MARKERS, *LEARNER_MARKER_SHAPES))


#: Marker size (points) of a learner's data points and legend samples: large enough that
#: the shapes of :data:`LEARNER_MARKER_SHAPES` read apart at the printed size.
MARKER_SIZE = 4.0


def learner_handle(learner: str, colour: str | None = None, shape: str | None = None, **line):
    """The legend sample of a learner's data line: its colour and marker (``colour``,
    ``shape``: the figure's :func:`palette` and :func:`markers` where they differ) on a
    solid line."""
    return plt.Line2D([], [], color=colour or color(learner), marker=shape or marker(learner), ms=MARKER_SIZE, mew=0,
                      lw=line.pop("lw", 1.2), **line)


def order(learners) -> list[str]:
    """Learners in legend order (unknown names last, alphabetically)."""
    known = [l for l in LEARNER_ORDER if l in set(learners)]
    return known + sorted(set(learners) - set(known))


SINGLE_COLUMN = 3.3
DOUBLE_COLUMN = 7.0
#: rc settings of the seaborn figures: sizes in points at the printed size.
PAPER_RC = {
    "figure.dpi": PNG_DPI,  # as RC: laid out at the PNG's resolution (files are written by save, under RC)
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "legend.title_fontsize": 7,
    "lines.linewidth": 1.2,
    "lines.markersize": 3,
    "axes.linewidth": 0.6,
    "grid.linewidth": 0.4,
    "pdf.fonttype": 42,
    # titles at the top of their axes, as matplotlib's automatic placement puts them when no
    # x tick labels or axis label sit on top (none of these figures has any), without
    # measuring both axes' ticks again for every title at every layout pass and draw
    "axes.titley": 1.0,
}
#: Smallest text allowed at the printed size (tests/test_figures.py checks every text).
MIN_FONT_PT = 7.0


@contextmanager
def paused_gc():
    """Within the context, Python's cyclic garbage collector does not run (its state is
    restored afterwards; ``plt.close`` collects the figure's cycles). Embedding the fonts of
    a PDF (fontTools decompiles the whole TrueType font) allocates hundreds of thousands of
    objects that die by reference counting, yet keep triggering full collections, each
    scanning every object of the process: half the time of the font embedding."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextmanager
def paper_style():
    """seaborn's ``ticks`` style at paper size with :data:`PAPER_RC` (use as a context)."""
    import seaborn as sns

    with sns.axes_style("ticks", {"axes.grid": True, "grid.color": "0.9"}), plt.rc_context(PAPER_RC):
        yield


def eps_label(epsilon: float) -> str:
    return "ε = ∞" if math.isinf(epsilon) else f"ε = {epsilon:g}"


#: Margin (inches) around a figure's tight box: 0.02 left a title's ascenders touching the
#: PNG's top edge (7.5 px at 150 dpi; matplotlib's own default is 0.1).
PAD_INCHES = 0.05


def tight_bbox(fig, dpi: float, pad_inches: float = PAD_INCHES):
    """The figure's tight bounding box (inches) measured at ``dpi``, with ``pad_inches``
    around it: what ``savefig(bbox_inches="tight", dpi=dpi)`` crops to, measured once,
    without drawing, so several files can share it (``"tight"`` draws the figure to measure
    it, once per file)."""
    shown = fig.dpi
    fig.set_dpi(dpi)  # text extents depend on the dpi (hinting): measure as the file is drawn
    try:
        return fig.get_tightbbox(fig.canvas.get_renderer()).padded(pad_inches)
    finally:
        fig.set_dpi(shown)


#: zlib's fastest level for the PNGs: the same pixels as PIL's default (6), 0.18 of 0.49 CPU-s
#: less over the default run's 24 figures, files 2 % larger.
PNG_KWARGS = {"png": {"pil_kwargs": {"compress_level": 1}}}


def save(fig, stem: str | Path, pdf: bool = True) -> None:
    """Write ``stem.png`` (and ``stem.pdf`` if ``pdf``), cropped to one :func:`tight_bbox`
    at the PNG's resolution. The figure is laid out already: without a layout engine,
    ``savefig`` draws it once per file instead of twice. Each file is written beside its
    name and renamed into place (:func:`dpbench.foundation.results.atomic_write`): a job
    killed mid-save leaves no truncated figure that looks complete."""
    stem = Path(stem)
    fig.set_layout_engine(None)  # tight_layout leaves a placeholder engine, which makes savefig draw twice
    with plt.rc_context(RC), paused_gc():
        box = tight_bbox(fig, plt.rcParams["savefig.dpi"])
        for ext in ("pdf", "png") if pdf else ("png",):
            atomic_write(stem.with_suffix(f".{ext}"), lambda tmp, ext=ext: fig.savefig(tmp, format=ext, bbox_inches=box,
                                                                                 **PNG_KWARGS.get(ext, {})))
    plt.close(fig)
