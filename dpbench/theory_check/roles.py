"""The role of a theory-check row: does its exponent test what a theorem predicts, or is it
fixed by the setup before any data are seen?

- ``prediction``: the dependence a theorem claims on a parameter — ε, |C| or ln|C|, |F|,
  N (or ln N), ρ, k, d, the sample size of a PAC learner, n*(α) — or its constant, through
  ``bound_ratio``. These rows are the headline: the summary's counts, the README and the
  report count them.
- ``sanity``: an exponent that the calibration, a finite mistake count or the instance fixes
  in advance. They stay in the CSVs, labelled, and are not counted:

  - ``mistakes/t`` against t (``halfspaces_online``): once a learner stops erring its
    cumulative mistake rate falls as t⁻¹ whatever the learner;
  - regret or excess loss against the horizon T (``experts``, ``linear_loss``): every learner
    there runs at η ∝ T^−½, which sets the slope (the bound η + ln k/(ηT) ∝ T^−½ at that η);
    on the fair-coin instance every learner's regret is the best-in-hindsight fluctuation
    (a lower-bound check of the instance); on the FTL trap the instance fixes the linear regret;
  - private ERM's excess loss, on the *training* objective and on the population
    (``excess_loss``, ``pop_excess_loss``; ``private_erm``, against n and ε): the noise
    calibration makes the training excess ‖b‖²_H/2 ∝ (nε)⁻² (output perturbation exactly;
    the others through their noise scales), and the population excess is that term plus the
    ε-free generalisation gap of the non-private minimiser (∝ d/n): against ε its exponent is
    the calibration's, against n it moves from −2 to −1 as ε grows — fixed by the setup, and
    compared only with unit-constant shapes of upper bounds, which no data can contradict.
    The exception is a population row judged against a bound with its constants
    (``bound_kind = bound``: the expected excess population risk of output and objective
    perturbation, diffprivlib's objective perturbation, dp_gd at the zCDP noise of its ε, dp_sgd
    at its calibrated noise and the grid exponential mechanism,
    :func:`dpbench.theory.erm.erm_population_rate_of`): its ``bound_ratio`` tests the constant,
    and a noise scale well above the calibration's would put the data above it — a prediction;
  - timings (``fit_seconds``): the cost model's exponent is the algorithm's loop structure.

:func:`role_of` decides from the row's experiment, axes and learner; a row that already has a
``role`` keeps it (an experiment may set it).
"""

from __future__ import annotations

import pandas as pd

ROLES = ("prediction", "sanity")


def role_of(row) -> str:
    """``prediction`` or ``sanity`` for one theory-check row (module doc)."""
    get = row.get if hasattr(row, "get") else (lambda k, d=None: row[k] if k in row else d)
    exp, x, y = str(get("experiment", "")), str(get("x", "")), str(get("y", ""))
    if y == "fit_seconds":
        return "sanity"
    if exp == "halfspaces_online" and y == "mistake_rate" and x == "t":
        return "sanity"
    if exp in ("experts", "linear_loss") and x == "T":
        return "sanity"
    if exp == "private_erm" and y == "excess_loss":
        return "sanity"
    if exp == "private_erm" and y == "pop_excess_loss" and get("bound_kind") != "bound":
        return "sanity"
    return "prediction"


def with_roles(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its ``role`` column filled (:func:`role_of`) where it is missing."""
    if table.empty:
        return table.assign(role=pd.Series(dtype=object)) if "role" not in table else table
    table = table.copy()
    have = table["role"] if "role" in table else pd.Series(None, index=table.index, dtype=object)
    table["role"] = [r if isinstance(r, str) and r in ROLES else role_of(row) for r, (_, row) in zip(have, table.iterrows())]
    return table
