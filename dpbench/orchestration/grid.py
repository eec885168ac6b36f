"""Grid cells and shards (docs/configuration.md, "Cells, shards and jobs").

A cell (:class:`dpbench.foundation.cell.Cell`) is one point of the grid.
:func:`shard` packs the cells of an experiment into jobs by their predicted cost
(:mod:`dpbench.orchestration.cost`): either a fixed number of jobs, or as many as it takes for each to
do about ``target_seconds`` of work.
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import math
from collections.abc import Iterable, Sequence

from dpbench.foundation.cell import Cell
from dpbench.orchestration.cost import ONCE_PER_JOB, CellCost, cell_cost, cost_seconds


@contextlib.contextmanager
def gc_paused():
    """Python's cyclic garbage collector off inside the block (a decorator too), then as it
    was. Planning allocates millions of small objects (cells, key strings, costs) and no
    cycles, and the collector's full passes re-scan all of them as they accumulate: about
    a third of the CPU time of planning a 300,000-cell grid (issue 22)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _order(cell: Cell) -> tuple:
    return (cell.problem_id, cell.size, cell.first_rep, cell.learner, cell.key_string())


def sort_cells(cells: Iterable[Cell]) -> list[Cell]:
    """Deterministic order that keeps cells sharing a sample (problem, size, repetitions)
    together."""
    return sorted(cells, key=_order)


def estimated_cost(cell: Cell) -> float:
    """Predicted seconds of a cell if it ran alone in its shard (:mod:`dpbench.orchestration.cost`:
    the learner's own ``cost(cell)`` hook, else the calibrated per-learner model, else a
    per-family default)."""
    return cell_cost(cell).alone


#: cells with their predicted costs (:func:`dpbench.orchestration.cost.cell_cost`), in order
Group = list[tuple[Cell, CellCost]]


def _seconds(group: Group, *, jobs: bool = False) -> float:
    """:func:`dpbench.orchestration.cost.shard_seconds` of the group's cells (by default without the
    per-job keys)."""
    return cost_seconds([cost for _, cost in group], jobs=jobs)


def _pair_order(pair: tuple[Cell, CellCost]) -> tuple:
    return _order(pair[0])


def _runs(ordered: Group) -> list[Group]:
    """Maximal runs of consecutive cells that see the same samples (problem, size, reps)."""
    runs: list[Group] = []
    last = None
    for pair in ordered:
        cell = pair[0]
        sample = (cell.problem_id, cell.size, cell.first_rep)
        if runs and sample == last:
            runs[-1].append(pair)
        else:
            runs.append([pair])
            last = sample
    return runs


def _split_reps(group: Group, seconds: float, target_seconds: float, costs: dict[Cell, CellCost]) -> list[tuple[Group, float]]:
    """Cut a group of cells sharing samples (predicted ``seconds``, :func:`_seconds`) into
    ranges of repetitions, each predicted at most about ``target_seconds`` (at most one piece
    per repetition), with their predicted seconds; every piece keeps the group's cells
    together, so their shared work is still paid once per piece. The pieces' costs go into
    ``costs`` (scaled from the whole cells': a cell's cost is per repetition)."""
    reps = max(cell.repetitions for cell, _ in group)
    pieces = min(reps, math.ceil(seconds / target_seconds))
    if pieces <= 1:
        return [(group, seconds)]
    out = []
    for k in range(pieces):
        lo, hi = k * reps // pieces, (k + 1) * reps // pieces
        piece = []
        for cell, cost in group:
            if lo >= cell.repetitions:
                continue
            part = cell.piece(cell.first_rep + lo, min(hi, cell.repetitions) - lo)
            costs[part] = part_cost = cost.scaled(part.repetitions / cell.repetitions, part)
            piece.append((part, part_cost))
        out.append((piece, _seconds(piece)))
    return out


def _own(pair: tuple[Cell, CellCost]) -> float:
    """A cell's own work and the per-job keys of its own that grow with the cells (e.g. a
    DP-SGD noise calibration per ε: :data:`dpbench.orchestration.cost.ONCE_PER_JOB` are not)."""
    cost = pair[1]
    return cost.own + sum(v for k, v in cost.shared.items() if k[0] == "job" and k[1] not in ONCE_PER_JOB)


