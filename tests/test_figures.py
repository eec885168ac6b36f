"""Every figure recipe of every registered experiment, rendered from a small results fixture
(tests/data/tiny.yaml run in-process, once per session), checked as a referee would:

- layout (:func:`layout_problems`): no legend or text box over another text or over an
  axes' plotting area, no empty panel, text ≥ 7 pt at the printed size, legend text no
  larger than the axis labels, a legend beside the panels no taller than them, at most a
  double column (7 in) wide, ≤ 4 panels a row;
- bands (:func:`band_problems`): no band or error bar on a log axis that reaches 0 or runs
  below the axis floor (it would fill the panel down to the axis);
- markers (:func:`marker_overlaps`): no marker-only artist (zero, off-grid and
  learning-start markers) whose markers sit on another artist's markers;
- identity (:func:`identity_problems`): no two legend entries with different labels drawn
  alike (same line style and marker, colours closer than :data:`MIN_DELTA_E` in CIELAB seen
  normally or :data:`MIN_DELTA_E_CVD` with deuteranopia or protanopia);
- view (:func:`view_problems`): every data marker and reference level inside the axes; a
  log axis has ≥ 3 labelled ticks;
- caption (:func:`caption_problems`): every learner the caption names is in the legend or
  a panel title.
"""

from __future__ import annotations

import itertools
import math
import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import yaml
from matplotlib.legend import Legend
from matplotlib.text import Text
from matplotlib.transforms import Bbox

import dpbench.experiments  # noqa: F401
from dpbench import registry
from dpbench.config import from_dict
from dpbench.experiment import draw_target
from dpbench.plotting.style import LEARNER_MARKER_SHAPES, MIN_FONT_PT, PLUGIN_MARKERS
from tests.conftest import TINY_CONFIG

#: The markers of learners' data points (:data:`dpbench.plotting.style.MARKERS`).
DATA_MARKERS = {*LEARNER_MARKER_SHAPES, *PLUGIN_MARKERS}

#: Overlaps smaller than this many pixels (at 100 dpi) are rounding, not a defect.
TOLERANCE_PX = 1.0


@pytest.fixture(scope="session")
def tiny_results() -> dict[str, pd.DataFrame]:
    """The tiny config's results, per experiment, run in-process (no snakemake)."""
    from dpbench.results import to_table

    config = yaml.safe_load(TINY_CONFIG.read_text())
    # the paper grid's two crash shapes: elimination with noisy labels, a sweep without a private learner
    config["experiments"]["conjunctions"]["sweeps"] = [{}, {"problem_params": {"noise": 0.05}, "learners": ["elimination", "erm"]}]
    grid = from_dict(config)
    targets = {pid: draw_target(cell, grid.seed) for pid, cell in grid.problem_cells().items()}
    out = {}
    for exp_id, plan in grid.experiments.items():
        experiment = registry.experiment(exp_id)
        rows = [row for cell in plan.cells for row in experiment.run_cell(cell, targets[cell.problem_id], grid.seed)]
        out[exp_id] = to_table(rows).to_pandas()
    return out


def _figure_params():
    config = yaml.safe_load(TINY_CONFIG.read_text())
    for exp_id in config["experiments"]:
        for name in registry.experiment(exp_id).figures:
            yield pytest.param(exp_id, name, id=f"{exp_id}_{name}")


def _shrink(box, px: float = TOLERANCE_PX):
    from matplotlib.transforms import Bbox

    return Bbox.from_extents(box.x0 + px, box.y0 + px, box.x1 - px, box.y1 - px)


def _texts(fig) -> list[Text]:
    """Every drawn, non-empty text of the figure that is not inside a legend: tick labels of
    the ticks in view (``Axis._update_ticks``) and every other text artist."""
    skip = {id(t) for leg in fig.findobj(Legend) for t in (*leg.get_texts(), leg.get_title())}
    ticks = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in (*axis.get_major_ticks(), *axis.get_minor_ticks()):
                skip.update((id(tick.label1), id(tick.label2)))
            if ax.get_visible():
                for tick in axis._update_ticks():
                    ticks += [label for label in (tick.label1, tick.label2) if label.get_visible()]
    others = [t for t in fig.findobj(Text) if id(t) not in skip and t.get_visible() and (t.axes is None or t.axes.get_visible())]
    return [t for t in (*ticks, *others) if t.get_text().strip()]


