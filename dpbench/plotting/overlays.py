"""What seaborn does not draw: theory lines, the trivial predictor's level, where a theory
says learning starts, and values a log axis cannot show.

Every overlay returns the legend entries it needs (``{label: handle}``), so a figure's one
legend names every line and marker (:func:`dpbench.plotting.layout.place_legend`).

- :class:`TheoryLine` + :func:`draw_theory`: lines in the learner's colour, drawn above the
  data bands; lines that coincide (e.g. two learners with the same bound) are drawn once,
  in a neutral dark grey, with both names in the label — never one hidden under another.
- :func:`draw_trivial`: the trivial predictor's level as a thin grey line.
- :func:`mark_learning_starts`: a triangle on the lower axis, in the learner's colour, at
  the x from which a theory line is below the trivial level.
- :func:`mark_off_axis`: values a log axis cannot show (a mean of exactly 0, an n* the grid
  never reaches) as hollow markers on the lower/upper axis, with a legend entry saying so.
- :func:`place_edge_marks`: draws the markers of the last two, stacked so that none hides
  another (markers closer than their width climb one level into the panel, which is
  widened to make room for them); call it once the axes limits and the layout are final.
- :func:`theory_style`: a theory line's dash pattern, unique within a figure for each
  colour and meaning (the same colour and dash never mean two things in one figure).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from matplotlib.lines import Line2D

from dpbench.plotting.captions import add_note
from dpbench.plotting.style import REFERENCE_GREY, SHARED_THEORY, color

#: Dash patterns of theory lines, by role (primary overlay, a source's stated formula beside it).
THEORY_STYLES = {"primary": (0, (4, 2)), "secondary": (0, (1, 1.5))}
#: Further dash patterns, taken in order when a colour already means something else with the
#: role's own pattern in the same figure (:func:`theory_style`).
ALTERNATE_STYLES = {
    "primary": [(0, (8, 2)), (0, (4, 1.5, 1, 1.5)), (0, (8, 2, 1, 2, 1, 2)), (0, (2, 1))],
    "secondary": [(0, (1, 3)), (0, (3, 1, 1, 1)), (0, (1, 1, 1, 3)), (0, (3, 3))],
}


def theory_style(fig, colour, label: str, role: str = "primary"):
    """The dash pattern of a line of ``colour`` meaning ``label`` in ``fig``: the role's
    pattern (:data:`THEORY_STYLES`) unless another meaning already has it in that colour
    in this figure, else the first free one of :data:`ALTERNATE_STYLES`."""
    from matplotlib.colors import to_hex

    book = fig.__dict__.setdefault("_dpbench_styles", {})
    for style in (THEORY_STYLES[role], *ALTERNATE_STYLES[role]):
        key = (to_hex(colour), str(style))
        if book.get(key, label) == label:
            book[key] = label
            return style
    return THEORY_STYLES[role]


@dataclass(frozen=True)
class TheoryLine:
    """One theory curve on one panel: ``y(x)`` (NaN where the theory says nothing), its
    legend ``label`` (without the learner), the ``learner`` whose colour it takes, and its
    ``role`` (``primary`` dashed, ``secondary`` dotted: e.g. a source's stated formula beside a
    derived rate)."""

    learner: str
    label: str
    x: npt.NDArray
    y: npt.NDArray
    color: str
    role: str = "primary"

    def start(self, trivial: float | None) -> float | None:
        """First x at which the line is below ``trivial`` (None: never, or no trivial)."""
        if trivial is None or not np.isfinite(trivial):
            return None
        below = np.isfinite(self.y) & (self.y < trivial)
        return float(self.x[np.argmax(below)]) if below.any() else None


def error_lines(learner: str, rates, n: npt.NDArray) -> list[TheoryLine]:
    """The theory's error ``rate.error(n)`` along ``n`` of each rate (:mod:`dpbench.theory`'s
    conjunction and decision-list rates), in the learner's colour, dashed or dotted by the
    rate's ``primary`` flag."""
    from dpbench.plotting.style import color

    return [
        TheoryLine(learner, r.label, n, np.asarray(r.error(n), dtype=float), color(learner), "primary" if r.primary else "secondary")
        for r in rates
    ]


