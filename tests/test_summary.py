"""dpbench.reporting.summary and `dpbench readme`: the theory-vs-practice table, its README block, and the
command that writes it (or fails when the README differs)."""

from __future__ import annotations

import pandas as pd
import pytest

from dpbench.cli import main
from dpbench.reporting.summary import (
    BEGIN,
    END,
    SUMMARY_COLUMNS,
    ReadmeError,
    replace_section,
    results_section,
    summary_table,
    where_source_winnow_learns,
)
from dpbench.theory_check.analysis import THEORY_COLUMNS, theory_row


def _theory() -> pd.DataFrame:
    rows = [
        theory_row(experiment="conjunctions", learner="exp_mech_erm", regime="n*(alpha=0.01) vs epsilon; theory: exp. mech., derived",
                   x="epsilon", y="n_star", fitted_slope=-0.84, slope_ci_low=-1.06, slope_ci_high=-0.74, theory_exponent=-0.48,
                   n_points=6, status="ok", verdict="steeper", x_min=0.03, x_max=10, reps=10, bound_ratio=0.035),
        theory_row(experiment="conjunctions", learner="exp_mech_erm",
                   regime="n*(alpha=0.01) vs epsilon; theory: exp. mech., course notes' stated 8 ln|C|/(α min(α, ε))",
                   x="epsilon", y="n_star", fitted_slope=-0.84, slope_ci_low=-1.06, slope_ci_high=-0.74, theory_exponent=0.0,
                   n_points=6, status="ok", verdict="steeper", x_min=0.03, x_max=10, reps=10, bound_ratio=0.007),
        theory_row(experiment="conjunctions", learner="elimination", regime="ε = ∞, theory: Occam", x="n", y="error",
                   fitted_slope=-1.07, slope_ci_low=-1.27, slope_ci_high=-0.9, theory_exponent=-1.0, n_points=12,
                   status="ok", verdict="agrees", x_min=16, x_max=32768, reps=10, bound_ratio=0.18),
        theory_row(experiment="conjunctions", learner="decision_tree", regime="ε = ∞", x="n", y="error", status="too_few_points",
                   verdict="too_few_points", n_points=2, reps=10),
        theory_row(experiment="private_erm", learner="dp_gd", regime="d = 10", x="n", y="fit_seconds", fitted_slope=0.6,
                   slope_ci_low=0.5, slope_ci_high=0.7, theory_exponent=1.0, status="ok", verdict="shallower", n_points=6, reps=10),
        theory_row(experiment="conjunctions", learner="private_sq_conjunction", regime="ε = 1", x="n", y="error",
                   status="too_few_points", verdict="floor", n_points=2, reps=10, floor_level=8.84e-4, x_min=32768, x_max=65536),
    ]
    return pd.DataFrame(rows, columns=THEORY_COLUMNS)


def test_summary_rows_sources_and_exclusions():
    table = summary_table(_theory())
    assert list(table.columns) == SUMMARY_COLUMNS
    assert set(table["learner"]) == {"exp_mech_erm", "elimination", "private_sq_conjunction"}  # no reference learner, no timing
    stated = table[table["source"].str.contains("course notes")]
    assert len(stated) == 1 and stated["verdict"].iloc[0] == "steeper"
    assert "Kasiviswanathan" in table.loc[table["predicted_exponent"] == -0.48, "source"].iloc[0]
    floor = table[table["verdict"] == "floor"].iloc[0]
    assert "floor 0.000884" in floor["where"]


def test_results_section_names_a_stated_formula_only_when_the_data_contradict_it():
    """exp_mech_erm's n* falls faster in ε than both sufficient sample sizes say, at 0.035 and
    0.007 of them: the bounds hold, so neither is a contradiction (issue 29). The same stated
    formula with an n* above it (violated) is named as contradicted."""
    text = results_section(summary_table(_theory()))
    assert "A stated formula the data contradict" not in text
    assert "contradict the theorem**: nowhere" in text
    _, _, differs = text.partition("steeper or shallower than an upper bound's exponent")
    assert "course notes" in differs and "| 0.0072 |" in differs or "0.007" in differs
    assert "| elimination | error vs n | 1 | -1.00 | -1.07 | 0.18 |" in text
    assert "fit_seconds" not in text  # timings stay out of the generated numbers
    bad = _theory()
    stated = bad["regime"].str.contains("stated")
    bad.loc[stated, ["verdict", "cells", "cells_above_bound", "bound_ratio", "bound_kind"]] = ["violated", 6, 2, 1.4, "bound"]
    text = results_section(summary_table(bad))
    assert "A stated formula the data contradict" in text and "predicts 0.00 — violated" in text