def _units(ordered: Group, target_seconds: float | None, costs: dict[Cell, CellCost]) -> list[tuple[Group, float]]:
    """Groups of cells that share work (same samples), with their predicted cost (without
    the per-job keys, :func:`dpbench.orchestration.cost.job_costs`: paid once by whichever job they land in).

    A run of cells sharing a sample is kept whole (its shared work is paid once) unless it
    costs more than ``target_seconds``. Then, if its cells' own work alone exceeds the
    target, it is cut into consecutive pieces of about that much own work (:func:`_own`; each piece
    pays the shared work again; splitting a run whose cost is mostly shared work would only
    repeat that work in every job); and a piece (or run) still above the target is cut
    into ranges of repetitions (:func:`_split_reps`), so no job need be much longer than
    the target, whatever one cell costs.
    """
    units = []
    for run in _runs(ordered):
        seconds = _seconds(run)
        if target_seconds is None or seconds <= target_seconds:
            units.append((run, seconds))
            continue
        own = sum(map(_own, run))
        if own <= target_seconds or len(run) == 1:
            chunks = [run]
        else:
            pieces = max(1, min(len(run), math.ceil(own / target_seconds)))
            chunks = [[] for _ in range(pieces)]
            acc = 0.0
            for pair in run:
                c = _own(pair)
                chunks[min(int((acc + c / 2) / own * pieces), pieces - 1)].append(pair)
                acc += c
        for chunk in chunks:
            if chunk:
                units += _split_reps(chunk, seconds if chunk is run else _seconds(chunk), target_seconds, costs)
    return units


def shard(
    cells: Sequence[Cell],
    n_shards: int | None = None,
    *,
    target_seconds: float | None = None,
    costs: dict[Cell, CellCost] | None = None,
) -> list[list[Cell]]:
    """Pack cells into shards of similar predicted cost.

    With ``target_seconds`` (from the config's ``shard_minutes``) the number of shards is
    ``ceil(predicted total / target_seconds)``, so each job does about that much work, and
    a cell costing more than that is split into ranges of its repetitions (rows identical
    to the whole cell's: seeds depend on the cell's key and the repetition only);
    otherwise it is ``n_shards`` (the config's ``shards``). Either way it is at most the
    number of units and never depends on the repetitions' layout: cells, their keys and
    hence their seeds are the same whatever the shards. Cells that share a sample stay in
    one job (their data-derived statistics are computed once, see :func:`_units`); units
    are packed longest-first into the least-loaded shard; each shard lists its cells in
    :func:`sort_cells` order, and the shards are ordered by their first cell.

    ``costs`` (cell → :func:`dpbench.orchestration.cost.cell_cost`) may be given to reuse predictions;
    the costs of pieces are added to it.
    """
    return layout(cells, n_shards, target_seconds=target_seconds, costs=costs)[0]


def layout(
    cells: Sequence[Cell],
    n_shards: int | None = None,
    *,
    target_seconds: float | None = None,
    costs: dict[Cell, CellCost] | None = None,
) -> tuple[list[list[Cell]], list[float]]:
    """The shards of :func:`shard` and the predicted seconds of each
    (:func:`dpbench.orchestration.cost.shard_seconds`), from the costs the packing used."""
    if costs is None:
        costs = {}
    pairs = []
    for cell in cells:
        cost = costs.get(cell)
        if cost is None:
            cost = costs[cell] = cell_cost(cell)
        pairs.append((cell, cost))
    ordered = sorted(pairs, key=_pair_order)  # = sort_cells(cells)
    if not ordered:
        return [], []
    if target_seconds is not None and not target_seconds > 0:
        raise ValueError(f"target_seconds must be > 0, got {target_seconds!r}")
    units = _units(ordered, target_seconds, costs)
    total = sum(cost for _, cost in units)
    if target_seconds is not None:
        wanted = math.ceil(total / target_seconds)
    elif n_shards is not None:
        wanted = n_shards
    else:
        raise ValueError("give n_shards or target_seconds")
    n_shards = max(1, min(int(wanted), len(units)))
    # longest-processing-time-first: each unit, largest first, to the least-loaded shard
    # (ties: the lower index), which keeps every shard within 4/3 of the best layout
    loads = [(0.0, i) for i in range(n_shards)]
    heapq.heapify(loads)
    shards: list[Group] = [[] for _ in range(n_shards)]
    for index in sorted(range(len(units)), key=lambda u: (-units[u][1], u)):
        load, i = heapq.heappop(loads)
        shards[i].extend(units[index][0])
        heapq.heappush(loads, (load + units[index][1], i))
    out = sorted((sorted(s, key=_pair_order) for s in shards if s), key=lambda s: _pair_order(s[0]))
    return [[cell for cell, _ in s] for s in out], [_seconds(s, jobs=True) for s in out]
