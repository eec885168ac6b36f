"""Theory vs practice: one table over every experiment's theory check, and the README's
generated results section.

:func:`summary_table` turns the theory-check rows of every experiment
(``results/theory/{experiment}.csv``) into ``results/theory/summary.csv``, one row per
(source theorem, learner, regime) with the columns of :data:`SUMMARY_COLUMNS`: the source
(full reference) and theorem, the predicted and measured exponent with its 95 % interval,
the verdict (:mod:`dpbench.theory_check.verdict`), the constant-factor gap ``bound_ratio`` (largest
empirical/bound ratio in the regime; for n*, empirical n* over the theorem's n*) and where
it was measured, what the formula claims (``claim``: upper bound, tight rate, lower bound) and
the row's ``role`` (:mod:`dpbench.theory_check.roles`: ``prediction`` rows test what a theorem
predicts and are the ones counted; ``sanity`` rows, whose exponent the setup fixes, are kept
and labelled). Rows without a theory (reference learners) and timing rows (machine-
dependent) are left out. A row *contradicts* its theorem only by
:func:`dpbench.theory_check.verdict.contradicts`: a cell above a proven bound, or a tight rate
that the interval excludes.

:func:`results_section` renders the table as the Markdown block between
:data:`BEGIN` and :data:`END` in README.md; ``dpbench readme`` writes it from a run's
results (``--check`` fails when the README differs), and a test keeps the README equal to
the default run's output.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from dpbench.foundation.results import atomic_write, write_text
from dpbench.reporting.counts import verdict_counts
from dpbench.reporting.report_tables import page_html, summary_view
from dpbench.theory import MEANINGFUL_EPSILON
from dpbench.theory_check.roles import role_of
from dpbench.theory_check.verdict import contradicts

SUMMARY_COLUMNS = [
    "source",
    "theorem",
    "learner",
    "experiment",
    "regime",
    "predicted_exponent",
    "measured_exponent",
    "ci_low",
    "ci_high",
    "verdict",
    "bound_ratio",
    "where",
    "x",
    "y",
    "reps",
    "bound_kind",
    "cells_above_bound",
    "claim",
    "role",
]

BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"

# --------------------------------------------------------------------------- sources

#: Said of a private-ERM learner whose population rows are judged against a bound with constants.
_POP = "; its expected excess population risk, bound with constants (derived here)"

DR14 = "Dwork & Roth, The Algorithmic Foundations of Differential Privacy, Found. Trends Theor. Comput. Sci. 9(3–4), 2014"
BF26 = "Bun & Fang, Privately Learning Decision Lists and a Differentially Private Winnow, arXiv:2602.07370, 2026"
KLNRS = "Kasiviswanathan, Lee, Nissim, Raskhodnikova & Smith, What Can We Learn Privately?, SIAM J. Comput. 40(3), 2011"
NOTES = "course notes 'Private and probably approximately correct' / 'Online learning with experts' (anonymous)"
OCCAM = "Blumer, Ehrenfeucht, Haussler & Warmuth, Occam's Razor, Inf. Process. Lett. 24(6), 1987"
CMS11 = "Chaudhuri, Monteleoni & Sarwate, Differentially Private Empirical Risk Minimization, JMLR 12, 2011"
BST14 = "Bassily, Smith & Thakurta, Private Empirical Risk Minimization: Efficient Algorithms and Tight Error Bounds, FOCS 2014"
SOURCES = {
    ("conjunctions", "elimination"): (OCCAM, "Occam bound (ln|C| + ln 1/β)/n for a consistent learner"),
    ("conjunctions", "erm"): (OCCAM, "Occam bound (ln|C| + ln 1/β)/n for a consistent learner"),
    ("conjunctions", "exp_mech_erm"): (KLNRS, "exponential-mechanism learner, realizable bound (derived here: multiplicative Chernoff step)"),
    ("conjunctions", "sq_conjunction"): ("Kearns, Efficient Noise-Tolerant Learning from Statistical Queries, J. ACM 45(6), 1998", "SQ learner as run, bound with constants (derived here)"),
    ("conjunctions", "private_sq_conjunction"): ("Blum, Dwork, McSherry & Nissim, Practical Privacy: The SuLQ Framework, PODS 2005", "Laplace-noised SQ learner as run, bound with constants (derived here)"),
    ("decision_lists", "rivest"): ("Rivest, Learning Decision Lists, Machine Learning 2(3), 1987", "Occam bound (ln|C| + ln 1/β)/n"),
    ("decision_lists", "erm"): (OCCAM, "Occam bound (ln|C| + ln 1/β)/n for a consistent learner"),
    ("decision_lists", "exp_mech_erm"): (KLNRS, "exponential-mechanism learner, realizable bound (derived here: multiplicative Chernoff step)"),
    ("decision_lists", "privdl"): (BF26, "Lemma A.4 at the set-cover λ, summed over rounds (privdl as run, derived here)"),
    ("decision_lists", "privdl_composition"): (BF26, "Lemma A.4 at the per-round budget from composition, summed over rounds (derived here)"),
    ("halfspaces_online", "perceptron"): ("Novikoff, On Convergence Proofs on Perceptrons, 1962", "mistake bound N/ρ²"),
    ("halfspaces_online", "winnow"): ("Littlestone, Learning Quickly When Irrelevant Attributes Abound, Machine Learning 2(4), 1988", "mistake bound ln N/(ηρ − η²/2)"),
    ("halfspaces_online", "confident_winnow"): (BF26, "Lemma 4.2: ≤ 8 ln N/ρ² updates (constants derived by the potential argument)"),
    ("experts", "rwm"): (DR14, "Theorem 11.1: regret ≤ η + ln k/(ηT)"),
    ("experts", "private_rwm"): (DR14, "Theorems 11.1–11.2: regret of private RWM at its calibrated η"),
    ("experts", "private_rwm_tight"): (DR14, "Theorem 11.1 at the η calibrated by an RDP accountant (this project's variant)"),
    ("experts", "private_mw_001"): (NOTES, "Thm 2 regret at the step α = √(ε/(12T)) of Thm 3"),
    ("experts", "ftl"): ("Cesa-Bianchi & Lugosi, Prediction, Learning, and Games, 2006", "follow the leader has linear regret on the alternating trap"),
    ("experts", "sv_experts"): (DR14, "§3.6 AboveThreshold's Laplace tails: realizable regret < 2Λ/T "
                                "w.p. ≥ 1 − p, bound with constants (derived here)"),
    ("linear_loss", "linear_learner"): (DR14, "Theorems 11.5–11.6: LinearLearner's online-to-batch excess-loss bound"),
    ("private_erm", "output_perturbation"): (CMS11, "output perturbation: excess-risk bound; its expected excess population risk, bound with constants (derived here)"),
    ("private_erm", "objective_perturbation"): (CMS11, "objective perturbation, excess-risk bound" + _POP),
    ("private_erm", "diffprivlib_logreg"): (CMS11, "objective perturbation, excess-risk bound (diffprivlib's implementation)"
                                                   + _POP),
    ("private_erm", "dp_gd"): (BST14, "excess risk d·ln(1/δ)/(λn²ε²), unit constants (shape)" + _POP
                               + " at the zCDP noise of ε"),
    ("private_erm", "dp_sgd"): (BST14, "excess risk d·ln(1/δ)/(λn²ε²), unit constants (shape)" + _POP
                                + " at its calibrated noise"),
    ("private_erm", "exp_mech_grid"): ("McSherry & Talwar, Mechanism Design via Differential Privacy, FOCS 2007",
                                       "exponential mechanism over a grid, excess risk ∝ 1/(nε) (shape)" + _POP),
}


def attribution(row: pd.Series) -> tuple[str, str] | None:
    """``(source, theorem)`` of a theory-check row, or None (no theorem: reference learners)."""
    exp, learner, regime = str(row["experiment"]), str(row["learner"]), str(row["regime"])
    if "finite-class bound" in regime:  # a consistent learner's n*(α) against |C|(1−α)ⁿ ≤ β
        return OCCAM, "finite-class bound: n* ≤ (ln|C| + ln 1/β)/ln(1/(1−α)), from |C|(1−α)ⁿ ≤ β (Thm 1's union bound)"
    if "course notes' stated" in regime:  # the course notes' stated formula, beside the derived bound
        return NOTES, "§1 stated sample complexity n ≥ 8 ln|C|/(α·min(α, ε))"
    if exp == "halfspaces_online" and learner.startswith("dp_winnow"):
        if "ε = ∞" in regime:  # DP-Winnow at ε = ∞ is ConfidentWinnow
            return SOURCES[("halfspaces_online", "confident_winnow")]
        return BF26, "calibrated mistake bound (M+1)(2L−B+1) of the run (proof of Theorem 4.5 with the run's constants)"
    return SOURCES.get((exp, learner))


def _where(row: pd.Series) -> str:
    x = str(row["x"])
    reps = "" if pd.isna(row.get("reps")) else f", {int(row['reps'])} reps"
    if pd.notna(row["x_min"]) and pd.notna(row["x_max"]):
        text = f"{x} ∈ [{_num(row['x_min'])}, {_num(row['x_max'])}], {int(row['n_points'])} points{reps}"
    else:
        text = f"{x}: no regime{reps}"
    if pd.notna(row.get("floor_level")):
        text += f"; floor {float(row['floor_level']):.3g}"
    return text


def _num(v: float) -> str:
    v = float(v)
    return f"{v:.0f}" if v >= 100 and v == round(v) else f"{v:.3g}"


def summary_table(theory: pd.DataFrame) -> pd.DataFrame:
    """The summary rows of a concatenation of theory-check tables (module doc)."""
    out = []
    for _, row in theory.iterrows():
        if "verdict" not in row or row["y"] == "fit_seconds" or row["verdict"] in ("no_theory", None) or pd.isna(row["verdict"]):
            continue
        if row.get("status") == "no_points":
            continue
        source = attribution(row)
        if source is None:
            continue

        role = row.get("role") if isinstance(row.get("role"), str) else role_of(row)
        claim = row.get("claim") if isinstance(row.get("claim"), str) else "upper"
        out.append({
            "source": source[0], "theorem": source[1], "learner": row["learner"], "experiment": row["experiment"],
            "regime": row["regime"], "predicted_exponent": row["theory_exponent"], "measured_exponent": row["fitted_slope"],
            "ci_low": row["slope_ci_low"], "ci_high": row["slope_ci_high"], "verdict": row["verdict"],
            "bound_ratio": row["bound_ratio"], "where": _where(row), "x": row["x"], "y": row["y"], "reps": row.get("reps"),
            "bound_kind": row.get("bound_kind"), "cells_above_bound": row.get("cells_above_bound"),
            "claim": claim, "role": role,
        })
    table = pd.DataFrame(out, columns=SUMMARY_COLUMNS)  # experiments alphabetically: independent of the config's order
    return table.sort_values("experiment", kind="stable").reset_index(drop=True)


def read_theory(paths) -> pd.DataFrame:
    """Every theory-check CSV in ``paths`` that has ``verdict`` and ``y`` columns (the privacy
    audit's table, verdicts without a curve, is another kind), concatenated in the given order."""
    frames = [pd.read_csv(p) for p in paths]
    frames = [f for f in frames if "verdict" in f.columns and "y" in f.columns]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["verdict"])


