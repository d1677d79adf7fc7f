"""The review queue opened from the browser takes the browser's filter (dataset, tags, answer
types) and shows the header core gives: which datasets it covers and the filter in force."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from qa_inspect.core.load import load_runs
from qa_inspect.core.query import Filter
from qa_inspect.tui.app import QAInspectApp
from qa_inspect.tui.screens import BrowserScreen, ReviewQueueScreen
from qa_inspect.tui.stale import StaleForm
from tests.core.review.make_runs import make_review_runs
from tests.helpers import async_test, settle

pytestmark = pytest.mark.usefixtures("no_author_env")


@pytest.fixture
def review_db(tmp_path: Path) -> Path:
    runs = make_review_runs(tmp_path)
    assert not load_runs(runs, tmp_path / "qa.db").errors
    return tmp_path / "qa.db"


@async_test
async def test_the_queue_takes_the_browsers_filter(review_db: Path) -> None:
    app = QAInspectApp(db_path=review_db, runs_dir=Path("runs"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.push_screen(BrowserScreen(Filter(dataset="review", tags=("fast-changing",), answer_types=("person",))))
        await settle(pilot)
        app.action_review_queue()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewQueueScreen)
        assert screen.scope.tags == ("fast-changing",) and screen.queue is not None
        assert [e.scored.signals.gold_text for e in screen.queue.entries] == ["吴思远"]
        header = str(screen.query_one("#rq-header", Static).render())
        assert header == "Review queue over review (change tags); filter: tag fast-changing; answer type person"


@async_test
async def test_opened_elsewhere_the_queue_covers_every_dataset_that_can_go_stale(review_db: Path) -> None:
    app = QAInspectApp(db_path=review_db, runs_dir=Path("runs"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.push_screen(ReviewQueueScreen(today=date(2025, 11, 1)))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewQueueScreen) and screen.queue is not None
        assert len(screen.queue.entries) == 6
        assert str(screen.query_one("#rq-header", Static).render()) == "Review queue over review (change tags)"


@async_test
async def test_runs_giving_the_replaced_answer_propose_nothing(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    question = "在海口最近举办的什么音乐节活动吸引了大量年轻人？"
    record = {"qa": f"问题: {question}\n答案: 同程音乐生活节",
              "annotation": {"知识动态性分类": "快速变化", "回答类型": "其他", "p-改写答案": "2023海口迷笛音乐节"}}
    (runs / "fest.json").write_text(json.dumps([record], ensure_ascii=False), encoding="utf-8")
    for name in ("run-a", "run-b"):
        (runs / f"{name}.jsonl").write_text(json.dumps({"question": question, "prediction": "同程音乐生活节"},
                                                       ensure_ascii=False) + "\n", encoding="utf-8")
    assert not load_runs(runs, tmp_path / "qa.db").errors
    app = QAInspectApp(db_path=tmp_path / "qa.db", runs_dir=Path("runs"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.push_screen(ReviewQueueScreen(today=date(2025, 11, 1)))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewQueueScreen) and screen.entry is not None
        assert screen.entry.scored.reasons[0] == "runs still give the replaced answer 同程音乐生活节 (2 of 2 runs)"
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StaleForm)
        assert app.screen.query_one("#sf-proposed", Input).value == ""


@async_test
async def test_with_a_team_the_queue_shows_the_annotators_share(review_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`[team]` in qa-inspect.toml: the app's queue is the annotator's share, as `stale queue --me` gives it."""
    from qa_inspect.core import flags
    from qa_inspect.core.review import Team, mine, review_queue

    runs = review_db.parent / "runs"
    (runs / "qa-inspect.toml").write_text('[team]\nannotators = ["ana", "bo", "cy"]\noverlap = 1\n', encoding="utf-8")
    monkeypatch.setenv(flags.AUTHOR_ENV, "bo")
    app = QAInspectApp(db_path=review_db, runs_dir=runs, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.push_screen(ReviewQueueScreen(today=date(2025, 11, 1)))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewQueueScreen) and screen.queue is not None
        with app.db.connect() as conn:  # type: ignore[attr-defined]
            whole = review_queue(conn, today=date(2025, 11, 1))
        expected = mine(whole.entries, Team(("ana", "bo", "cy"), 1), "bo")
        assert [e.scored.signals.item_key for e in screen.queue.entries] == [e.scored.signals.item_key for e in expected]
        assert 0 < len(screen.queue.entries) < len(whole.entries)
