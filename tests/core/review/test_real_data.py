"""On real CDQA v1 with generated runs (some agreeing on a new answer for a known set of items), the
review queue ranks exactly those items first, each reason naming its signals."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from qa_inspect.core.load import load_manifest, load_runs
from qa_inspect.core.review import review_queue
from qa_inspect.core.store import open_db

from tests.core.review.make_runs import make_cdqa_review_runs

pytestmark = pytest.mark.usefixtures("no_author_env")


def test_generated_consensus_items_rank_first(shared_data: Path, tmp_path: Path) -> None:
    runs, changed = make_cdqa_review_runs(shared_data / "CDQA_v1.json", tmp_path)
    summary = load_runs(runs, tmp_path / "qa.db")
    assert not summary.errors, summary.errors
    conn = open_db(tmp_path / "qa.db").conn
    manifest = load_manifest(runs)
    assert manifest is not None
    q = review_queue(conn, dataset="CDQA_v1", author="ann", today=date(2025, 11, 1), given_dates=manifest.run_dates())
    top = q.entries[:len(changed)]
    assert {e.scored.signals.question for e in top} == changed
    for e in top:
        assert e.scored.reasons[0].startswith("4 of 5 runs answer 替代答案")
        assert "fast-changing" in e.scored.reasons
    assert all(e.scored.signals.consensus is None for e in q.entries[len(changed):])
    dated = sum(e.scored.signals.evidence_date is not None for e in q.entries)
    print(f"CDQA v1 queue: {q.progress.total} golds, {dated} with an evidence date; top {len(changed)} = the generated ones")
    conn.close()