def write_summary(theory_csvs, out_csv: str | Path, out_html: str | Path | None = None) -> pd.DataFrame:
    """``results/theory/summary.csv`` (and its report page) from the experiments' theory CSVs."""

    table = summary_table(read_theory(theory_csvs))
    atomic_write(Path(out_csv), lambda tmp: table.to_csv(tmp, index=False, float_format="%.6g"))
    if out_html is not None:
        write_text(Path(out_html), summary_html(table))
    return table


def summary_html(table: pd.DataFrame) -> str:
    """The report page of the summary: verdict counts, then every row, verdict first and
    coloured (:func:`dpbench.reporting.report_tables.page_html`)."""
    import html


    counts = verdict_counts(table)
    counted = ", ".join(f"{v}: {int(n)}" for v, n in counts.loc["all"].items() if n) if len(counts) else "none"
    n_sanity = int((table["role"] == "sanity").sum()) if "role" in table else 0
    intro = ("<p>One row per (source theorem, learner, regime). Counted — the <code>prediction</code> rows (what a theorem "
             f"predicts about ε, |C|, |F|, N, ρ, k, d or n, and its constant): {html.escape(counted)}. The {n_sanity} "
             "<code>sanity</code> rows (an exponent the calibration, a finite mistake count or the instance fixes) follow, "
             "labelled, not counted. verdict: agrees = the 95% studentised bootstrap interval (the regime chosen in every "
             "resample) overlaps the predicted exponent ± 0.1 and is at most 0.5 wide, the estimate within 0.25; steeper / "
             "shallower = it excludes it (a contradiction only for a rate stated as tight); bound_holds / violated = a proven "
             "bound checked at every cell; shape_only = the theory is a reconstruction whose constants were lost (never "
             "agrees); bound_ratio = largest empirical/bound ratio in the regime (n*: empirical n* over the theorem's). "
             "Rules: docs/theory-check.md.</p>")
    if "role" in table:
        table = table.sort_values("role", kind="stable")  # prediction before sanity
    return page_html(summary_view(table), "Theory vs practice: every measured exponent against its theorem", intro, hidden=())


