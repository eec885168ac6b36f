"""Panel layout and legend placement shared by the seaborn figures.

- :func:`grid_shape`: at most 4 panels a row, rows as even as possible (5 panels → 3 + 2).
- :func:`place_legend`: one figure legend outside every axes — in the free slot of the
  last row when the grid has one (so no slot stays empty), else below the panels; never
  over tick or axis labels (``tests/test_figures.py`` checks it after drawing).
- :func:`panel_size`: the panel width and height that make a grid 3.3 in (one column) or
  7 in (two columns) wide.
- :func:`deferred_grid_layout`: seaborn's figure-level functions without their own
  ``tight_layout`` passes (the recipe lays the finished figure out once).
"""

from __future__ import annotations

import math
import re
from contextlib import contextmanager

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import Locator
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


@contextmanager
def deferred_grid_layout():
    """Within the context, seaborn's ``Grid.tight_layout`` does nothing: ``relplot`` (a
    ``FacetGrid``) would lay the figure out when built and again after plotting — each a
    full tick and text measurement — before the recipe adds titles, overlays and ticks and
    calls ``fig.tight_layout()`` itself, which alone decides the final layout."""
    from seaborn.axisgrid import Grid

    own = Grid.tight_layout
    Grid.tight_layout = lambda self, *args, **kwargs: self
    try:
        yield
    finally:
        Grid.tight_layout = own


def _tight_extent(fig, axes) -> Bbox:
    renderer = fig.canvas.get_renderer()
    return Bbox.union([ax.get_tightbbox(renderer) for ax in axes]).transformed(fig.transFigure.inverted())


def _axes_extents(fig, axes) -> list[Bbox]:
    """Each axes' tight box in display units, measured once (each measurement lays out its
    ticks and labels again): a figure legend added afterwards does not move them."""
    renderer = fig.canvas.get_renderer()
    return [ax.get_tightbbox(renderer) for ax in axes]


def place_legend(fig: plt.Figure, axes, handles, labels, *, n_panels: int, cols: int, ncol: int | None = None):
    """Put one legend for the whole figure outside the data: in the empty area right of the
    last row's panels when the grid has free slots and it fits there (no wider than the
    figure, no taller than the panels), else below every panel (and their tick
    and axis labels). Call after the layout is final (``tight_layout``): the extents are
    measured then, without drawing the figure (``Axes.get_tightbbox`` updates ticks, titles
    and labels itself)."""
    if not handles:
        return None
    free = cols * math.ceil(n_panels / cols) - n_panels
    boxes = _axes_extents(fig, axes)
    panels = Bbox.union(boxes).transformed(fig.transFigure.inverted())  # every panel with its labels
    if free > 0:
        last = Bbox.union(boxes[-1:]).transformed(fig.transFigure.inverted())
        renderer = fig.canvas.get_renderer()
        others = [box.transformed(fig.transFigure.inverted()) for box in boxes[:-1]]
        # below the row above
        top = min([last.y1, *(o.y0 - 0.01 for o in others if o.x1 > last.x1 + 0.02 and o.y0 < last.y1)])
        legend = fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(last.x1 + 0.02, top), frameon=False,
                            ncol=ncol or 1, borderaxespad=0.0, handlelength=2.2, columnspacing=1.0)
        box = legend.get_window_extent(renderer).transformed(fig.transFigure.inverted())
        clear = not any(box.overlaps(other) for other in others)  # e.g. the x label of the panel above the slot
        if box.x1 <= 1.0 and box.height <= 1.1 * panels.height and clear:
            return legend
        legend.remove()  # wider than the free slot, taller than the panels or over one: below them instead
    legend = _legend_below(fig, axes, handles, labels, extent=panels)
    if legend.get_window_extent(fig.canvas.get_renderer()).height / fig.dpi <= panels.height * fig.get_figheight():
        return legend
    legend.remove()
    # taller than the panels below them: beside, if there is room
    beside = _legend_beside(fig, axes, handles, labels, panels=panels)
    if beside is not None:
        return beside
    if fig.get_figwidth() < DOUBLE_COLUMN:  # a single column: two columns wide, the legend below in columns
        fig.set_figwidth(DOUBLE_COLUMN)
        fig.tight_layout()
    return _legend_below(fig, axes, handles, labels)


#: characters that stand in, while a label is wrapped, for a space and a hyphen inside $…$
_MATH_SPACE, _MATH_HYPHEN = "\x00", "\x01"


