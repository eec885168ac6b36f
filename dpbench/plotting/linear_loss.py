"""Figure of the ``linear_loss`` experiment: LinearLearner's excess population loss against T,
one panel per private ε (and per d when a sweep varies it), drawn with seaborn by
:func:`dpbench.plotting.common.learning_curves`.

Rows and :mod:`dpbench.theory` only: each panel's theory line is the proven online-to-batch
bound at the η its runs recorded (:func:`dpbench.theory.linear_learner_rate_of`), so lines
of different ε never share a panel or a colour. LinearLearner at ε = ∞ (plain RWM at
η = sqrt(ln d/T)) is drawn as ``linear_learner (ε = ∞)``, in a colour of its own, in every
panel, with its own bound.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpbench import theory
from dpbench.plotting.common import learning_curves
from dpbench.plotting.overlays import TheoryLine
from dpbench.plotting.style import color

#: the name LinearLearner's non-private run (ε = ∞) is drawn under (its own colour in
#: :data:`dpbench.plotting.style.LEARNER_GROUPS`).
NON_PRIVATE = "linear_learner (ε = ∞)"


def excess_vs_T(df: pd.DataFrame):
    ok = df[df["status"] == "ok"]
    ok = ok.assign(learner=np.where(np.isfinite(ok["epsilon"]), ok["learner"], NON_PRIVATE), private=np.isfinite(ok["epsilon"]))

    def lines(learner: str, row: pd.Series, xs: np.ndarray) -> list[TheoryLine]:
        same = (ok["learner"] == learner) & (ok["epsilon"] == row["epsilon"]) & (ok["d"] == row["d"]) & (ok["gap"] == row["gap"])
        rate = theory.linear_learner_rate_of(ok[same])
        ts = np.geomspace(float(ok.loc[same, "T"].min()), float(ok.loc[same, "T"].max()), 64)
        return [TheoryLine(learner, rate.label, ts, np.asarray(rate.curve(ts), dtype=float), color(learner))]

    return learning_curves(ok, x="T", y="excess_loss", xlabel="horizon T (= sample size)", ylabel="excess population loss",
                           theory=lines, trivial=lambda row: float(row["gap"]),
                           trivial_label="uniform θ (excess loss = gap)", zero_label="mean exactly 0 (off the log axis)")
