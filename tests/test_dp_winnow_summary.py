"""docs/learners-dp-winnow.md: its generated table is what the default grid gives (cells of
config/config.yaml re-run here; results are bit-identical), and its statements follow from
the table. Issue 18 item 6."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpbench.foundation.results import read_results
from dpbench.learners import dp_winnow_summary as S
from dpbench.orchestration.config import load

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "learners-dp-winnow.md"


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return S.parse(S.generated_block(DOC.read_text()))


def _rows(stream: str, learner: str, table: pd.DataFrame) -> pd.DataFrame:
    return table[(table["stream"] == stream) & (table["learner"] == learner)]


@pytest.mark.slow
def test_doc_rows_are_the_default_grids(table, default_run):
    """Two default-grid cells on the N = 8 stream — the source's rule at ε = 10 (it fires)
    and ours at ε = 0.1 (one repetition still errs late): 20 runs of 10⁶ rounds, read from
    the default run (tests/conftest.py, made once per session) — compared with the
    document's lines verbatim."""
    grid = load(ROOT / "config" / "config.yaml")
    cells = [c for c in grid.experiments["halfspaces_online"].cells
             if (c.learner, c.epsilon) in (("dp_winnow", 10.0), ("dp_winnow_batched", 0.1))
             and c.problem == "halfspace" and dict(c.problem_params).get("d") == 8]
    assert len(cells) == 2
    df = read_results(default_run / "results" / "halfspaces_online.parquet")
    rows = pd.concat([df[(df["problem_id"] == c.problem_id) & (df["learner"] == c.learner) & (df["epsilon"] == c.epsilon) & (df["T"] == c.size)]
                      for c in cells])
    assert sorted(rows.groupby(["learner", "epsilon"])["rep"].nunique()) == sorted(c.repetitions for c in cells)
    fresh = S.markdown(S.summary(rows)).splitlines()[2:]
    doc_lines = S.generated_block(DOC.read_text()).splitlines()
    assert len(fresh) == 2 and all(line in doc_lines for line in fresh), fresh


def test_statements_follow_from_the_table(table):
    halfspaces = ("halfspace N = 2, s = 1, ρ = 1", "halfspace N = 8, s = 1, ρ = 1")
    lists = [f"decision list l = {l} (N = 22)" for l in (1, 2, 3)]
    # the source's rule: 0.35–0.38 late on N = 8 at every ε; 0.43–0.59 on the lists
    src8 = _rows(halfspaces[1], "dp_winnow", table)
    assert len(src8) == 5 and src8["late_rate"].round(2).between(0.35, 0.38).all() and (src8["zero_late"] == 0).all()
    src_dl = table[table["stream"].isin(lists) & (table["learner"] == "dp_winnow")]
    assert len(src_dl) == 9 and (round(src_dl["late_rate"].min(), 2), round(src_dl["late_rate"].max(), 2)) == (0.43, 0.59)
    # N = 2: a coin flip before learning (8/10 error-free at ε = 0.1 without a firing; 2/10, 0/10 at ε = 3, 10)
    src2 = _rows(halfspaces[0], "dp_winnow", table).set_index("epsilon")["zero_late"]
    assert (src2[0.1], src2[3.0], src2[10.0]) == (8, 2, 0)
    assert _rows(halfspaces[1], "dp_winnow_batched", table).set_index("epsilon").loc[0.1, "zero_late"] == 9
    # ours: no late mistake on either halfspace except dp_winnow_batched at N = 8, ε = 0.1
    # (one repetition of 10); final mistakes ≈ 1/ε
    for learner in ("dp_winnow_batched", "dp_winnow_batched_tight"):
        for stream in halfspaces:
            r = _rows(stream, learner, table)
            erring = r.loc[r["late_rate"] > 0, "epsilon"].tolist()
            assert erring == ([0.1] if (learner, stream) == ("dp_winnow_batched", halfspaces[1]) else []), (learner, stream)
            slope = np.polyfit(np.log(r["epsilon"]), np.log(r["final_mistakes"]), 1)[0]
            assert -1.2 < slope < -0.7, (learner, stream, slope)
    # lists: where each of ours stops erring, and l = 3 at the majority label's 0.147
    learns = {("dp_winnow_batched", 1): 3.0, ("dp_winnow_batched", 2): 10.0, ("dp_winnow_batched_tight", 1): 1.0, ("dp_winnow_batched_tight", 2): 3.0}
    for (learner, l), start in learns.items():
        r = _rows(lists[l - 1], learner, table)
        assert (r.loc[r["epsilon"] >= start, "late_rate"] == 0).all() and (r.loc[r["epsilon"] < start, "late_rate"] > 0).all()
    l3 = table[(table["stream"] == lists[2]) & table["learner"].isin(["dp_winnow_batched", "dp_winnow_batched_tight"])]
    at_majority = l3["late_rate"].round(3) == 0.147
    assert at_majority.sum() == 5 and not at_majority[(l3["learner"] == "dp_winnow_batched_tight") & (l3["epsilon"] == 10.0)].any()


