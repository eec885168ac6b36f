"""The aggregate steps behind the ``theory_check`` and ``figure`` rules."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from dpbench import registry
from dpbench.analysis import THEORY_COLUMNS
from dpbench.results import read_results


def write_theory_check(experiment: str, results: str | Path, out: str | Path) -> None:
    """Run the experiment's theory check on its collected results; write CSV atomically."""
    exp = registry.experiment(experiment)
    table = exp.theory_check(read_results(results))
    table = table.reindex(columns=list(exp.theory_columns or THEORY_COLUMNS))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    os.close(fd)
    try:
        table.to_csv(tmp, index=False, float_format="%.6g")
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_figure(experiment: str, figure: str, results: str | Path, out_pdf: str | Path) -> None:
    """Draw one figure of the experiment; writes ``out_pdf`` and the PNG beside it."""
    from dpbench.plotting.style import save

    recipe = registry.experiment(experiment).figures[figure]
    save(recipe(read_results(results)), Path(out_pdf).with_suffix(""))
