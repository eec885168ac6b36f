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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from matplotlib.lines import Line2D

from dpbench.plotting.style import REFERENCE_GREY, SHARED_THEORY

#: Dash patterns of theory lines, by role (primary overlay, a source's stated formula beside it).
THEORY_STYLES = {"primary": (0, (4, 2)), "secondary": (0, (1, 1.5))}


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


def n_star_lines(learner: str, rates, eps: npt.NDArray, alpha: float) -> list[TheoryLine]:
    """The theory's sample complexity ``n(α, ε)`` along ``eps`` of each rate that has one
    (``rate.n_at``; :mod:`dpbench.theory`'s conjunction and decision-list rates), in the
    learner's colour, dashed or dotted by the rate's ``primary`` flag; rates that give no
    finite n on the range are left out."""
    from dpbench.plotting.style import color

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


def draw_theory(ax, lines: list[TheoryLine]) -> dict[str, Line2D]:
    """Draw theory lines above the data (zorder 4); returns their legend entries."""
    entries = {}
    for line, colour, label in _merge(lines):
        style = THEORY_STYLES[line.role]
        ax.plot(line.x, line.y, color=colour, ls=style, lw=1.0, zorder=4)
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
        ax.plot([x0], [0.0], marker="^", ms=5, color=colour, transform=ax.get_xaxis_transform(), clip_on=False, zorder=5, ls="none")
        marks["theory: learning starts (below the constant predictor)"] = Line2D([], [], marker="^", ms=5, color="0.3", ls="none")
    return marks


def mark_off_axis(ax, x: npt.ArrayLike, color: str, *, where: str, label: str) -> dict[str, Line2D]:
    """Hollow markers on the lower (``where="bottom"``) or upper axis at ``x`` for values the
    log axis cannot show; the legend entry says what they mean."""
    x = np.atleast_1d(np.asarray(x, dtype=float))
    if len(x) == 0:
        return {}
    y, marker = (0.0, "v") if where == "bottom" else (1.0, "^")
    ax.plot(x, np.full(len(x), y), marker=marker, ms=4.5, mfc="white", mec=color, mew=1.0, ls="none",
            transform=ax.get_xaxis_transform(), clip_on=False, zorder=6)
    return {label: Line2D([], [], marker=marker, ms=4.5, mfc="white", mec="0.3", mew=1.0, ls="none")}