def predictions(table: pd.DataFrame) -> pd.DataFrame:
    """The ``prediction`` rows of a summary table (all rows of a table without roles)."""
    return table[table["role"] == "prediction"] if "role" in table else table


# --------------------------------------------------------------------------- README block


def _ci(row) -> str:
    m = row["measured_exponent"]
    if pd.isna(m):
        return "—"
    if pd.isna(row["ci_low"]):
        return f"{m:.2f}"
    return f"{m:.2f} [{row['ci_low']:.2f}, {row['ci_high']:.2f}]"


def _pred(v) -> str:
    return "—" if pd.isna(v) else f"{v:.2f}"


def _ratio(v) -> str:
    return "—" if pd.isna(v) else f"{v:.2g}"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def _short(regime: str) -> str:
    """A regime without the theory's label (the theorem column names it)."""
    return re.split(r"[,;] theory: ", str(regime))[0]


_NAMES = {"n_star": "n*", "n_features": "|F|", "epsilon": "ε", "mistake_rate": "mistakes/t", "ln_N": "ln N"}


def _quantity(r) -> str:
    """``"error vs n"``, ``"n* vs ε"``: what was fitted against what."""
    return f"{_NAMES.get(r['y'], r['y'])} vs {_NAMES.get(r['x'], r['x'])}"