def layout_problems(fig) -> list[str]:
    """What a reviewer would object to in the figure's layout (empty list: none)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    problems = []
    axes = [ax for ax in fig.axes if ax.axison or ax.get_visible()]
    for ax in fig.axes:
        if not ax.get_visible():
            problems.append("an invisible axes (an empty panel slot)")
    legends = [leg for leg in fig.findobj(Legend) if leg.get_visible()]
    texts = _texts(fig)
    boxes = [(f"text {t.get_text()!r}", t.get_window_extent(renderer)) for t in texts]
    boxed = [(f"text box {t.get_text()!r}", t.get_window_extent(renderer)) for t in texts if t.get_bbox_patch() is not None]
    legend_boxes = [(f"legend ({len(leg.get_texts())} entries)", leg.get_window_extent(renderer)) for leg in legends]
    areas = [(f"axes {i} ({ax.get_title()!r})", ax.get_window_extent(renderer)) for i, ax in enumerate(axes) if ax.get_visible()]
    for (a, box_a), (b, box_b) in itertools.combinations(boxes + legend_boxes, 2):
        if _shrink(box_a).overlaps(_shrink(box_b)):
            problems.append(f"{a} overlaps {b}")
    for (a, box_a), (b, box_b) in itertools.product(legend_boxes + boxed, areas):
        if _shrink(box_a).overlaps(_shrink(box_b)):
            problems.append(f"{a} overlaps the plotting area of {b}")
    for t in texts:
        if t.get_fontsize() < MIN_FONT_PT:
            problems.append(f"text {t.get_text()!r} is {t.get_fontsize():.1f} pt < {MIN_FONT_PT} pt")
    axis_pt = max([t.get_fontsize() for ax in axes for t in (ax.xaxis.label, ax.yaxis.label) if t.get_text()] or [MIN_FONT_PT])
    panels = Bbox.union([box for _, box in areas]) if areas else None
    for leg in legends:
        for t in leg.get_texts():
            if t.get_fontsize() < MIN_FONT_PT:
                problems.append(f"legend text {t.get_text()!r} is {t.get_fontsize():.1f} pt")
            if t.get_fontsize() > axis_pt + 0.01:
                problems.append(f"legend text {t.get_text()!r} is {t.get_fontsize():.1f} pt > the axis labels' {axis_pt:.1f} pt")
                break
        box = leg.get_window_extent(renderer)
        if panels is not None and box.x0 >= panels.x1 - 1 and box.height > 1.1 * panels.height:
            problems.append(f"legend beside the panels is taller ({box.height:.0f} px) than they are ({panels.height:.0f} px)")
    for i, ax in enumerate(a for a in axes if a.get_visible()):
        has_data = any(len(line.get_xdata()) and np.isfinite(np.asarray(line.get_ydata(), dtype=float)).any() for line in ax.get_lines())
        has_data |= any(len(c.get_paths()) for c in ax.collections)
        has_data |= any(p.get_height() != 0 for p in ax.patches if hasattr(p, "get_height"))
        if not has_data:
            problems.append(f"axes {i} ({ax.get_title()!r}) is empty")
    width = fig.get_tightbbox(renderer).width
    if width > 7.3:
        problems.append(f"{width:.1f} in wide (> a double column, 7 in)")
    rows = {round(ax.get_position().y0, 3) for ax in axes if ax.get_visible()}
    for y0 in rows:
        if sum(round(ax.get_position().y0, 3) == y0 for ax in axes if ax.get_visible()) > 4:
            problems.append("more than 4 panels in a row")
    return problems


def _log_y(ax) -> bool:
    return ax.get_yscale() == "log"


def band_problems(fig) -> list[str]:
    """Bands (``fill_between``) and error bars on a log y axis that reach y ≤ 0 or run below
    the axis floor: drawn, they fill the panel down to the axis."""
    from matplotlib.collections import LineCollection, PolyCollection

    problems = []
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible() or not _log_y(ax):
            continue
        floor = ax.get_ylim()[0]
        for coll in ax.collections:
            if not isinstance(coll, (PolyCollection, LineCollection)) or not coll.get_visible():
                continue
            kind = "band" if isinstance(coll, PolyCollection) else "error bar"
            ys = np.concatenate([np.asarray(p.vertices, dtype=float)[:, 1] for p in coll.get_paths() if len(p.vertices)] or [np.array([])])
            ys = ys[np.isfinite(ys)]
            if (ys <= 0).any():
                problems.append(f"axes {i} ({ax.get_title()!r}): a {kind} reaches y ≤ 0 on a log axis (fills to the axis)")
            elif len(ys) and ys.min() < floor * (1 - 1e-6):
                problems.append(f"axes {i} ({ax.get_title()!r}): a {kind} runs below the axis floor {floor:.3g} (to {ys.min():.3g})")
    return problems


def _markers(ax, renderer):
    """``(artist, marker_only, centres_px, radius_px)`` of every visible marker artist of ``ax``
    (error-bar caps excluded), centres in view only."""
    from matplotlib.collections import PathCollection

    box = ax.get_window_extent(renderer)
    px = fig_dpi = ax.figure.dpi / 72.0
    out = []
    for line in ax.get_lines():
        marker = line.get_marker()
        if not line.get_visible() or marker in (None, "None", "", " ", "_", "|", ",") or not len(line.get_xdata()):
            continue
        xy = np.column_stack([np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)])
        xy = xy[np.isfinite(xy).all(axis=1)]
        if not len(xy):
            continue
        centres = line.get_transform().transform(xy)
        r = line.get_markersize() * px / 2
        keep = (centres[:, 0] >= box.x0 - r) & (centres[:, 0] <= box.x1 + r) & (centres[:, 1] >= box.y0 - r) & (centres[:, 1] <= box.y1 + r)
        out.append((line, line.get_linestyle() in ("None", "", " "), centres[keep], r))
    for coll in ax.collections:
        if isinstance(coll, PathCollection) and coll.get_visible() and len(coll.get_offsets()):
            centres = coll.get_offset_transform().transform(np.asarray(coll.get_offsets(), dtype=float))
            r = float(np.sqrt(np.max(coll.get_sizes()) if len(coll.get_sizes()) else 20.0)) * fig_dpi / 2
            out.append((coll, True, centres, r))
    return out


def marker_overlaps(fig) -> list[str]:
    """Markers that hide one another: a marker-only artist (zero / off-grid / learning-start
    markers, scatter points) whose marker centre is closer to a marker of another artist than
    70 % of their mean diameter."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    problems = []
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        marks = _markers(ax, renderer)
        for (a, only_a, ca, ra), (b, only_b, cb, rb) in itertools.combinations(marks, 2):
            if not (only_a or only_b) or not len(ca) or not len(cb):
                continue
            dist = np.hypot(ca[:, None, 0] - cb[None, :, 0], ca[:, None, 1] - cb[None, :, 1])
            hits = int((dist < 0.7 * (ra + rb)).sum())
            if hits:
                problems.append(f"axes {i} ({ax.get_title()!r}): {hits} marker(s) of {_describe(a)} on markers of {_describe(b)}")
    return problems


