"""Every figure recipe of every registered experiment, rendered from a small results fixture
(tests/data/tiny.yaml run in-process, once per session), checked as a reviewer would:
no legend or text box over another text or over an axes' plotting area, no empty panel,
text ≥ 7 pt at the printed size, at most a double column (7 in) wide, ≤ 4 panels a row.
"""

from __future__ import annotations

import itertools
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import yaml
from matplotlib.legend import Legend
from matplotlib.text import Text

import dpbench.experiments  # noqa: F401
from dpbench import registry
from dpbench.config import from_dict
from dpbench.experiment import draw_target
from dpbench.plotting.style import MIN_FONT_PT
from tests.conftest import TINY_CONFIG

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
    for leg in legends:
        for t in leg.get_texts():
            if t.get_fontsize() < MIN_FONT_PT:
                problems.append(f"legend text {t.get_text()!r} is {t.get_fontsize():.1f} pt")
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


@pytest.mark.parametrize("experiment,figure", list(_figure_params()))
def test_figure_layout(tiny_results, experiment, figure):
    fig = registry.experiment(experiment).figures[figure](tiny_results[experiment])
    try:
        assert layout_problems(fig) == []
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