def n_star_lines(learner: str, rates, eps: npt.NDArray, alpha: float) -> list[TheoryLine]:
    """The theory's sample complexity ``n(α, ε)`` along ``eps`` of each rate that has one
    (``rate.n_at``; :mod:`dpbench.theory`'s conjunction and decision-list rates), in the
    learner's colour, dashed or dotted by the rate's ``primary`` flag; rates that give no
    finite n on the range are left out."""

    out = []
    for r in rates:
        if r.n_at is None:
            continue
        n = np.broadcast_to(np.asarray(r.n_at(alpha, eps), dtype=float), eps.shape)
        if np.isfinite(n).any():
            out.append(TheoryLine(learner, r.label, eps, n, color(learner), "primary" if r.primary else "secondary"))
    return out


def _merge(lines: list[TheoryLine]) -> list[tuple[TheoryLine, str, str]]:
    """Coinciding lines (same x, y and role) merged: ``(line, colour, legend label)``."""
    groups: list[list[TheoryLine]] = []
    for line in lines:
        for group in groups:
            g = group[0]
            if g.role == line.role and g.x.shape == line.x.shape and np.allclose(g.x, line.x) and np.allclose(g.y, line.y, equal_nan=True, rtol=1e-9):
                group.append(line)
                break
        else:
            groups.append([line])
    out = []
    for group in groups:
        names = ", ".join(dict.fromkeys(line.learner for line in group))
        colour = group[0].color if len(group) == 1 else SHARED_THEORY
        out.append((group[0], colour, f"{names}: {group[0].label}"))
    return out


def register_entry(label: str, artist) -> None:
    """Record that the legend entry ``label`` stands for ``artist`` (a line of its axes), for
    :func:`hide_undrawn`."""
    artist.axes.figure.__dict__.setdefault("_dpbench_entry_artists", {}).setdefault(label, []).append(artist)


def shows_a_point(line) -> bool:
    """Whether ``line`` has a finite point inside its axes at the current limits (a line
    above the plotted range, or all NaN, shows none)."""
    ax = line.axes
    xy = np.column_stack([np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)])
    xy = xy[np.isfinite(xy).all(axis=1)]
    if not len(xy):
        return False
    px = line.get_transform().transform(xy)
    box = ax.get_window_extent()
    tol = 1e-6 * max(box.width, box.height)
    return bool(((px[:, 0] >= box.x0 - tol) & (px[:, 0] <= box.x1 + tol) & (px[:, 1] >= box.y0 - tol) & (px[:, 1] <= box.y1 + tol)).any())


#: Appended to the legend label of a line no panel shows (it is above or below the range).
NOT_DRAWN = " (outside the plotted range: not drawn)"


def hide_undrawn(fig, entries: dict) -> dict:
    """``entries`` (``{label: handle}``) with every entry whose recorded lines
    (:func:`register_entry`) show no point in any panel at the final limits
    (:func:`shows_a_point`) kept as text only: no line sample (a sample would stand for
    nothing drawn), the label saying it is not drawn. Call once the limits are final.
    Text-only entries that differ only in the name before their first ``": "`` (three
    private learners' vacuous bounds, say) become one entry naming them all, in order."""
    book = fig.__dict__.get("_dpbench_entry_artists", {})
    order: list[tuple[bool, str]] = []  # (hidden, label or shared text), in the entries' order
    names: dict[str, list[str]] = {}  # shared text of the hidden entries → the names before it
    for label, handle in entries.items():
        artists = book.get(label)
        if not (artists and not any(shows_a_point(a) for a in artists)):
            order.append((False, label))
            continue
        name, sep, rest = (label if "not drawn" in label else label + NOT_DRAWN).partition(": ")
        key = rest if sep else name
        if key not in names:
            names[key] = []
            order.append((True, key))
        names[key] += [name] if sep else []
    return {(f"{', '.join(names[key])}: {key}" if names[key] else key) if hidden else key:
            Line2D([], [], visible=False) if hidden else entries[key] for hidden, key in order}


