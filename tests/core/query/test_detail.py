"""Item detail data: every gold with its own score, alignments from core.metrics, flags, other runs."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from qa_inspect.core import flags
from qa_inspect.core.load import load_runs
from qa_inspect.core.metrics import align, cdqa, cmrc
from qa_inspect.core.query import in_context, item_detail, per_gold


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Path:
    db = tmp_path_factory.mktemp("detail") / "qa.db"
    summary = load_runs(sample_runs, db)
    assert not summary.errors, summary.errors
    return db


@pytest.fixture()
def conn(loaded: Path, tmp_path: Path) -> Iterator[sqlite3.Connection]:
    """A private copy, so tests that flag golds do not leak into each other."""
    db = tmp_path / "qa.db"
    shutil.copy(loaded, db)
    c = sqlite3.connect(db, isolation_level=None)
    yield c
    c.close()


def _item(conn: sqlite3.Connection, key: str) -> int:
    return conn.execute("SELECT id FROM items WHERE key = ?", (key,)).fetchone()[0]


def test_cmrc_item_scores_every_gold(conn: sqlite3.Connection) -> None:
    d = item_detail(conn, _item(conn, "DEV_52_QUERY_1"), "bidaf-baseline")
    assert d is not None and d.question.startswith("嘉兴南站建筑总面积")
    assert d.context and "近5.6万平方米" in d.context
    assert [g.text for g in d.golds] == ["近5.6万平方米"] * 3
    assert all(g.span is not None and d.context[g.span[0]:g.span[1]] == g.text for g in d.golds)
    p = d.prediction
    assert p is not None and p.text == "12000平方米"
    expected = cmrc.score(p.text, [g.text for g in d.golds])
    assert [(m.em, m.f1) for m in p.per_gold] == expected.per_gold
    assert p.f1 == pytest.approx(expected.f1)
    assert sum(m.best for m in p.per_gold) == 1
    best = next(m for m in p.per_gold if m.best)
    official = align.align_f1(p.text, d.golds[0].text)
    assert best.pred_ranges == official.pred_ranges and best.gold_ranges == official.gold_ranges
    assert (best.matched, best.pred_units, best.gold_units) == (3, 4, 6)
    assert p.text[best.pred_ranges[0][0]:best.pred_ranges[-1][1]] == "平方米"


def test_other_runs_listed_with_scores(conn: sqlite3.Connection) -> None:
    d = item_detail(conn, _item(conn, "DEV_52_QUERY_1"), "bidaf-baseline")
    assert d is not None
    assert [o.run for o in d.others] == ["bert-base-chinese", "roberta-wwm-large"]
    rob = d.others[1]
    assert rob.em == 1 and rob.f1 == 1.0 and rob.per_gold and rob.per_gold[0].best


def test_missing_prediction_is_reported(conn: sqlite3.Connection) -> None:
    d = item_detail(conn, _item(conn, "DEV_101_QUERY_0"), "bidaf-baseline")
    assert d is not None and d.prediction is None
    assert d.missing_runs[0] == "bidaf-baseline"


def test_no_run_shows_every_prediction(conn: sqlite3.Connection) -> None:
    d = item_detail(conn, _item(conn, "DEV_52_QUERY_1"), None)
    assert d is not None and d.prediction is None and len(d.others) == 3 and d.missing_runs == []


def test_nbest_and_source_lines(conn: sqlite3.Connection) -> None:
    d = item_detail(conn, _item(conn, "DEV_52_QUERY_1"), "roberta-wwm-large")
    assert d is not None and d.prediction is not None
    assert d.prediction.candidates and "text" in d.prediction.candidates[0]
    assert d.prediction.run_path and d.prediction.run_path.endswith("eval_predictions.json")
    assert d.source_path == "cmrc2018/cmrc2018_dev_sample.json" and d.source_line


def test_cdqa_refusal_superseded_and_meta(conn: sqlite3.Connection) -> None:
    item_id = conn.execute(
        "SELECT p.item_id FROM predictions p JOIN runs r ON r.id = p.run_id WHERE r.name = 'glm-6b'"
        " AND p.refused = 1 ORDER BY p.item_id LIMIT 1"
    ).fetchone()[0]
    d = item_detail(conn, item_id, "glm-6b")
    assert d is not None and d.family == "cdqa" and d.prediction is not None
    assert d.prediction.refused == 1 and d.prediction.f1_recall is None
    assert not any(m.best for m in d.prediction.per_gold)
    assert "evidence_url" in d.meta
    sup = conn.execute(
        "SELECT i.id FROM golds g JOIN items i ON i.id = g.item_id WHERE g.superseded = 1 LIMIT 1"
    ).fetchone()[0]
    d2 = item_detail(conn, sup, "qwen-7b-chat")
    assert d2 is not None and any(g.superseded for g in d2.golds)
    assert d2.prediction is not None
    scored = [g.text for g in d2.golds if not g.superseded]
    values = cdqa.per_gold(d2.prediction.text, [g.text for g in d2.golds])
    assert [m.f1_recall for m in d2.prediction.per_gold] == values
    if not d2.prediction.refused:
        best = next(m for m in d2.prediction.per_gold if m.best)
        assert d2.golds[best.gold_idx].text in scored


def test_stale_flag_shows_who_and_why(conn: sqlite3.Connection) -> None:
    item_id = _item(conn, "DEV_52_QUERY_1")
    flags.append(conn, "mark", "cmrc2018_dev_sample", "DEV_52_QUERY_1", "近5.6万平方米",
                 author="alice", reason="station was extended", proposed="约6万平方米")
    d = item_detail(conn, item_id, "bidaf-baseline")
    assert d is not None
    stale = [g.stale for g in d.golds]
    assert all(s is not None and s.author == "alice" and s.proposed == "约6万平方米" for s in stale)


def test_unknown_item() -> None:
    c = sqlite3.connect(":memory:")
    from qa_inspect.core.store import migrate

    migrate(c, 0)
    assert item_detail(c, 12345, None) is None


def test_per_gold_dispatch_and_context() -> None:
    ms = per_gold("cmrc2018-official", "cmrc", "北京大学的校长", ["北京大学", "清华"])
    assert [m.em for m in ms] == [0, 0] and ms[0].f1 > 0 and ms[1].f1 == 0.0
    assert ms[1].gold_ranges == [] and ms[0].gold_ranges == [(0, 4)]
    ms = per_gold("cdqa-f1-recall", "cdqa", "答案是蓉江新区", ["蓉江新区"])
    assert ms[0].em is None and ms[0].f1_recall == cdqa.f1_recall("答案是蓉江新区", ["蓉江新区"])
    (m,) = per_gold("cmrc2018-official", "cmrc", "3.5 亿元", ["3.5亿元"])  # QUIRK 6: EM sees the space
    assert (m.em, m.f1, m.em_pred, m.em_gold) == (0, 1.0, "3.5 亿元", "3.5亿元")
    assert in_context("北京", "在北京，北京大学", [(4, 8)]) == (4, 6)
    assert in_context("北京", "在北京，北京大学") == (1, 3)
    assert in_context("上海", "在北京") is None


def test_long_texts_open_fast_and_say_what_is_not_aligned() -> None:
    """A 3,600-character English prediction and gold took about a minute to align character by
    character; past `CHARS_LIMIT` only the official alignment is computed, with a note."""
    from qa_inspect.core.query import per_gold
    from qa_inspect.core.query.align import TOO_LONG

    pred, gold = "the cat sat " * 300, "a dog ran " * 300
    matches = per_gold("squad-v1.1", "squad", pred, [gold]) + per_gold("cmrc2018-official", "cmrc", pred, [gold])
    assert all(m.note == TOO_LONG and not m.pred_subseq for m in matches)
    short = per_gold("cmrc2018-official", "cmrc", "巴西足球运动员", ["足球运动员"])[0]
    assert short.note is None and short.pred_subseq