def _range_text(values: pd.Series, fmt: str = ".2f") -> str:
    values = values.dropna()
    if values.empty:
        return "—"
    lo, hi = values.min(), values.max()
    return f"{lo:{fmt}}" if f"{lo:{fmt}}" == f"{hi:{fmt}}" else f"{lo:{fmt}} to {hi:{fmt}}"


def _is_bound(table: pd.DataFrame) -> pd.Series:
    kind = table["bound_kind"] if "bound_kind" in table else pd.Series("", index=table.index)
    return kind.eq("bound")


def contradictions(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(contradicts, differs)`` rows of a summary table. *Contradicts*
    (:func:`dpbench.theory_check.verdict.contradicts`): a cell above a proven bound
    (``violated``), or a theorem stating a tight rate whose exponent ± 0.1 the interval
    excludes — in any role. *Differs*: a ``prediction`` row whose slope is steeper or
    shallower than an upper bound's exponent (proven or a shape) — a description, since an
    upper bound's exponent is not the typical rate."""

    claim = table["claim"] if "claim" in table else pd.Series("upper", index=table.index)
    bad = pd.Series([contradicts(v, c) for v, c in zip(table["verdict"], claim)], index=table.index, dtype=bool)
    excluded = table["verdict"].isin(["steeper", "shallower"])
    role = table["role"] if "role" in table else pd.Series("prediction", index=table.index)
    return table[bad], table[excluded & ~bad & (role == "prediction")]


def results_section(table: pd.DataFrame) -> str:
    """The README's generated results section (Markdown, without the markers): verdict
    counts; every row that contradicts its theorem (:func:`contradictions`; and, by name,
    every stated formula the data contradict), then the bounds that hold while the slope
    differs from their exponent; the rows that agree, are shape comparisons or are
    inconclusive, grouped by theorem and learner with the range of their estimates and
    bound ratios. Only numbers from ``table`` (no timings)."""
    lines = [
        "<!-- generated by `dpbench readme` from the default run's results/theory/summary.csv: do not edit by hand -->",
        "",
        "One row of `results/theory/summary.csv` per (source theorem, learner, regime); the rules behind each verdict "
        "(regime, floor, at-chance, bootstrap) are in [docs/theory-check.md](docs/theory-check.md). Exponents are "
        "log–log slopes; intervals are 95 % bootstraps over repetitions with the regime chosen inside every resample; "
        "bound ratio = largest empirical/bound ratio in the regime (< 1: the bound holds; for n*, empirical n* over the "
        "theorem's n*).",
        "",
    ]
    counts = verdict_counts(table)
    sanity = table[table["role"] == "sanity"] if "role" in table else table.iloc[:0]
    lines += [f"Counted: the {int(counts.loc['all'].sum()) if len(counts) else 0} `prediction` rows — the dependence a theorem "
              "claims on ε, |C|, |F|, N, ρ, k, d or n, and its constant through the bound ratio. The "
              f"{len(sanity)} `sanity` rows, whose exponent the calibration, a finite mistake count or the instance fixes "
              "in advance (mistakes/t against t, regret against T at η ∝ T^−½, the fair-coin lower-bound check, private "
              "ERM's excess loss, on the training objective ∝ (nε)⁻² and on the population that term plus the ε-free "
              "generalisation gap, except the population risk judged against a bound with its constants — every "
              "private learner's, dp_sgd's against ε only), are in the CSVs, labelled, and not counted.", ""]
    lines += ["| experiment | " + " | ".join(counts.columns) + " |", "|---|" + "---|" * len(counts.columns)]
    for exp, row in counts.iterrows():
        lines.append(f"| {exp} | " + " | ".join(str(int(v)) for v in row) + " |")
    lines.append("")

    contradicts, differs = contradictions(table)
    stated = contradicts[contradicts["theorem"].str.contains("stated", regex=False)]
    for _, r in stated.iterrows():
        others = table[(table["experiment"] == r["experiment"]) & (table["learner"] == r["learner"]) & (table["y"] == r["y"])
                       & (table["x"] == r["x"]) & (table.index != r.name)]
        beside = "".join(f"; {o['theorem']} predicts {_pred(o['predicted_exponent'])} ({o['verdict']})" for _, o in others.iterrows())
        lines += [f"**A stated formula the data contradict.** {r['learner']} ({r['experiment']}, {_short(r['regime'])}): measured "
                  f"{_ci(r)} where the {r['source']}, {r['theorem']}, predicts {_pred(r['predicted_exponent'])} — "
                  f"{r['verdict']}{beside}.", ""]

    def listed(title: str, rows: pd.DataFrame, suffix: str = "") -> None:
        if rows.empty:
            return
        lines.extend([title, "", "| learner | quantity | where | theorem | predicted | measured [95 % CI] | verdict | bound ratio |",
                      "|---|---|---|---|---|---|---|---|"])
        for _, r in rows.iterrows():
            above = r.get("cells_above_bound")
            verdict = f"{r['verdict']}{suffix}" + (f"; {int(above)} cell(s) above the bound" if pd.notna(above) and above > 0 else "")
            cells = [r["learner"], _quantity(r), f"{r['experiment']}: {_short(r['regime'])}", r["theorem"], _pred(r["predicted_exponent"]),
                     _ci(r), verdict, _ratio(r["bound_ratio"])]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        lines.append("")

    if contradicts.empty:
        lines += ["**Where the data contradict the theorem**: nowhere — no cell lies above a proven bound, and no tight "
                  "rate is excluded by its interval.", ""]
    listed("**Where the data contradict the theorem** (a cell above a proven bound, or a rate the theorem states as "
           "tight whose exponent ± 0.1 the interval excludes):", contradicts)
    listed("**Where the slope is steeper or shallower than an upper bound's exponent** (no contradiction: the data sit "
           "below the bound where it has constants — bound ratio < 1 — and an upper bound's exponent is not the typical "
           "rate):", differs)
    table = predictions(table)

    def grouped(title: str, rows: pd.DataFrame) -> None:
        if rows.empty:
            return
        lines.extend([title, "", "| theorem | learner | quantity | rows | predicted | measured (point estimates) | bound ratio |",
                      "|---|---|---|---|---|---|---|"])
        rows = rows.assign(quantity=[_quantity(r) for _, r in rows.iterrows()])
        for (theorem, learner, quantity), g in rows.groupby(["theorem", "learner", "quantity"], sort=True):
            cells = [theorem, learner, quantity, str(len(g)), _range_text(g["predicted_exponent"]), _range_text(g["measured_exponent"]),
                     _range_text(g["bound_ratio"], ".2g")]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        lines.append("")

    grouped("**Where the data agree with the theorem** (interval within 0.5, overlapping the exponent ± 0.1, estimate within 0.25):",
            table[table["verdict"] == "agrees"])
    grouped("**Where a proven bound holds and the slope decides nothing more** (too few points or repetitions for a slope, "
            "or an interval that neither agrees with nor excludes the bound's exponent):", table[table["verdict"] == "bound_holds"])
    grouped("**Where the curve sits on, or is approaching, a floor** (fewer than 3 points above it):", table[table["verdict"] == "floor"])
    grouped("**Inconclusive** (the interval overlaps the prediction but is wider than 0.5, or the estimate is more than 0.25 away):", table[table["verdict"] == "inconclusive"])
    grouped("**Shape comparisons with reconstructed rates** (the source's constants are lost: never `agrees`):",
            table[table["verdict"] == "shape_only"])
    return "\n".join(lines).rstrip() + "\n"


class ReadmeError(ValueError):
    """A README without the generated section's markers."""


def replace_section(readme: str, section: str, begin: str = BEGIN, end: str = END) -> str:
    """``readme`` with the text between ``begin`` and ``end`` (default: the results
    markers) replaced by ``section``."""
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(readme):
        raise ReadmeError(f"no '{begin}' … '{end}' markers")
    return pattern.sub(lambda _: f"{begin}\n{section}{end}", readme, count=1)


def where_source_winnow_learns(theory: pd.DataFrame) -> str:
    """One Markdown paragraph (empty without such rows): per stream, the ε from which DP-Winnow
    as the source wrote it (``dp_winnow``) learns — the lower end ``x_min`` of the fitted regime
    of its final-mistakes-vs-ε row in the experiment's theory CSV (``theory``: the grid values at
    which its mean final mistakes are at most half the trivial predictor's), or that it has no
    such regime on the run's grid, or that the row is undecided (``vacuous_bound``: at N = 2 a predictor on a
    random coordinate errs on ¼ of the rounds, half the trivial ½, so a regime there need not mean learning)."""
    rows = theory[(theory["learner"] == "dp_winnow") & (theory["x"] == "epsilon")] if len(theory) else theory
    if rows.empty:
        return ""
    parts = []
    for _, r in rows.iterrows():
        found = re.search(r"\((.*?), T = (\d+)\)", str(r["regime"]))
        setting = f"{found.group(1)}, T = {int(found.group(2)):,}" if found else str(r["regime"])
        if r["verdict"] == "at_chance":
            parts.append(f"{setting}: at chance at every ε of the grid")
        elif r["verdict"] == "vacuous_bound" or pd.isna(r["x_min"]):  # undecided: no claim that it learns
            parts.append(f"{setting}: undecided ({r['verdict']})")
        else:
            parts.append(f"{setting}: from ε = {r['x_min']:g}")
    starts = rows.loc[~rows["verdict"].isin(["at_chance", "vacuous_bound"]), "x_min"].dropna()
    above = (f" Above ε = {MEANINGFUL_EPSILON:g} a guarantee is no privacy in any useful sense (an output may be "
             "e^ε times likelier on one stream than on its neighbour)." if (starts > MEANINGFUL_EPSILON).any() else "")
    return ("\n**Where DP-Winnow as the source wrote it learns** (`dp_winnow`, Bun & Fang's Algorithm 4.2 with "
            "its one-example update; the lowest ε of the fitted regime of its final mistakes against ε, where the "
            "mean is at most half the trivial predictor's): " + "; ".join(parts) + "." + above + "\n\n")


def readme_section(results_dir: str | Path) -> str:
    """The generated section from a run's ``results/theory/summary.csv`` (and, for the paragraph
    of :func:`where_source_winnow_learns`, ``results/theory/halfspaces_online.csv``)."""
    path = Path(results_dir) / "theory" / "summary.csv"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no summary (run the workflow first)")
    online = Path(results_dir) / "theory" / "halfspaces_online.csv"
    winnow = where_source_winnow_learns(pd.read_csv(online)) if online.exists() else ""
    return results_section(pd.read_csv(path)) + winnow