def _describe(artist) -> str:
    from matplotlib.colors import to_hex

    try:
        colour = to_hex(artist.get_markeredgecolor() if hasattr(artist, "get_markeredgecolor") else artist.get_edgecolor()[0])
    except (ValueError, IndexError):
        colour = "?"
    marker = artist.get_marker() if hasattr(artist, "get_marker") else "scatter"
    return f"{marker!r} {colour}"


#: Smallest CIELAB ΔE (CIE76) between two legend entries drawn with the same line style and
#: marker, seen normally and under simulated deuteranopia or protanopia: below them, two
#: thin lines read as one shade (the limits dpbench.plotting.style's palette is chosen by).
MIN_DELTA_E = 25.0
MIN_DELTA_E_CVD = 12.0

#: Colour-vision deficiency simulations (Machado, Oliveira & Fernandes 2009, severity 1.0),
#: applied to linear RGB.
_CVD = {
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]),
}


def _lab(rgb, vision: str = "normal") -> np.ndarray:
    """CIELAB (D65) of an sRGB colour, as seen with ``vision``."""
    rgb = np.asarray(rgb[:3], dtype=float)
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    if vision in _CVD:
        lin = np.clip(_CVD[vision] @ lin, 0, 1)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ lin
    xyz /= np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(a, b) -> tuple[float, float]:
    """CIE76 ΔE between colours ``a`` and ``b``: seen normally, and the smaller of the two
    under deuteranopia and protanopia."""
    from matplotlib.colors import to_rgba

    normal, *cvd = (float(np.linalg.norm(_lab(to_rgba(a), v) - _lab(to_rgba(b), v))) for v in ("normal", *_CVD))
    return normal, min(cvd)


