"""dpbench.plotting.common.mean_lines draws what seaborn's ``lineplot`` (hue = learner, a style
column, a callable errorbar) draws with the same arguments: the same lines and bands, in the
same order, with the same numbers, colours, markers and dash patterns (the figures did not
change when the workflow stopped using seaborn's per-point aggregation)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from dpbench.plotting.common import MARKER_SIZE, _band, learner_line_style, mean_lines  # noqa: E402
from dpbench.plotting.style import palette  # noqa: E402


def _rows() -> pd.DataFrame:
    """Two learners; one with two lines (a learner parameter that varies), one x with a single
    repetition, one line with one value per x (nothing to aggregate), rows out of order."""
    rng = np.random.default_rng(7)
    rows = []
    lines = (("winnow", "winnow (a = 1)", 6), ("winnow", "winnow (a = 2)", 6), ("perceptron", "perceptron", 1))
    for learner, line, reps in lines:
        for x in (1000, 10, 100, 31):
            for rep in range(1 if x == 31 else reps):
                error = float(rng.uniform(0.01, 0.5))
                rows.append({"learner": learner, "_line": line, "n": x, "error": error, "rep": rep})
    return pd.DataFrame(rows).sample(frac=1.0, random_state=3).reset_index(drop=True)


def _artists(ax) -> list[tuple]:
    """Every line and band of ``ax`` as comparable numbers and styles, in drawing order."""
    out = []
    for line in ax.get_lines():
        xy = (np.asarray(line.get_xdata(), float).tobytes(), np.asarray(line.get_ydata(), float).tobytes())
        out.append(("line", *xy, line.get_color(), line.get_marker(), str(line.get_linestyle()), str(line._dash_pattern),
                    line.get_markersize(), line.get_markeredgewidth(), str(line.get_markeredgecolor()), line.get_zorder()))
    for coll in ax.collections:
        paths = tuple(np.asarray(p.vertices, float).tobytes() for p in coll.get_paths())
        out.append(("band", paths, coll.get_facecolor().tobytes(), coll.get_alpha(), coll.get_zorder()))
    return out


def _seaborn(df: pd.DataFrame, style: dict, errorbar, estimator="mean"):
    import seaborn as sns

    fig, ax = plt.subplots()
    learners = ["winnow", "perceptron"]
    sns.lineplot(data=df, x="n", y="error", hue="learner", hue_order=learners, palette=palette(learners),
                 errorbar=errorbar, estimator=estimator, **style, markersize=MARKER_SIZE, markeredgewidth=0, ax=ax,
                 legend=False)
    return fig, _artists(ax)


def _ours(df: pd.DataFrame, style: dict, errorbar):
    fig, ax = plt.subplots()
    learners = ["winnow", "perceptron"]
    mean_lines(ax, df, x="n", y="error", hue_order=learners, palette=palette(learners), errorbar=errorbar,
               **style, markersize=MARKER_SIZE, markeredgewidth=0)
    return fig, _artists(ax)


@pytest.mark.parametrize("errorbar", [_band, None])
@pytest.mark.parametrize("line", ["_line", "learner"])
def test_mean_lines_draws_what_seaborn_lineplot_draws(errorbar, line):
    df = _rows()
    style = learner_line_style(df, line)
    (fig_a, theirs), (fig_b, ours) = _seaborn(df, style, errorbar), _ours(df, style, errorbar)
    plt.close(fig_a)
    plt.close(fig_b)
    assert len(ours) == len(theirs) and ours == theirs


def test_the_comparison_sees_a_different_aggregate():
    """The check can fail: seaborn's medians (instead of means) are not what mean_lines draws."""
    df = _rows()
    style = learner_line_style(df, "_line")
    (fig_a, theirs), (fig_b, ours) = _seaborn(df, style, _band, estimator="median"), _ours(df, style, _band)
    plt.close(fig_a)
    plt.close(fig_b)
    assert ours != theirs