def draw_theory(ax, lines: list[TheoryLine]) -> dict[str, Line2D]:
    """Draw theory lines above the data (zorder 4); returns their legend entries (each
    line recorded for :func:`hide_undrawn`)."""
    entries = {}
    for line, colour, label in _merge(lines):
        style = theory_style(ax.figure, colour, label, line.role)
        (artist,) = ax.plot(line.x, line.y, color=colour, ls=style, lw=1.0, zorder=4)
        register_entry(label, artist)
        entries[label] = Line2D([], [], color=colour, ls=style, lw=1.0)
    return entries


def draw_trivial(ax, level: float | None, label: str = "best constant predictor") -> dict[str, Line2D]:
    """The trivial predictor's level as a thin grey horizontal line (below the data)."""
    if level is None or not np.isfinite(level):
        return {}
    ax.axhline(level, color=REFERENCE_GREY, lw=0.8, zorder=1)
    return {label: Line2D([], [], color=REFERENCE_GREY, lw=0.8)}


def mark_learning_starts(ax, lines: list[TheoryLine], trivial: float | None) -> dict[str, Line2D]:
    """A triangle on the lower axis at each primary line's :meth:`TheoryLine.start`."""
    marks = {}
    for line, colour, _ in _merge([l for l in lines if l.role == "primary"]):
        x0 = line.start(trivial)
        if x0 is None:
            continue
        _add_edge_marks(ax, [x0], colour, marker="^", filled=True, where="bottom", size=5.0)
        marks["theory: learning starts (below the constant predictor)"] = Line2D([], [], marker="^", ms=5, color="0.3", ls="none")
    return marks


def mark_off_axis(ax, x: npt.ArrayLike, color: str, *, where: str, label: str) -> dict[str, Line2D]:
    """Hollow markers on the lower (``where="bottom"``) or upper axis at ``x`` for values the
    log axis cannot show; the legend entry says what they mean. Drawn by
    :func:`place_edge_marks`."""
    x = np.atleast_1d(np.asarray(x, dtype=float))
    if len(x) == 0:
        return {}
    marker = "v" if where == "bottom" else "^"
    _add_edge_marks(ax, x, color, marker=marker, filled=False, where=where, size=4.5)
    return {label: zero_handle("0.3", where)}


def zero_handle(colour: str, where: str = "bottom") -> Line2D:
    """The legend sample of :func:`mark_off_axis`'s markers, in ``colour`` (grey: any learner's)."""
    return Line2D([], [], marker="v" if where == "bottom" else "^", ms=4.5, mfc="white", mec=colour, mew=1.0, ls="none")


@dataclass(frozen=True)
class EdgeMark:
    """A marker on the lower or upper edge of a panel at data x ``x``."""

    x: float
    colour: str
    marker: str
    filled: bool
    where: str  # "bottom" or "top"
    size: float  # points


def _add_edge_marks(ax, xs, colour, *, marker: str, filled: bool, where: str, size: float) -> None:
    marks = ax.__dict__.setdefault("_dpbench_edge_marks", [])
    marks.extend(EdgeMark(float(x), colour, marker, filled, where, size) for x in np.atleast_1d(xs) if np.isfinite(x))


#: Gap between stacked edge markers (points).
EDGE_GAP_PT = 1.0


def _levels(xs_px: np.ndarray, widths_px: np.ndarray) -> np.ndarray:
    """Per marker (in the given order), the lowest level at which it does not touch a marker
    already placed on that level (interval colouring, left to right)."""
    order = np.argsort(xs_px, kind="stable")
    ends: list[float] = []  # per level: right edge of its last marker
    out = np.zeros(len(xs_px), dtype=int)
    for i in order:
        left = xs_px[i] - widths_px[i] / 2
        level = next((k for k, end in enumerate(ends) if left >= end), len(ends))
        if level == len(ends):
            ends.append(0.0)
        ends[level] = xs_px[i] + widths_px[i] / 2
        out[i] = level
    return out