def _style_key(handle):
    """How a legend handle looks apart from its colour: line style (dash pattern), marker,
    filled or hollow; and its colour."""
    from matplotlib.colors import to_hex
    from matplotlib.lines import Line2D

    if isinstance(handle, Line2D):
        ls = handle.get_linestyle()
        dashes = "none" if ls in ("None", "", " ") else str(handle._dash_pattern if hasattr(handle, "_dash_pattern") else ls)
        marker = str(handle.get_marker()) if handle.get_marker() not in (None, "None", "", " ") else "none"
        face = handle.get_markerfacecolor()
        hollow = isinstance(face, str) and face in ("white", "none", "w")
        colour = handle.get_color() if marker == "none" or not hollow else handle.get_markeredgecolor()
        return (dashes, marker, hollow), to_hex(colour)
    if hasattr(handle, "get_facecolor") and handle.get_visible():
        return ("patch",), to_hex(handle.get_facecolor())
    return None, None


def identity_problems(fig) -> list[str]:
    """Legend entries with different labels that look alike: the same line style and marker
    and colours closer than :data:`MIN_DELTA_E` (normal vision) or :data:`MIN_DELTA_E_CVD`
    (colour-deficient vision)."""
    problems = []
    for leg in fig.findobj(Legend):
        entries = [(t.get_text(), *_style_key(h)) for h, t in zip(leg.legend_handles, leg.get_texts())]
        entries = [e for e in entries if e[1] is not None]
        for (la, sa, ca), (lb, sb, cb) in itertools.combinations(entries, 2):
            if la != lb and sa == sb:
                normal, cvd = delta_e(ca, cb)
                if normal < MIN_DELTA_E or cvd < MIN_DELTA_E_CVD:
                    problems.append(f"legend entries {la!r} and {lb!r} look alike ({sa}, {ca} vs {cb}, ΔE {normal:.0f}, colour-blind {cvd:.0f})")
    return problems


