"""Run diffs on hand-built runs (tests/fixtures/compare, copied to tmp and loaded with load_runs).

cm/tiny.jsonl — 8 CMRC-style items; run-a and run-b answer 7 each, 6 in common (A lacks T_6,
B lacks T_8):

    item  split tag   A (EM, F1)          B (EM, F1)       by EM        by F1 ≥ 0.5
    T_1   dev   easy  曹雪芹 (1, 1.0)      曹雪芹 (1, 1.0)   both right   both right
    T_2   dev   hard  6300公 (0, 0.8)      6300公里 (1, 1.0) fixed        both right
    T_3   test  easy  中国 (1, 1.0)        日本 (0, 0.0)     broken       broken
    T_4   test  hard  公元前 (0, 0.0)      1949年 (1, 1.0)   fixed        fixed
    T_5   dev   hard  瑞利散射 (1, 1.0)    瑞利散射 (1, 1.0) both right   both right
    T_7   test  easy  HO (0, 0.0)          水|冰 (0, 0.0)    both wrong   both wrong

cd/cdqa_tiny.json — CDQA v1 raw; llm-x answers 5, llm-y 4 (4 in common), F1-recall ≥ 0.5:
    张三 item (fast):  x right,   y refuses → broken
    江南省 (never):    x refuses, y right   → fixed
    李四 (fast):       both wrong (0)       → both wrong
    曹雪芹 (never):    both right           → both right
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from qa_inspect.core import query
from qa_inspect.core.errors import UnknownNameError
from qa_inspect.core.load import load_runs
from qa_inspect.core.query import OUTCOMES, Filter
from qa_inspect.core.report import DiffError, cell_filter, diff_runs
from qa_inspect.core.store import open_db
from qa_inspect.tui.cli import app
from typer.testing import CliRunner

from tests.paths import FIXTURES

FIXTURE = FIXTURES / "compare"


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("compare")
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    summary = load_runs(root)
    assert not summary.errors, summary.errors
    return root


@pytest.fixture(scope="module")
def conn(runs_dir: Path):
    c = open_db(runs_dir / ".qa-inspect" / "qa.db").conn
    yield c
    c.close()


def _counts(o) -> tuple[int, int, int, int]:
    return (o.fixed, o.broken, o.both_wrong, o.both_right)


def test_cmrc_outcome_counts(conn) -> None:
    d = diff_runs(conn, "run-a", "run-b")
    assert (d.dataset, d.family, d.score_metric) == ("tiny", "cmrc", "f1")
    assert (d.items, d.predicted_a, d.predicted_b, d.common, d.only_a, d.only_b) == (8, 7, 7, 6, 1, 1)
    assert [o.criterion for o in d.outcomes] == ["em", "threshold"]
    assert _counts(d.outcome("em")) == (2, 1, 1, 2)
    assert _counts(d.outcome("threshold")) == (1, 1, 1, 3)
    assert d.outcome("threshold").label == "F1 ≥ 50"
    assert all(o.total == d.common for o in d.outcomes)


def test_threshold_moves_partial_answers(conn) -> None:
    # A's 6300公 (F1 0.8) is right at 0.5 and wrong at 0.9: T_2 moves from both right to fixed.
    assert _counts(diff_runs(conn, "run-a", "run-b", threshold=0.9).outcome("threshold")) == (2, 1, 1, 2)
    assert _counts(diff_runs(conn, "run-a", "run-b", threshold=0.8).outcome("threshold")) == (1, 1, 1, 3)


def test_swapping_runs_swaps_fixed_and_broken(conn) -> None:
    d = diff_runs(conn, "run-b", "run-a")
    assert _counts(d.outcome("em")) == (1, 2, 1, 2)


def test_cdqa_outcomes_count_refusals_as_wrong(conn) -> None:
    d = diff_runs(conn, "llm-x", "llm-y")
    assert (d.family, d.score_metric, d.common, d.only_a, d.only_b) == ("cdqa", "f1_recall", 4, 1, 0)
    assert [o.criterion for o in d.outcomes] == ["threshold"]  # no EM for F1-recall runs
    assert d.outcomes[0].label == "F1-recall ≥ 50"
    assert _counts(d.outcomes[0]) == (1, 1, 1, 1)


@pytest.mark.parametrize(("a", "b"), [("run-a", "run-b"), ("run-b", "run-a"), ("llm-x", "llm-y")])
def test_cell_filters_select_exactly_the_counted_items(conn, a: str, b: str) -> None:
    for threshold in (0.5, 0.9):
        d = diff_runs(conn, a, b, threshold=threshold)
        for o in d.outcomes:
            for outcome in OUTCOMES:
                f = d.cell_filter(outcome, o.criterion)
                assert (f.run, f.compare, f.outcome) == (a, b, outcome)
                assert query.count(conn, f) == o.count(outcome), (o.criterion, outcome)


def test_cell_filter_items_and_page(conn) -> None:
    f = cell_filter("run-a", "run-b", "fixed", base=Filter(dataset="tiny"))
    assert [r.key for r in query.page(conn, f)] == ["T_2", "T_4"]
    f = cell_filter("run-a", "run-b", "broken", criterion="threshold", threshold=0.5)
    rows = query.page(conn, f)
    assert [(r.key, r.em, r.compare_em) for r in rows] == [("T_3", 1, 0)]


def test_outcome_needs_a_compare_run(conn) -> None:
    assert query.count(conn, Filter(run="run-a", outcome="fixed")) == 0
    with pytest.raises(ValueError):
        query.count(conn, Filter(run="run-a", compare="run-b", outcome="improved"))
    with pytest.raises(ValueError):
        cell_filter("run-a", "run-b", "fixed", criterion="f2")


def test_cmrc_slice_deltas(conn) -> None:
    d = diff_runs(conn, "run-a", "run-b")
    got = {(s.dimension, s.value, s.metric): s for s in d.slices}
    overall = got[("overall", "all", "em")]
    assert (overall.items, overall.n_a, overall.n_b) == (6, 6, 6)
    assert overall.a == pytest.approx(50.0) and overall.b == pytest.approx(4 / 6 * 100)
    assert overall.delta == pytest.approx(overall.b - overall.a)
    dev = got[("split", "dev", "em")]  # T_1, T_2, T_5
    assert (dev.items, dev.a, dev.b) == (3, pytest.approx(200 / 3), pytest.approx(100.0))
    test_f1 = got[("split", "test", "f1")]  # T_3, T_4, T_7: A 1, 0, 0; B 0, 1, 0
    assert (test_f1.items, test_f1.a, test_f1.b, test_f1.delta) == (3, pytest.approx(100 / 3), pytest.approx(100 / 3), pytest.approx(0.0))
    hard_f1 = got[("tag", "hard", "f1")]  # T_2, T_4, T_5: A .8, 0, 1; B 1, 1, 1
    assert hard_f1.a == pytest.approx(180 / 3) and hard_f1.b == pytest.approx(100.0)
    number = got[("answer_type", "number", "em")]  # only T_2 in common (T_6 is B's alone)
    assert (number.items, number.a, number.b) == (1, 0.0, 100.0)
    assert {s.metric for s in d.slices} == {"em", "f1"}
    assert {s.dimension for s in d.slices} == {"overall", "split", "tag", "answer_type"}


def test_cdqa_slice_deltas_count_answered_items(conn) -> None:
    d = diff_runs(conn, "llm-x", "llm-y")
    got = {(s.dimension, s.value, s.metric): s for s in d.slices}
    assert {s.dimension for s in d.slices} == {"overall", "tag", "answer_type"}  # no splits here
    f1r = got[("overall", "all", "f1_recall")]
    assert (f1r.items, f1r.n_a, f1r.n_b) == (4, 3, 3)
    assert f1r.a == pytest.approx(200 / 3) and f1r.b == pytest.approx(200 / 3)
    fast = got[("tag", "fast-changing", "f1_recall")]  # x: 1, 0 answered; y: refusal, 0
    assert (fast.items, fast.n_a, fast.n_b, fast.a, fast.b) == (2, 2, 1, 50.0, 0.0)
    assert fast.delta == pytest.approx(-50.0)
    rate = got[("tag", "never-changing", "answer_rate")]
    assert (rate.a, rate.b, rate.delta) == (50.0, 100.0, 50.0)


def test_largest_changes(conn) -> None:
    d = diff_runs(conn, "run-a", "run-b")
    assert [(c.key, round(c.delta, 6)) for c in d.changes] == [("T_3", -1.0), ("T_4", 1.0), ("T_2", 0.2)]
    t4 = d.changes[1]
    assert (t4.prediction_a, t4.prediction_b, t4.score_a, t4.score_b, t4.em_a, t4.em_b) == ("公元前", "1949年", 0.0, 1.0, 0, 1)
    assert t4.question == "新中国什么时候成立？"
    assert [c.key for c in diff_runs(conn, "run-a", "run-b", top=1).changes] == ["T_3"]
    assert diff_runs(conn, "run-a", "run-b", top=0).changes == []
    cd = diff_runs(conn, "llm-x", "llm-y")
    assert sorted((c.score_a, c.score_b, c.refused_a, c.refused_b) for c in cd.changes) == [
        (0.0, 1.0, True, False), (1.0, 0.0, False, True)
    ]


def test_within_restricts_items(conn) -> None:
    d = diff_runs(conn, "run-a", "run-b", within=Filter(dataset="tiny", splits=("test",)))
    assert (d.items, d.common) == (4, 3)
    assert _counts(d.outcome("em")) == (1, 1, 1, 0)
    for outcome in OUTCOMES:
        assert query.count(conn, d.cell_filter(outcome)) == d.outcome("em").count(outcome)


def test_refusals(conn) -> None:
    with pytest.raises(DiffError, match="different datasets"):
        diff_runs(conn, "run-a", "llm-y")
    with pytest.raises(UnknownNameError, match="unknown run 'nope'"):
        diff_runs(conn, "run-a", "nope")
    with pytest.raises(DiffError, match="itself"):
        diff_runs(conn, "run-a", "run-a")
    with pytest.raises(DiffError, match="outside"):
        diff_runs(conn, "run-a", "run-b", threshold=50)


def test_to_dict_is_json(conn) -> None:
    data = json.loads(json.dumps(diff_runs(conn, "run-a", "run-b").to_dict(), ensure_ascii=False))
    assert data["outcomes"][0] == {
        "criterion": "em", "label": "EM", "threshold": None, "fixed": 2, "broken": 1, "both_wrong": 1,
        "both_right": 2, "total": 6,
    }
    assert data["changes"][0]["key"] == "T_3"


# ---------------------------------------------------------------------------------------- CLI

runner = CliRunner()


def test_cli_diff_json(runs_dir: Path) -> None:
    r = runner.invoke(app, ["diff", str(runs_dir), "run-a", "run-b", "--json", "--f1-threshold", "0.9", "--top", "2"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert [o["fixed"] for o in data["outcomes"]] == [2, 2]
    assert len(data["changes"]) == 2
    assert {s["metric"] for s in data["slices"]} == {"em", "f1"}


def test_cli_diff_tables_and_markdown(runs_dir: Path) -> None:
    r = runner.invoke(app, ["diff", str(runs_dir), "llm-x", "llm-y"])
    assert r.exit_code == 0, r.output
    assert "F1-recall ≥ 50" in r.stdout and "4 items answered by both" in r.stdout
    r = runner.invoke(app, ["diff", str(runs_dir), "run-a", "run-b", "--markdown"])
    assert r.exit_code == 0, r.output
    assert "| EM | 2 | 1 | 1 | 2 |" in r.stdout
    assert "| T_4 | 新中国什么时候成立？ | 公元前 | 1949年 | 0.000 | 1.000 | +1.000 |" in r.stdout


def test_cli_diff_errors_are_one_line(runs_dir: Path) -> None:
    for args, needle in (
        (["run-a", "llm-x"], "different datasets"),
        (["run-a", "missing"], "unknown run 'missing'"),
        (["run-a", "run-b", "--f1-threshold", "1.5"], "between 0 and 1"),
        (["run-a", "run-b", "--slice", "nope"], "unknown slice 'nope'"),
    ):
        r = runner.invoke(app, ["diff", str(runs_dir), *args])
        assert r.exit_code == 1, r.output
        assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1
        assert "Traceback" not in r.output