def _data_extent(ax) -> tuple[float, float]:
    """Smallest and largest positive y of the data drawn in ``ax`` (lines with markers in data
    coordinates, bands, error bars); NaN when there is none."""
    from matplotlib.collections import LineCollection, PolyCollection

    ys = [np.asarray(l.get_ydata(), dtype=float) for l in ax.get_lines()
          if l.get_transform() == ax.transData and l.get_marker() not in (None, "None", "", " ")]
    ys += [np.asarray(p.vertices, dtype=float)[:, 1] for c in ax.collections if isinstance(c, (PolyCollection, LineCollection)) for p in c.get_paths()]
    y = np.concatenate(ys) if ys else np.array([])
    y = y[np.isfinite(y) & (y > 0)]
    return (float(y.min()), float(y.max())) if len(y) else (np.nan, np.nan)


def _room(lo: float, hi: float, data: float, need: float, height: float, where: str) -> tuple[float, float]:
    """Log y limits keeping ``data`` at least ``need`` points (of a ``height``-point axis)
    inside the edge ``where``."""
    llo, lhi, ld = np.log10(lo), np.log10(hi), np.log10(data)
    f = min(need / height, 0.45)
    if where == "bottom" and (ld - llo) < f * (lhi - llo):
        llo = (ld - f * lhi) / (1 - f)
    elif where == "top" and (lhi - ld) < f * (lhi - llo):
        lhi = (ld - f * llo) / (1 - f)
    return 10**llo, 10**lhi


def place_edge_marks(fig) -> None:
    """Draw every edge marker of the figure's axes (:func:`mark_off_axis`,
    :func:`mark_learning_starts`): level 0 on the axis line, a marker that would touch one
    already placed one level further into the panel; a log y range grows (shared axes
    together) so that stacked markers stay clear of the data."""
    from matplotlib.transforms import offset_copy

    limits: dict[int, tuple[float, float]] = {}
    plans = []
    for ax in fig.axes:
        marks = ax.__dict__.pop("_dpbench_edge_marks", [])
        if not marks:
            continue
        height = ax.get_window_extent().height * 72.0 / fig.dpi
        lo, hi = ax.get_ylim()
        data_lo, data_hi = _data_extent(ax)
        for where in ("bottom", "top"):
            mine = [m for m in marks if m.where == where]
            if not mine:
                continue
            xs = ax.transData.transform(np.column_stack([[m.x for m in mine], np.ones(len(mine))]))[:, 0]
            widths = np.array([(m.size + EDGE_GAP_PT) * fig.dpi / 72.0 for m in mine])
            levels = _levels(xs, widths)
            pitch = max(m.size for m in mine) + EDGE_GAP_PT
            plans.append((ax, mine, levels, pitch, where))
            need = levels.max() * pitch + pitch / 2 + 1.0
            if ax.get_yscale() == "log" and lo > 0 and np.isfinite(data_lo):
                lo, hi = _room(lo, hi, data_lo if where == "bottom" else data_hi, need, height, where)
        limits[id(ax)] = (lo, hi)
    for ax in fig.axes:
        if id(ax) in limits:
            siblings = [a for a in ax.get_shared_y_axes().get_siblings(ax) if id(a) in limits] or [ax]
            ax.set_ylim(min(limits[id(a)][0] for a in siblings), max(limits[id(a)][1] for a in siblings))
    if any(levels.max() > 0 for _, _, levels, _, _ in plans):

        add_note(fig, "Markers on an axis that would overlap are stacked into the panel, one level per marker.")
    for ax, mine, levels, pitch, where in plans:
        sign = 1.0 if where == "bottom" else -1.0
        y = 0.0 if where == "bottom" else 1.0
        for m, level in zip(mine, levels):
            transform = offset_copy(ax.get_xaxis_transform(), fig=fig, y=sign * level * pitch, units="points")
            face = m.colour if m.filled else "white"
            ax.plot([m.x], [y], marker=m.marker, ms=m.size, mfc=face, mec=m.colour, mew=1.0, ls="none",
                    transform=transform, clip_on=False, zorder=6 + (0.1 if m.filled else 0))