def view_problems(fig) -> list[str]:
    """Data and reference levels out of view, and log axes with fewer than 3 labelled ticks."""
    from dpbench.plotting.style import REFERENCE_GREY

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    problems = []
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible() or not ax.axison:
            continue
        lo, hi = sorted(ax.get_ylim())
        for line in ax.get_lines():
            if line.get_transform() != ax.transData or not line.get_visible():
                continue
            y = np.asarray(line.get_ydata(), dtype=float)
            y = y[np.isfinite(y) & ((y > 0) | (not _log_y(ax)))]
            if not len(y):
                continue
            is_data = line.get_marker() in DATA_MARKERS
            is_level = line.get_color() in (REFERENCE_GREY,) and len(set(np.round(y, 12))) == 1
            if (is_data or is_level) and ((y < lo * (1 - 1e-9)).any() or (y > hi * (1 + 1e-9)).any()):
                what = "data points" if is_data else f"the reference level {y[0]:.3g}"
                problems.append(f"axes {i} ({ax.get_title()!r}): {what} outside the y range [{lo:.3g}, {hi:.3g}]")
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if axis.get_scale() != "log":
                continue
            ticks = axis._update_ticks()
            if not any(t.label1.get_visible() for t in ticks):
                continue  # a shared axis whose labels another panel shows
            labelled = [t for t in ticks if t.label1.get_text().strip()]
            if len(labelled) < 3:
                problems.append(f"axes {i} ({ax.get_title()!r}): log {name} axis with {len(labelled)} labelled ticks "
                                f"({', '.join(t.label1.get_text() for t in labelled)})")
    return problems


def _learner_names() -> list[str]:
    registry.load_all()
    return sorted(registry.LEARNERS, key=len, reverse=True)


def caption_problems(fig, caption: str) -> list[str]:
    """Learners the caption names that the figure does not show (in no legend entry or title)."""
    shown = " ".join([t.get_text() for leg in fig.findobj(Legend) for t in leg.get_texts()]
                     + [ax.get_title() for ax in fig.axes] + [t.get_text() for t in fig.texts])
    problems = []
    for name in _learner_names():
        pattern = re.compile(rf"(?<![\w]){re.escape(name)}(?![\w])")
        if pattern.search(caption) and not pattern.search(shown):
            problems.append(f"the caption names {name}, which the figure does not show")
    return problems


def _caption(experiment: str, name: str, fig) -> str:
    """The caption the workflow writes for this figure (generated from what is drawn)."""
    from dpbench.pipeline import figure_caption

    return figure_caption(registry.experiment(experiment).figures[name], fig)


def referee(fig, caption: str) -> list[str]:
    """Every check of this module on one drawn figure and its caption."""
    return (layout_problems(fig) + band_problems(fig) + marker_overlaps(fig) + identity_problems(fig)
            + view_problems(fig) + caption_problems(fig, caption))


@pytest.mark.parametrize("experiment,figure", list(_figure_params()))
def test_figure_layout(tiny_results, experiment, figure):
    fig = registry.experiment(experiment).figures[figure](tiny_results[experiment])
    try:
        assert referee(fig, _caption(experiment, figure, fig)) == []
    finally:
        plt.close(fig)


# --------------------------------------------------------------------------- the checker itself


def test_checker_flags_a_legend_over_the_data_and_small_text():
    fig, ax = plt.subplots(figsize=(3.3, 2.5))
    ax.plot([1, 2, 3], [1, 2, 3], label="a curve")
    ax.legend(loc="center")
    ax.set_xlabel("n", fontsize=5)
    problems = layout_problems(fig)
    plt.close(fig)
    assert any("legend" in p and "plotting area" in p for p in problems)
    assert any("5.0 pt" in p for p in problems)


def test_checker_flags_overlapping_labels_and_empty_panels():
    fig, (a, b) = plt.subplots(1, 2, figsize=(7, 2.5))
    a.plot([1, 2], [1, 2])
    a.set_title("a long title that runs into the next panel's title " * 2)
    b.set_title("second")
    problems = layout_problems(fig)
    plt.close(fig)
    assert any("overlaps" in p for p in problems)
    assert any("empty" in p for p in problems)


def test_checker_accepts_a_clean_figure():
    fig, ax = plt.subplots(figsize=(3.3, 2.5))
    ax.plot([1, 2, 3], [1, 2, 3], label="a curve")
    ax.set_xlabel("n")
    fig.tight_layout()
    fig.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    problems = layout_problems(fig)
    plt.close(fig)
    assert problems == []


