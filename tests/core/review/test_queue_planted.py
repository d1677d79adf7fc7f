"""Done when: over CDQA v1 and CMRC dev in one folder, with runs planting new answers, identical
truncations of golds and answers equal to a replaced gold, the review queue ranks the new answers
first, never a truncation or a replaced answer above one of them, and no CMRC gold at all."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from qa_inspect.core.load import load_runs
from qa_inspect.core.review import review_queue
from qa_inspect.core.store import open_db

from tests.core.review.planted_runs import make_planted_runs

pytestmark = pytest.mark.usefixtures("no_author_env")


def test_planted_answers_rank_as_judged(shared_data: Path, tmp_path: Path) -> None:
    planted = make_planted_runs(shared_data / "CDQA_v1.json", shared_data / "cmrc2018_dev.json", tmp_path)
    summary = load_runs(planted.folder, tmp_path / "qa.db")
    assert not summary.errors, summary.errors
    conn = open_db(tmp_path / "qa.db").conn
    q = review_queue(conn, author="ann", today=date(2025, 11, 1))
    conn.close()
    assert [name for name, _ in q.datasets] == ["CDQA_v1"] and q.left_out == ("cmrc2018_dev",)
    questions = [e.scored.signals.question for e in q.entries]
    top = questions[:40]
    assert sum(t in planted.new for t in top) >= 22, top
    last_new = max(questions.index(t) for t in planted.new)
    for t in [*planted.cut, *planted.replaced]:
        assert questions.index(t) > last_new, t
    assert all(e.scored.signals.dataset == "CDQA_v1" for e in q.entries)
    for e in q.entries:
        s = e.scored.signals
        if s.question in planted.replaced:
            assert f"runs still give the replaced answer {planted.replaced[s.question]}" in e.scored.because
            assert e.scored.last and e.scored.points["consensus"] == 0
        if s.question in planted.cut:  # a note at most (none when the question holds the whole cut)
            assert s.consensus is None or s.consensus.kind == "partial"
            assert s.consensus is None or "runs cut the gold the same way: 3 of 3 runs answer" in e.scored.because
            assert e.scored.points["consensus"] == 0
        if s.question in planted.new:
            assert e.scored.reasons[0].startswith("3 of 3 runs answer 替代答案")
    print(f"queue: {len(q.entries)} golds of {q.header()}; planted new answers in the top 40: "
          f"{sum(t in planted.new for t in top)} of {len(planted.new)}; last new answer at #{last_new + 1}")
