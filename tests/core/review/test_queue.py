"""core.review: the score's signals and the queue's ranking on a small fixture (tests/core/review/make_runs.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from qa_inspect.core import flags
from qa_inspect.core.load import load_runs
from qa_inspect.core.review import RunAnswer, consensus, normalise, review_queue, run_weights
from qa_inspect.core.store import open_db

from tests.core.review.make_runs import make_review_runs

TODAY = date(2025, 11, 1)
pytestmark = pytest.mark.usefixtures("no_author_env")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = make_review_runs(tmp_path_factory.mktemp("review"))
    assert not load_runs(folder, folder / ".qa-inspect" / "qa.db").errors
    return folder


@pytest.fixture
def conn(runs: Path, tmp_path: Path) -> Iterator[object]:
    db = tmp_path / "qa.db"
    db.write_bytes((runs / ".qa-inspect" / "qa.db").read_bytes())
    c = open_db(db).conn
    yield c
    c.close()


def test_ranking_and_reasons(conn: object) -> None:
    q = review_queue(conn, author="ann", today=TODAY)
    assert [e.scored.signals.gold_text for e in q.entries] == ["蓉江新区", "吴思远", "6号线", "云帆X10", "澜州城建", "曹雪芹"]
    top = q.entries[0].scored
    assert top.because == ("3 of 3 runs answer 章贡新区; evidence from 2023-10-20 (24 months); fast-changing; "
                           "never verified")
    assert q.entries[1].scored.reasons[0] == "2 of 3 runs answer 李明"
    assert "3 of 3 runs refuse" in q.entries[2].scored.reasons
    assert q.entries[4].scored.signals.consensus is None  # one run disagrees: no consensus
    assert q.progress.describe() == "0 of 6 reviewed, 0 marked stale, 0 verified"


def test_filters(conn: object) -> None:
    golds = lambda **kw: [e.scored.signals.gold_text for e in review_queue(conn, author="ann", today=TODAY, **kw).entries]  # noqa: E731
    assert golds(signal="consensus") == ["蓉江新区", "吴思远"]
    assert golds(signal="refusal") == ["6号线"]
    assert golds(tag="slow-changing") == ["云帆X10", "澜州城建"]
    assert golds(answer_type="person") == ["吴思远", "曹雪芹"]
    assert golds(signal="age", limit=2) == ["蓉江新区", "6号线"]
    with pytest.raises(Exception, match="unknown signal"):
        review_queue(conn, signal="moon")


def test_proposals_by_others_rank_and_own_marks_are_reviewed(conn: object) -> None:
    flags.mark(conn, "review", _key(conn, "曹雪芹"), "曹雪芹", author="bob", proposed="高鹗")
    flags.mark(conn, "review", _key(conn, "吴思远"), "吴思远", author="ann", proposed="李明")
    q = review_queue(conn, author="ann", today=TODAY)
    assert "open proposal by bob → 高鹗" in q.entries[-1].scored.reasons
    assert "吴思远" not in [e.scored.signals.gold_text for e in q.entries]
    assert q.progress.describe() == "1 of 6 reviewed, 1 marked stale, 0 verified"
    everything = review_queue(conn, author="ann", today=TODAY, include_reviewed=True)
    assert everything.entries[-1].status == "marked"


def test_newer_runs_weigh_more() -> None:
    w = run_weights({"old": date(2024, 1, 1), "new": date(2024, 6, 29), "undated": None})
    assert w["new"] == 1.0 and w["old"] == pytest.approx(0.5) and w["undated"] == 1.0
    answers = [RunAnswer("old", "甲", 0.0, False, 0.5), RunAnswer("old2", "甲", 0.0, False, 0.5),
               RunAnswer("new", "乙", 0.0, False, 1.0), RunAnswer("new2", "乙", 0.0, False, 1.0)]
    c = consensus(answers, "cdqa-f1-recall")
    assert c is not None and c.answer == "乙" and c.share == pytest.approx(2 / 3)


def test_normalisation_follows_the_scorer() -> None:
    q = "澜州市最近开通运营的地铁线路是几号线？"
    assert normalise("澜州市最近开通运营的地铁线路是6号线。", "cdqa-f1-recall", q) == normalise("6号线", "cdqa-f1-recall", q)
    assert normalise("The Normans!", "squad-v1.1") == "normans"
    assert normalise("1990年。", "cmrc2018-official") == "1990年"


def test_manifest_dates_beat_file_times(conn: object) -> None:
    given = {"run-a": date(2020, 1, 1), "run-b": date(2020, 1, 1)}  # run-c (file time, 2023) is newest
    q = review_queue(conn, author="ann", today=TODAY, given_dates=given)
    top = next(e for e in q.entries if e.scored.signals.gold_text == "吴思远")
    assert top.scored.signals.consensus is not None and top.scored.signals.consensus.share < 0.1


def _key(conn: object, gold: str) -> str:
    return next(e.scored.signals.item_key for e in review_queue(conn, author="x", today=TODAY, include_reviewed=True).entries
                if e.scored.signals.gold_text == gold)


def test_manifest_run_date(runs: Path, tmp_path: Path) -> None:
    from qa_inspect.core.errors import FormatError
    from qa_inspect.core.load import load_manifest

    folder = make_review_runs(tmp_path)
    (folder / "qa-inspect.toml").write_text('[[run]]\npath = "run-a.jsonl"\ndate = "2024-05-01"\n'
                                            '[[run]]\npath = "run-b.jsonl"\ndate = 2024-06-01\n', encoding="utf-8")
    manifest = load_manifest(folder)
    assert manifest is not None
    assert manifest.run_dates() == {"run-a.jsonl": date(2024, 5, 1), "run-b.jsonl": date(2024, 6, 1)}
    (folder / "qa-inspect.toml").write_text('[[run]]\npath = "run-a.jsonl"\ndate = "May 1"\n', encoding="utf-8")
    with pytest.raises(FormatError, match=r"\[\[run\]\] #1, date"):
        load_manifest(folder)