def test_conjunctions_theory_check_has_status_for_every_curve(tiny_results):
    """The noisy sweep (elimination has no agnostic rate; no private learner) runs, every row
    has a status and no NaN slope is 'ok'; curves never pool the two problems."""
    from dpbench.analysis import STATUSES

    table = registry.experiment("conjunctions").theory_check(tiny_results["conjunctions"])
    assert set(table["status"]) <= set(STATUSES)
    assert not (table["status"].eq("ok") & table["fitted_slope"].isna()).any()
    noisy = table[table["regime"].str.contains("noise = 0.05")]
    assert set(noisy["learner"]) == {"elimination", "erm"}
    assert math.isnan(noisy.loc[noisy["learner"] == "elimination", "theory_exponent"].iloc[0])


def test_experts_theory_check_fits_each_metric_and_flags_every_curve(tiny_results):
    """Every experts/linear_loss row has a status (no NaN slope with 'ok'); the realized-regret
    rows are fitted on realized regret (not a copy of the expected-regret fit); Thm 11.1 is
    checked on the maximum for the expected regret; sv_experts' rate is a shape; skipped
    private_mw_001 cells are reported."""
    from dpbench.analysis import STATUSES

    table = registry.experiment("experts").theory_check(tiny_results["experts"])
    assert set(table["status"]) <= set(STATUSES)
    assert not (table["status"].eq("ok") & table["fitted_slope"].isna()).any()
    rwm = table[(table["learner"] == "rwm") & table["regime"].str.contains("k = 4") & table["status"].eq("ok")].set_index("y")
    assert rwm.loc["regret", "fitted_slope"] != rwm.loc["expected_regret", "fitted_slope"]
    assert "maximum" in rwm.loc["expected_regret", "note"] and "0.9-quantile" in rwm.loc["regret", "note"]
    assert set(table.loc[table["learner"] == "sv_experts", "bound_kind"]) <= {"shape", "none"}
    assert (table.loc[table["learner"] == "private_mw_001", "status"] == "no_points").any()  # ε = 1: not certified
    linear = registry.experiment("linear_loss").theory_check(tiny_results["linear_loss"])
    assert set(linear["status"]) <= set(STATUSES) and linear["x_min"].notna().any()


@pytest.mark.parametrize(("value", "label"), [(1000.0, "10³"), (0.01, "10⁻²"), (1.0, "10⁰"), (1e-6, "10⁻⁶"), (2000.0, "2000"), (0.0, "")])
def test_log_tick_labels_are_plain_text_powers_of_ten(value, label):
    from dpbench.plotting.layout import power_of_ten

    assert power_of_ten(value) == label


# --------------------------------------------------------------------------- each referee check can fail


def test_band_check_flags_a_band_to_the_axis_floor():
    fig, ax = plt.subplots(figsize=(3.3, 2.5))
    ax.plot([1, 10, 100], [0.1, 0.01, 0.001], marker="o")
    ax.fill_between([1, 10, 100], [0.0, 0.005, 0.0005], [0.2, 0.02, 0.002])
    ax.set(xscale="log", yscale="log", ylim=(1e-4, 1))
    problems = band_problems(fig)
    plt.close(fig)
    assert any("y ≤ 0" in p for p in problems)


def test_marker_check_flags_markers_on_one_another():
    fig, ax = plt.subplots(figsize=(3.3, 2.5))
    ax.plot([1, 2, 3], [1, 2, 3], marker="o")
    for colour in ("#332288", "#CC3311"):  # two learners' zero markers at the same x
        ax.plot([2.0], [0.0], marker="v", ms=4.5, mfc="white", mec=colour, ls="none", transform=ax.get_xaxis_transform(), clip_on=False)
    problems = marker_overlaps(fig)
    plt.close(fig)
    assert problems and "'v'" in problems[0]


