"""The review queue asks the journal's accepted aliases: an answer a reviewer accepted for an item
is no longer a consensus on a new answer (the gold is not stale, the golds were incomplete)."""

from __future__ import annotations

import json
from pathlib import Path

from qa_inspect.core.flags import add_alias
from qa_inspect.core.load import load_runs
from qa_inspect.core.review import review_queue
from qa_inspect.core.store import open_db


def _consensus_items(queue) -> set[str]:  # type: ignore[no-untyped-def]
    return {e.scored.signals.item_key for e in queue.entries if e.scored.points.get("consensus", 0) > 0}


OLD = ["李明", "赵刚", "孙丽", "周杰"]
NEW = ["王芳", "陈强", "刘洋", "黄磊"]


def _folder(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    runs.mkdir()
    items = [{"id": f"q{i}", "question": f"谁是第{i}届冠军？", "answers": [OLD[i]], "tag": "fast-changing"}
             for i in range(4)]
    (runs / "news.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items), "utf-8")
    for model in ("m1", "m2", "m3"):
        preds = [{"id": f"q{i}", "prediction": NEW[i]} for i in range(4)]
        (runs / f"{model}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in preds),
                                             "utf-8")
    return runs


def test_an_accepted_answer_leaves_the_consensus(tmp_path: Path) -> None:
    runs = _folder(tmp_path)
    db = tmp_path / "qa.db"
    summary = load_runs(runs, db)
    assert not summary.errors
    conn = open_db(db)
    before = _consensus_items(review_queue(conn, dynamic=("news",)))
    assert before == {"q0", "q1", "q2", "q3"}
    assert add_alias(conn, "news", "q0", NEW[0], run="m1", author="ana") is not None
    assert _consensus_items(review_queue(conn, dynamic=("news",))) == before - {"q0"}
    assert _consensus_items(review_queue(conn, dynamic=("news",), aliases={})) == before