def wrap_label(label: str, chars: int) -> str:
    """``label`` broken into lines of about ``chars`` characters at spaces, never inside a
    ``$…$`` math segment (a segment split across lines is not math to matplotlib: it prints
    the TeX source); a math segment longer than a line keeps a line of its own."""
    import textwrap

    protected = re.sub(r"\$[^$]*\$", lambda m: m.group(0).replace(" ", _MATH_SPACE).replace("-", _MATH_HYPHEN), label)
    lines = textwrap.wrap(protected, chars, break_long_words=False) or [protected]
    return "\n".join(lines).replace(_MATH_SPACE, " ").replace(_MATH_HYPHEN, "-")


def _legend_beside(fig: plt.Figure, axes, handles, labels, panels: Bbox | None = None):
    """One legend right of the panels, labels wrapped to the room left of a double column
    (:data:`DOUBLE_COLUMN`), if it is then no taller than the panels; else None.
    ``panels``: the panels' tight extent in figure coordinates, if measured already."""

    panels = _tight_extent(fig, axes) if panels is None else panels
    room_pt = (DOUBLE_COLUMN - panels.x1 * fig.get_figwidth()) * 72 - 40
    size_pt = font_points("legend.fontsize")
    chars = int(room_pt / (0.5 * size_pt))
    if chars < 24:
        return None
    wrapped = [wrap_label(label, chars) for label in labels]
    legend = fig.legend(handles, wrapped, loc="upper left", bbox_to_anchor=(panels.x1 + 0.02, panels.y1), frameon=False,
                        ncol=1, borderaxespad=0.0, handlelength=2.2)
    renderer = fig.canvas.get_renderer()
    box = legend.get_window_extent(renderer)
    areas = Bbox.union([ax.get_window_extent(renderer) for ax in axes])  # the plotting areas, without labels
    one_row = len({round(ax.get_position().y0, 3) for ax in axes}) == 1
    if box.x1 / fig.dpi > DOUBLE_COLUMN or not (box.height <= 1.1 * areas.height or (one_row and box.height <= MAX_GROWTH * areas.height)):
        legend.remove()
        return None
    if box.height > 1.1 * areas.height:  # one row of panels: taller panels, as tall as the legend
        fig.set_figheight(fig.get_figheight() + (box.height / 1.05 - areas.height) / fig.dpi)
        fig.tight_layout()
        panels = _tight_extent(fig, axes)
        legend.set_bbox_to_anchor((panels.x1 + 0.02, panels.y1), transform=fig.transFigure)
    return legend


#: Most a one-row figure's panels grow in height to stand as tall as a legend beside them.
MAX_GROWTH = 2.0


def _legend_below(fig: plt.Figure, axes, handles, labels, extent: Bbox | None = None):
    """One legend below every panel, centred: in as many columns (3, 2 or 1; labels wrapped
    to a column's width) as keep it no taller than the panels (with their labels), else in
    the columns that make it shortest. ``extent``: the panels' tight extent in figure
    coordinates, if measured already."""

    extent = _tight_extent(fig, axes) if extent is None else extent
    renderer = fig.canvas.get_renderer()
    size_pt = font_points("legend.fontsize")
    width_pt = min(fig.get_figwidth(), DOUBLE_COLUMN) * 72

    def below(wrapped, columns):
        return fig.legend(handles, wrapped, loc="upper center", bbox_to_anchor=(0.5, extent.y0 - 0.01), frameon=False,
                          ncol=columns, borderaxespad=0.0, handlelength=2.2, columnspacing=1.0)

    best = None  # (height, legend): the shortest legend that fits, kept (not built again)
    for columns in (3, 2, 1) if fig.get_figwidth() > 4 and len(handles) > 1 else (1,):
        chars = max(20, int((width_pt / columns - 30) / (0.5 * size_pt)))
        legend = below([wrap_label(label, chars) for label in labels], columns)
        box = legend.get_window_extent(renderer).transformed(fig.transFigure.inverted())
        if box.x0 < 0 or box.x1 > 1 or (best is not None and box.height >= best[0]):
            legend.remove()
            continue
        if best is not None:
            best[1].remove()
        best = (box.height, legend)
        if box.height <= extent.height:
            break
    return best[1] if best is not None else below([wrap_label(label, 40) for label in labels], 1)


#: Log axes spanning more decades than this carry no minor ticks: on a 1.75 in panel they
#: would sit < 1.5 mm apart (clutter), and each is a tick object measured by every layout
#: pass and draw — a tenth of the time of drawing the default run's figures.
MINOR_TICKS_MAX_DECADES = 3.0


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(value: float, _pos=None) -> str:
    """A log-axis tick label: ``10³``, ``10⁻²`` at powers of ten (Unicode superscripts, plain
    text: no mathtext parsing), ``%g`` elsewhere (``3·10⁵`` beyond 10⁵ or below 10⁻³)."""
    if value <= 0 or not math.isfinite(value):
        return ""
    exponent = math.floor(math.log10(value) + 1e-9)
    if abs(value - 10.0**round(math.log10(value))) <= 1e-9 * value:
        return "10" + str(round(math.log10(value))).translate(_SUPERSCRIPT)
    if 1e-3 <= value < 1e5:
        return f"{value:g}"
    return f"{value / 10.0**exponent:g}·10" + str(exponent).translate(_SUPERSCRIPT)


