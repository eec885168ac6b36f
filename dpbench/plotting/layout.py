"""Panel layout and legend placement shared by the seaborn figures.

- :func:`grid_shape`: at most 4 panels a row, rows as even as possible (5 panels → 3 + 2).
- :func:`place_legend`: one figure legend outside every axes — in the free slot of the
  last row when the grid has one (so no slot stays empty), else below the panels; never
  over tick or axis labels (``tests/test_figures.py`` checks it after drawing).
- :func:`panel_size`: the panel width and height that make a grid 3.3 in (one column) or
  7 in (two columns) wide.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
from matplotlib.transforms import Bbox

from dpbench.plotting.style import DOUBLE_COLUMN, SINGLE_COLUMN


def grid_shape(n_panels: int, max_cols: int = 4) -> tuple[int, int]:
    """``(rows, cols)`` for ``n_panels``: ≤ ``max_cols`` a row, rows as even as possible."""
    if n_panels < 1:
        raise ValueError(f"n_panels must be ≥ 1, got {n_panels!r}")
    rows = math.ceil(n_panels / max_cols)
    return rows, math.ceil(n_panels / rows)


def panel_size(cols: int, *, height: float = 1.75) -> tuple[float, float]:
    """``(height, aspect)`` for seaborn's figure-level functions: one column wide for a
    single panel, two columns wide otherwise."""
    width = SINGLE_COLUMN if cols == 1 else DOUBLE_COLUMN
    return height, (width / cols) / height


def _tight_extent(fig, axes) -> Bbox:
    renderer = fig.canvas.get_renderer()
    return Bbox.union([ax.get_tightbbox(renderer) for ax in axes]).transformed(fig.transFigure.inverted())


def place_legend(fig: plt.Figure, axes, handles, labels, *, n_panels: int, cols: int, ncol: int | None = None):
    """Put one legend for the whole figure outside the data: in the empty area right of the
    last row's panels when the grid has free slots, else below every panel (and their tick
    and axis labels). Call after the layout is final (``tight_layout``)."""
    if not handles:
        return None
    fig.canvas.draw()
    free = cols * math.ceil(n_panels / cols) - n_panels
    if free > 0:
        last = _tight_extent(fig, axes[-1:])
        legend = fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(last.x1 + 0.02, last.y1), frameon=False,
                            ncol=ncol or 1, borderaxespad=0.0, handlelength=2.2, columnspacing=1.0)
        box = legend.get_window_extent(fig.canvas.get_renderer()).transformed(fig.transFigure.inverted())
        if box.x1 <= 1.0:
            return legend
        legend.remove()  # wider than the free slot: below the panels instead
    extent = _tight_extent(fig, axes)
    width = fig.get_figwidth()
    return fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, extent.y0 - 0.01), frameon=False,
                      ncol=max(1, min(2 if width > 4 else 1, len(handles))), borderaxespad=0.0,
                      handlelength=2.2, columnspacing=1.0)
