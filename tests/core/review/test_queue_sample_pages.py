"""The review queue ranks without reading any sample's text and counts samples only for the
golds it returns (a page), or one gold as the app shows it; the counts are those of reading every
text, and the ranking is the same."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import date

import pytest
from qa_inspect.core.load import load_runs
from qa_inspect.core.review import gather_signals, review_queue, score_signals, with_samples
from qa_inspect.core.store import open_db

from tests.sampled_runs import sampled_runs

TODAY = date(2026, 1, 1)


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    runs = sampled_runs(tmp_path_factory.mktemp("queue_samples"))
    data = runs / "qa.jsonl"
    rows = [json.loads(line) | {"tag": "fast-changing"} for line in data.read_text(encoding="utf-8").splitlines()]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")  # a dataset the queue covers
    assert not load_runs(runs).errors
    db = open_db(runs / ".qa-inspect" / "qa.db")
    yield db.conn
    db.conn.close()


def _completion_reads(conn: sqlite3.Connection, run: object) -> list[str]:
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    try:
        run()  # type: ignore[operator]
    finally:
        conn.set_trace_callback(None)
    return [s for s in seen if "completions" in s]


def test_counts_equal_reading_every_text(conn: sqlite3.Connection) -> None:
    queue = review_queue(conn, author="me", today=TODAY)
    every = {(s.item_key, s.gold_text): score_signals(s, TODAY)
             for s in gather_signals(conn, "qa", author="me", sample_texts=True)}
    assert queue.entries and any(e.scored.signals.consensus and e.scored.signals.consensus.sample_total
                                 for e in queue.entries)
    for e in queue.entries:
        s = e.scored.signals
        assert e.scored == every[(s.item_key, s.gold_text)]


def test_a_page_reads_the_samples_of_its_golds_alone(conn: sqlite3.Connection) -> None:
    full = review_queue(conn, author="me", today=TODAY)
    reads = _completion_reads(conn, lambda: review_queue(conn, author="me", today=TODAY, limit=1))
    assert len(reads) == 1 and f"i.key IN ('{full.entries[0].scored.signals.item_key}')" in reads[0], reads
    page = review_queue(conn, author="me", today=TODAY, limit=1)
    assert page.entries == full.entries[:1]


def test_without_samples_then_one_gold_as_shown(conn: sqlite3.Connection) -> None:
    bare = review_queue(conn, author="me", today=TODAY, samples=False)
    full = review_queue(conn, author="me", today=TODAY)
    assert not _completion_reads(conn, lambda: review_queue(conn, author="me", today=TODAY, samples=False))
    assert [e.scored.score for e in bare.entries] == [e.scored.score for e in full.entries], "the same ranking"
    assert all(e.scored.signals.consensus is None or e.scored.signals.consensus.sample_total == 0 for e in bare.entries)
    assert [with_samples(conn, [e], TODAY)[0] for e in bare.entries] == full.entries