def test_replace_section_and_missing_markers():
    readme = f"intro\n{BEGIN}\nold\n{END}\nrest\n"
    assert replace_section(readme, "new\n") == f"intro\n{BEGIN}\nnew\n{END}\nrest\n"
    with pytest.raises(ReadmeError):
        replace_section("no markers", "x\n")


def test_dpbench_readme_writes_checks_and_fails(tmp_path, capsys):
    results = tmp_path / "results"
    (results / "theory").mkdir(parents=True)
    summary_table(_theory()).to_csv(results / "theory" / "summary.csv", index=False)
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n{BEGIN}\nstale\n{END}\n")
    args = ["readme", "--results", str(results), "--readme", str(readme)]
    assert main([*args, "--check"]) == 1  # differs: fails
    assert main(args) == 0
    assert "Where the data contradict the theorem" in readme.read_text() and "stale" not in readme.read_text()
    assert main([*args, "--check"]) == 0
    capsys.readouterr()
    readme.write_text("# no markers\n")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--readme" in err and "markers" in err
    assert main(["readme", "--results", str(tmp_path / "none"), "--readme", str(readme)]) == 2


def test_dpbench_readme_writes_and_checks_the_privacy_docs_audit_table(tmp_path):
    from dpbench.reporting.audit_table import BEGIN as A_BEGIN
    from dpbench.reporting.audit_table import END as A_END

    results = tmp_path / "results"
    (results / "theory").mkdir(parents=True)
    summary_table(_theory()).to_csv(results / "theory" / "summary.csv", index=False)
    pd.DataFrame([{"learner": "laplace", "variant": v, "epsilon_claimed": 1.0, "delta_claimed": 0.0, "epsilon_lower_bound": b,
                   "epsilon_exact": e, "tightness": b / e, "verdict": "pass", "audit": "mechanism", "method": "threshold",
                   "runs": 1000, "note": "bound short" if v == "correct" else "broken: noise halved"}  # fmt: skip
                  for v, b, e in (("correct", 0.9, 1.0), ("broken", 1.9, 2.0))]).to_csv(results / "theory" / "privacy_audit.csv", index=False)
    readme, doc = tmp_path / "README.md", tmp_path / "privacy.md"
    readme.write_text(f"{BEGIN}\n{END}\n")
    doc.write_text(f"# audits\n{A_BEGIN}\nstale\n{A_END}\n")
    args = ["readme", "--results", str(results), "--readme", str(readme), "--privacy-doc", str(doc)]
    main(args)
    assert main([*args, "--check"]) == 0
    assert "| `laplace` | mechanism | broken | 1 | 0 | 1.9 (threshold) | 2 | 0.95 | pass | 1,000 |" in doc.read_text()
    assert "- `laplace` (mechanism): bound short" in doc.read_text() and "noise halved" not in doc.read_text()  # correct rows' notes
    doc.write_text(f"# audits\n{A_BEGIN}\nstale\n{A_END}\n")
    assert main([*args, "--check"]) == 1  # a stale table fails the check