def plain_or_power(value: float, _pos=None) -> str:
    """A tick label among 1-3 or 1-2-5 ticks: ``%g`` from 10⁻³ to 10⁵ (``0.2, 0.5, 1``, not
    ``0.2, 0.5, 10⁰``), :func:`power_of_ten` beyond."""
    if value > 0 and 1e-3 <= value < 1e5:
        return f"{value:g}"
    return power_of_ten(value)


#: Most powers of ten a log axis labels one by one (beyond, matplotlib thins them).
MAX_LABELLED_DECADES = 8
#: Room (in ems of the tick label size) a power-of-ten label of a log x axis takes beside
#: the next: "10⁻³" is about 2.2 ems wide, and a label needs a gap of one em to read apart.
X_TICK_LABEL_EMS = 3.4


def _log_subs(lo: float, hi: float) -> tuple[float, ...]:
    """Mantissas of the labelled ticks of a log axis over ``[lo, hi]``: powers of ten when at
    least 3 are in view, else 1-3, else 1-2-5 (so an axis always carries ≥ 3 labels)."""
    def count(subs):
        return sum(1 for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
                   for m in subs if lo * (1 - 1e-9) <= m * 10.0**e <= hi * (1 + 1e-9))

    for subs in ((1.0,), (1.0, 3.0), (1.0, 2.0, 5.0), (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)):
        if count(subs) >= 3:
            return subs
    return tuple(float(m) for m in range(1, 10))


class InViewLocator(Locator):
    """``base``'s ticks inside the axis' view interval only (up to a relative ``1e-6``: a
    superset of the ticks matplotlib draws, those within ``1e-10`` of the interval's width in
    axis coordinates). matplotlib makes a tick object (two tick marks, two labels, a grid
    line) for every location a locator returns, and moves and formats each one at every
    layout pass, but draws only those in view; a log locator returns a decade beyond each end
    (up to 16 minor ticks an axis never shown). The ticks in view are the same, so the figure
    is unchanged, drawn with fewer tick objects. For positive locations (log axes)."""

    def __init__(self, base: Locator):
        self.base = base

    def set_axis(self, axis):
        super().set_axis(axis)
        self.base.set_axis(axis)

    def __call__(self):
        locs = np.asarray(self.base(), dtype=float)
        lo, hi = sorted(self.axis.get_view_interval())
        return locs[(locs >= lo * (1 - 1e-6)) & (locs <= hi * (1 + 1e-6))]

    def tick_values(self, vmin, vmax):
        return self.base.tick_values(vmin, vmax)

    def nonsingular(self, v0, v1):
        return self.base.nonsingular(v0, v1)

    def view_limits(self, vmin, vmax):
        return self.base.view_limits(vmin, vmax)