def test_edge_marks_are_stacked_apart():
    """The fix for the above: place_edge_marks stacks coinciding markers (and the check passes)."""
    from dpbench.plotting.overlays import mark_off_axis, place_edge_marks

    fig, ax = plt.subplots(figsize=(3.3, 2.5))
    ax.plot([1, 10, 100], [0.1, 0.01, 0.001], marker="o")
    ax.set(xscale="log", yscale="log")
    for colour in ("#332288", "#CC3311", "#228833"):
        mark_off_axis(ax, [10.0, 100.0], colour, where="bottom", label="zero")
    place_edge_marks(fig)
    problems = marker_overlaps(fig)
    plt.close(fig)
    assert problems == []


def test_identity_check_flags_look_alike_entries():
    fig, ax = plt.subplots(figsize=(3.3, 2.5))
    ax.plot([1, 2], [1, 2], color="#CC6677", label="erm")
    ax.plot([1, 2], [2, 1], color="#CC6677", label="exp_mech_erm")  # same colour and style
    ax.plot([1, 2], [1.5, 1.5], color="#AA4499", ls="--", label="a level")
    ax.plot([1, 2], [1.2, 1.2], color="#AA4477", ls="--", label="another level")  # an indistinguishable shade
    fig.legend(loc="upper left", bbox_to_anchor=(1, 1))
    problems = identity_problems(fig)
    plt.close(fig)
    assert any("'erm' and 'exp_mech_erm'" in p for p in problems)
    assert any("'a level' and 'another level'" in p for p in problems)


def test_caption_check_flags_a_learner_not_drawn():
    fig, ax = plt.subplots(figsize=(3.3, 2.5))
    ax.plot([1, 2], [1, 2], label="private_rwm")
    fig.legend()
    problems = caption_problems(fig, "private_rwm against private_rwm_tight; private_mw_001 is skipped.")
    plt.close(fig)
    assert any("private_rwm_tight" in p for p in problems) and any("private_mw_001" in p for p in problems)
    assert not any("names private_rwm," in p for p in problems)


def test_generated_caption_drops_clauses_about_learners_not_drawn():
    from dpbench.plotting.captions import add_note, figure_caption

    fig, ax = plt.subplots(figsize=(3.3, 2.5))
    ax.plot([1, 2], [1, 2], label="private_rwm")
    fig.legend()
    add_note(fig, "A note from the drawing.")
    text = figure_caption("Regret against T. private_mw_001 is skipped where it is not certified; private_rwm decays.", fig)
    plt.close(fig)
    assert "private_mw_001" not in text and "private_rwm decays." in text and text.endswith("A note from the drawing.")
    assert caption_problems(fig, text) == []


def test_view_check_flags_a_chance_level_out_of_view():
    from dpbench.plotting.style import REFERENCE_GREY

    fig, ax = plt.subplots(figsize=(3.3, 2.5))
    ax.plot([1, 10, 100], [0.1, 0.01, 0.001], marker="o")
    ax.plot([1, 100], [0.5, 0.5], color=REFERENCE_GREY)
    ax.set(xscale="log", yscale="log", ylim=(1e-4, 0.2))
    problems = view_problems(fig)
    plt.close(fig)
    assert any("reference level" in p for p in problems)


def test_catalogue_colours_are_distinct_within_each_group_and_plugins_never_collide():
    """Every pair of learners drawn together differs by the identity check's ΔE limits; the
    example plugin's two learners get two colours (they once hashed to the same orange)."""
    from dpbench.plotting.style import LEARNER_GROUPS, palette

    for group in LEARNER_GROUPS:
        colours = {name: c for name, c in group.items() if name != "dp_winnow_tight"}  # old name of dp_winnow_batched_tight
        for (a, ca), (b, cb) in itertools.combinations(colours.items(), 2):
            normal, cvd = delta_e(ca, cb)
            assert normal >= MIN_DELTA_E and cvd >= MIN_DELTA_E_CVD, (a, b, normal, cvd)
    plugins = palette(["elimination", "erm", "kconj_erm", "kconj_noisy_max"])
    assert plugins["kconj_erm"] != plugins["kconj_noisy_max"]
    assert len(set(plugins.values())) == 4