def test_late_rate_is_the_late_window():
    """Synthetic curve: 100 mistakes by t = 700 of T = 1000 and 30 more by T: late rate 0.1;
    a repetition without late mistakes counts as one; other learners are ignored."""
    def rows(learner, rep, m700, m1000):
        base = dict(learner=learner, status="ok", epsilon=1.0, T=1000, problem="halfspace", problem_id="p", n_features=8, s=1, rho=1.0, l=np.nan, rep=rep)
        return [dict(base, t=100, mistakes=50), dict(base, t=700, mistakes=m700), dict(base, t=1000, mistakes=m1000)]

    df = pd.DataFrame(rows("dp_winnow", 0, 100, 130) + rows("dp_winnow", 1, 100, 100) + rows("winnow", 0, 0, 900))
    t = S.summary(df)
    assert len(t) == 1 and t.loc[0, "late_rate"] == pytest.approx(0.05) and (t.loc[0, "late_min"], t.loc[0, "late_max"]) == (0, pytest.approx(0.1))
    assert t.loc[0, "zero_late"] == 1 and t.loc[0, "reps"] == 2 and t.loc[0, "final_mistakes"] == 115
    assert S.parse(S.markdown(t)).loc[0, "late_rate"] == pytest.approx(0.05)


def test_rewrite_replaces_only_the_block_and_refuses_a_document_without_one(tmp_path, capsys):
    doc = f"intro\n{S.BEGIN}\nold\n{S.END}\noutro\n"
    df = pd.DataFrame([dict(learner="dp_winnow", status="ok", epsilon=1.0, T=1000, problem="halfspace", problem_id="p", n_features=2, s=1,
                            rho=1.0, l=np.nan, rep=0, t=t, mistakes=m) for t, m in ((700, 10), (1000, 10))])
    new = S.rewrite(doc, S.summary(df))
    assert new.startswith("intro\n") and new.endswith("\noutro\n") and "old" not in new and "| `dp_winnow` | 1 | 0 [0, 0] | 1/1 |" in new
    results, bad = tmp_path / "r.parquet", tmp_path / "bad.md"
    df.to_parquet(results)
    bad.write_text("no markers\n")
    assert S.main([str(results), str(bad)]) == 2 and bad.read_text() == "no markers\n"
    assert "no generated block" in capsys.readouterr().err


def test_coin_figure_of_a_config_without_coins_says_so():
    """The experts 'coin' figure on results without fair-coin rows is a note, not a crash of
    the summarise job (the baseline config of the default grid has no coin sweep)."""
    import matplotlib.pyplot as plt

    from dpbench.plotting.experts import coin

    df = pd.DataFrame({"kind": ["stochastic"], "status": ["ok"], "t": [10], "T": [10], "learner": ["rwm"], "k": [2],
                       "epsilon": [np.inf], "delta": [0.0], "expected_regret": [0.1]})
    fig = coin(df)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    plt.close(fig)
    assert any("no fair-coin T sweep" in t for t in texts)