def tidy_log_ticks(ax) -> None:
    """Labels only at major ticks of log axes (matplotlib labels minor ticks on short ranges,
    where they collide), at least 3 of them (:func:`_log_subs`: powers of ten, else 1-3,
    else 1-2-5), every power of ten up to :data:`MAX_LABELLED_DECADES`; no minor ticks
    beyond :data:`MINOR_TICKS_MAX_DECADES`; no tick objects out of view (:class:`InViewLocator`)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

    box = ax.get_position()
    for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        if axis.get_scale() != "log" or not (lo > 0 and hi > 0):
            continue
        lo, hi = min(lo, hi), max(lo, hi)
        decades = math.log10(hi / lo)
        subs = _log_subs(lo, hi)
        numticks = math.ceil(decades) + 3 if decades <= MAX_LABELLED_DECADES else "auto"
        if axis is ax.xaxis and subs == (1.0,):  # labels side by side: as many as fit the axis
            length_pt = box.width * ax.figure.get_figwidth() * 72
            fit = max(3, int(length_pt / (X_TICK_LABEL_EMS * font_points("xtick.labelsize"))))
            if math.floor(decades) + 1 > fit:
                numticks = fit
        axis.set_major_locator(InViewLocator(LogLocator(base=10, subs=subs, numticks=numticks)))
        axis.set_major_formatter(FuncFormatter(power_of_ten if subs == (1.0,) else plain_or_power))
        axis.set_minor_formatter(NullFormatter())
        if decades > MINOR_TICKS_MAX_DECADES:
            axis.set_minor_locator(NullLocator())
        elif not isinstance(axis.get_minor_locator(), (NullLocator, InViewLocator)):
            axis.set_minor_locator(InViewLocator(axis.get_minor_locator()))


def font_points(key: str) -> float:
    """The size in points of the rc font setting ``key`` (a number, or a name such as "medium")."""
    from matplotlib.font_manager import FontProperties

    return FontProperties(size=plt.rcParams[key]).get_size_in_points()


def _wrapped(title: str, chars: int) -> list[str]:
    """``title``'s lines of at most ``chars`` characters, broken between the settings
    ("d = 2, ε = 0.5"), not inside one."""
    import textwrap

    lines: list[str] = []
    for part in title.replace("\n", " ").split(", "):
        if lines and len(lines[-1]) + 2 + len(part) <= chars:
            lines[-1] += ", " + part
        else:
            if lines:
                lines[-1] += ","
            lines += textwrap.wrap(part, chars, break_long_words=False) or [part]
    return lines


def wrap_titles(fig: plt.Figure, axes, max_lines: int | None = None) -> None:
    """Wrap each panel title to its panel's width (a long setting label would run into the
    next panel's title). Call before the layout: the wrapped titles take the room they need.
    With ``max_lines``, a title that would take more lines is written compactly first
    (``d=2`` for ``d = 2``)."""
    for ax in axes:
        title = ax.get_title()
        if not title:
            continue
        width_pt = ax.get_position().width * fig.get_figwidth() * 72
        chars = max(12, int(width_pt / (0.55 * ax.title.get_fontsize())))
        lines = _wrapped(title, chars)
        if max_lines is not None and len(lines) > max_lines:
            lines = _wrapped(title.replace(" = ", "="), chars)
        ax.set_title("\n".join(lines), fontsize=ax.title.get_fontsize())


#: Gap (inches) between a panel's labels and the legend under it, and under that legend.
PANEL_LEGEND_GAP = 0.06


def place_panel_legends(fig: plt.Figure, axes, entries: list[dict]) -> list:
    """One legend under each panel (``entries[i]``: ``{label: handle}`` of ``axes[i]``), for
    figures whose panels give a learner's line different meanings (a slope, a level per
    panel): one legend merged over the panels would show the same style with several
    labels. Labels wrap to the panel's width. The figure grows by the height of each row's tallest legend, and the rows
    below move down by it, so a legend never lies over the next row of panels (nor over its
    tick and axis labels). Call after the layout is final."""

    renderer = fig.canvas.get_renderer()
    legends: list = []
    made = []
    for ax, mine in zip(axes, entries):
        if not mine:
            continue
        ext = _tight_extent(fig, [ax])
        width_chars = max(16, int(ext.width * fig.get_figwidth() * 72 / (0.55 * font_points("legend.fontsize"))) - 8)
        labels = [wrap_label(label, width_chars) for label in mine]
        legend = fig.legend(list(mine.values()), labels, loc="upper left", bbox_to_anchor=(ext.x0, ext.y0), frameon=False,
                            ncol=1, borderaxespad=0.0, handlelength=2.2)
        made.append((ax, legend))
    if not made:
        return legends
    # rows (top to bottom) by the axes' top edge; each row's room: its tallest legend
    height = fig.get_figheight()
    tops = sorted({round(ax.get_position().y1, 3) for ax in axes}, reverse=True)
    room = {top: 0.0 for top in tops}
    for ax, legend in made:
        top = round(ax.get_position().y1, 3)
        room[top] = max(room[top], legend.get_window_extent(renderer).height / fig.dpi + 2 * PANEL_LEGEND_GAP)
    extra = sum(room.values())
    below = {top: sum(room[t] for t in tops if t > top) for top in tops}  # inches each row moves down
    positions = {id(ax): ax.get_position() for ax in fig.axes}
    fig.set_figheight(height + extra)
    for ax in fig.axes:
        pos = positions[id(ax)]
        shift = below.get(round(pos.y1, 3), 0.0) if ax in list(axes) else 0.0
        y0 = (pos.y0 * height + extra - shift) / (height + extra)
        ax.set_position([pos.x0, y0, pos.width, pos.height * height / (height + extra)])
    for ax, legend in made:
        ext = _tight_extent(fig, [ax])
        legend.set_bbox_to_anchor((ext.x0, ext.y0 - PANEL_LEGEND_GAP / fig.get_figheight()), transform=fig.transFigure)
        legends.append(legend)
    return legends
