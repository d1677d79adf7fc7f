"""Judge verdicts in the browser's data: the item detail and the judge facets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from qa_inspect.core import query
from qa_inspect.core.load import load_runs
from qa_inspect.core.store import open_db
from tests.judge_data import JUDGE_LOG, RUN, judge_folder


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    tmp = tmp_path_factory.mktemp("judge")
    runs = judge_folder(tmp)
    load_runs(runs, tmp / "qa.db")
    db = open_db(tmp / "qa.db").conn
    yield db
    db.close()


def item_id(conn: object, key: str) -> int:
    return int(conn.execute("SELECT id FROM items WHERE key = ?", (key,)).fetchone()[0])  # type: ignore[attr-defined]


def test_the_detail_shows_each_judges_verdict_and_rationale(conn: object) -> None:
    detail = query.item_detail(conn, item_id(conn, "MINI_DEV_1_QUERY_1"), RUN)
    assert detail is not None and detail.prediction is not None
    got = {v.judge: (v.verdict, v.value, v.raw, v.source) for v in detail.prediction.verdicts}
    assert got == {"gpt-judge": ("partial", 0.5, "0.5", "gpt.verdicts.jsonl"),
                   "includes": ("incorrect", 0.0, "I", JUDGE_LOG.name),
                   "model_graded_fact": ("partial", 0.5, "P", JUDGE_LOG.name)}
    graded = next(v for v in detail.prediction.verdicts if v.judge == "model_graded_fact")
    assert graded.rationale is not None and "GRADE: P" in graded.rationale
    assert detail.prediction.f1 == 1.0  # the official score is untouched beside them


def test_each_judge_adds_a_verdict_facet_and_an_official_vs_judge_facet(conn: object) -> None:
    f = query.Filter(run=RUN)
    tables = {t.name: t for t in query.facet_tables(conn, f)}
    assert query.judge_facet_names(conn, RUN) == [
        "judge:gpt-judge", "judge_vs:gpt-judge", "judge:includes", "judge_vs:includes",
        "judge:model_graded_fact", "judge_vs:model_graded_fact"]
    graded = tables["judge:model_graded_fact"]
    assert graded.label == "judge model_graded_fact"
    assert [(r.label, r.items) for r in graded.rows] == [("correct", 3), ("incorrect", 2), ("partial", 1)]
    gpt = tables["judge:gpt-judge"]
    assert [(r.label, r.items) for r in gpt.rows] == [("correct", 2), ("incorrect", 1), ("partial", 1), ("no verdict", 2)]
    assert gpt.rows[-1].filter is None  # "no verdict" cannot be selected


def test_official_vs_judge_at_the_filters_threshold(conn: object) -> None:
    strict = query.Filter(run=RUN, outcome_threshold=1.0)
    rows = {r.label: r.items for r in query.facet_table(conn, strict, "judge_vs:gpt-judge").rows}
    # 灰鹤 for 白鹤 has F1 0.5 (wrong at 1.0) and the judge says correct: official wrong · judge right;
    # 春潮 has F1 1 and the judge says partial (not right): official right · judge wrong.
    assert rows == {"official wrong · judge right": 1, "official right · judge wrong": 1, "agree": 2, "no verdict": 2}
    picked = query.select(strict, "judge_vs:gpt-judge", "official wrong · judge right")
    assert picked is not None
    keys = [r[0] for r in conn.execute(  # type: ignore[attr-defined]
        f"SELECT i.key {query.build(conn, picked)[0]}", query.build(conn, picked)[1])]
    assert keys == ["MINI_DEV_0_QUERY_1"]
    default = {r.label: r.items for r in query.facet_table(conn, query.Filter(run=RUN), "judge_vs:gpt-judge").rows}
    assert default == {"official right · judge wrong": 1, "agree": 3, "no verdict": 2}  # at 0.5, 灰鹤 (F1 0.5) is right


def test_judge_selection_names_the_facet_and_value() -> None:
    assert query.judge_selection("g", "judge-right") == ("judge_vs:g", "official wrong · judge right")
    assert query.judge_selection("g", "partial") == ("judge:g", "partial")
    with pytest.raises(ValueError, match="choose from correct, incorrect, partial"):
        query.judge_selection("g", "maybe")


def test_an_unknown_facet_still_says_the_choices(conn: object) -> None:
    with pytest.raises(ValueError, match="judge:NAME"):
        query.build(conn, query.Filter(run=RUN, facets=(("nonsense", "x"),)))