def test_a_bound_that_holds_with_another_exponent_is_no_contradiction():
    """winnow's final mistakes grow faster in ln N than its bound's exponent (steeper) with no
    cell above the bound, and an experts rate is shallower than an upper bound's shape: both
    are listed as 'steeper or shallower than an upper bound's exponent', not under
    'contradict'. A cell above a proven bound (violated), or a rate stated as tight whose
    interval excludes it, is a contradiction, in either role."""
    from dpbench.reporting.summary import contradictions

    common = dict(experiment="halfspaces_online", x="ln_N", y="mistakes", slope_ci_low=1.3, slope_ci_high=1.5, fitted_slope=1.4,
                  theory_exponent=1.0, n_points=4, status="ok", verdict="steeper", x_min=2, x_max=6, reps=10)
    rows = [theory_row(learner="winnow", regime="holds", bound_kind="bound", cells=4, cells_above_bound=0, bound_ratio=0.2, **common),
            theory_row(learner="perceptron", regime="violated", bound_kind="bound", cells=4, cells_above_bound=2, bound_ratio=1.3,
                       **{**common, "verdict": "violated", "slope_ci_low": 0.95, "slope_ci_high": 1.05})]
    rate = theory_row(experiment="experts", learner="rwm", regime="rate", x="epsilon", y="regret", bound_kind="shape", fitted_slope=-0.2,
                      slope_ci_low=-0.3, slope_ci_high=-0.1, theory_exponent=-0.5, n_points=6, status="ok", verdict="shallower", reps=10)
    tight = theory_row(experiment="experts", learner="ftl", regime="trap", x="T", y="regret", bound_kind="shape", fitted_slope=-0.3,
                       slope_ci_low=-0.35, slope_ci_high=-0.25, theory_exponent=0.0, n_points=4, status="ok", verdict="steeper",
                       reps=10, claim="tight")
    table = summary_table(pd.DataFrame([*rows, rate, tight], columns=THEORY_COLUMNS))
    contra, differs = contradictions(table)
    assert set(contra["learner"]) == {"perceptron", "ftl"} and set(differs["learner"]) == {"winnow", "rwm"}
    text = results_section(table)
    contra_text, _, differs_text = text.partition("than an upper bound's exponent**")
    assert "| winnow |" in differs_text and "| winnow |" not in contra_text and "| rwm |" in differs_text
    assert "| perceptron |" in contra_text and "2 cell(s) above the bound" in contra_text
    assert "| ftl |" in contra_text and "Where the data contradict the theorem" in contra_text
    assert table.loc[table["learner"] == "ftl", "role"].iloc[0] == "sanity"  # regret vs T: fixed by η ∝ T^−½ / the instance
    assert table.loc[table["learner"] == "winnow", "role"].iloc[0] == "prediction"


def test_a_run_of_the_privacy_audit_alone_has_an_empty_summary(tmp_path):
    """The privacy audit's table has verdicts but no curve (no ``y``): not read as a theory
    check, so a config with only the audit writes an empty summary instead of failing."""
    from dpbench.reporting.summary import write_summary

    audit_csv = tmp_path / "privacy_audit.csv"
    pd.DataFrame([{"learner": "laplace", "variant": "correct", "verdict": "pass", "note": ""}]).to_csv(audit_csv, index=False)
    table = write_summary([audit_csv], tmp_path / "summary.csv")
    assert table.empty and (tmp_path / "summary.csv").exists()


def test_where_the_source_winnow_learns_is_read_from_its_epsilon_rows():
    """The README paragraph names the lowest ε of each decided dp_winnow ε-row's regime, says
    'at chance' for an at-chance row and claims nothing for a vacuous one (where a regime at
    N = 2 can be a random coordinate's ¼ mistakes per round); other learners' rows are ignored."""
    def row(learner, verdict, x_min, d):
        regime = f"final mistakes vs ε (halfspace, d = {d}, |F| = {d}, T = 10000000); theory: the calibrated bound"
        return theory_row(experiment="halfspaces_online", learner=learner, regime=regime, x="epsilon", y="mistakes",
                          verdict=verdict, x_min=x_min)
    table = pd.DataFrame([row("dp_winnow", "agrees", 20.0, 2), row("dp_winnow", "at_chance", float("nan"), 8),
                          row("dp_winnow", "vacuous_bound", 0.1, 32), row("dp_winnow_batched", "agrees", 0.03, 2)],
                         columns=THEORY_COLUMNS)
    text = where_source_winnow_learns(table)
    assert "d = 2, |F| = 2, T = 10,000,000: from ε = 20;" in text
    assert "d = 8, |F| = 8, T = 10,000,000: at chance at every ε of the grid" in text
    assert "d = 32, |F| = 32, T = 10,000,000: undecided (vacuous_bound)" in text and "0.03" not in text
    assert "no privacy in any useful sense" in text  # 20 > MEANINGFUL_EPSILON
    low = where_source_winnow_learns(table.assign(x_min=table["x_min"].where(table["x_min"] != 20.0, 3.0)))
    assert "from ε = 3;" in low and "no privacy" not in low
    assert where_source_winnow_learns(table[table["learner"] != "dp_winnow"]) == ""
