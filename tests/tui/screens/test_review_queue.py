"""The review queue screen: walk it (mark pre-filled, verify, skip, previous, undo), resume after a
restart, filters, the evidence link; snapshots at 80×24 and 120×40."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Input, Static

from qa_inspect.core import flags
from qa_inspect.core.load import load_runs
from qa_inspect.core.review import last_verified
from qa_inspect.core.store import open_db
from qa_inspect.tui.app import QAInspectApp
from qa_inspect.tui.screens import ReviewQueueScreen
from qa_inspect.tui.stale import StaleForm
from tests.core.review.make_runs import make_review_runs
from tests.helpers import async_test, settle

TODAY = date(2025, 11, 1)
pytestmark = pytest.mark.usefixtures("no_author_env")


@pytest.fixture
def review_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(flags.AUTHOR_ENV, "ann")
    runs = make_review_runs(tmp_path)
    assert not load_runs(runs, tmp_path / "qa.db").errors
    return tmp_path / "qa.db"


def app_on(db: Path) -> QAInspectApp:
    return QAInspectApp(db_path=db, runs_dir=Path("runs"), remember=False)


async def open_queue(pilot) -> ReviewQueueScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    pilot.app.push_screen(ReviewQueueScreen(today=TODAY))
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReviewQueueScreen)
    return screen


def shown(screen: ReviewQueueScreen) -> str:
    return screen.entry.scored.signals.gold_text if screen.entry else ""


def progress(screen: ReviewQueueScreen) -> str:
    return str(screen.query_one("#rq-progress", Static).render())


@async_test
async def test_walk_mark_verify_skip_undo_and_resume(review_db: Path) -> None:
    app = app_on(review_db)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_queue(pilot)
        assert shown(screen) == "蓉江新区" and "0 of 6 reviewed" in progress(screen)
        console = Console(record=True, width=120)
        console.print(screen.view)
        body = console.export_text()
        assert "章贡新区" in body and "2023-10-20 from the URL" in body and "run-b" in body
        await pilot.press("s")  # the stale form, the consensus answer proposed
        await settle(pilot)
        form = app.screen
        assert isinstance(form, StaleForm)
        assert form.query_one("#sf-proposed", Input).value == "章贡新区"
        assert form.query_one("#sf-evidence", Input).value.endswith("030637311.shtml")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is screen and shown(screen) == "吴思远"
        assert progress(screen).startswith("1 of 6 reviewed, 1 marked stale, 0 verified")
        await pilot.press("v")
        await settle(pilot)
        assert shown(screen) == "6号线" and "2 of 6 reviewed, 1 marked stale, 1 verified" in progress(screen)
        await pilot.press("n")
        assert shown(screen) == "云帆X10"
        await pilot.press("p")
        assert shown(screen) == "6号线"
        await pilot.press("u")  # undoes the verify: 吴思远 is back, and shown
        await settle(pilot)
        assert shown(screen) == "吴思远" and "1 of 6 reviewed" in progress(screen)
        await pilot.press("U")  # redoes it: U is redo here as on every screen
        await settle(pilot)
        assert "2 of 6 reviewed, 1 marked stale, 1 verified" in progress(screen)
        await pilot.press("u")
        await settle(pilot)
        assert shown(screen) == "吴思远" and "1 of 6 reviewed" in progress(screen)
        await pilot.press("n", "n")
        assert shown(screen) == "云帆X10"
        await settle(pilot)
    conn = open_db(review_db).conn
    [flag] = flags.current_flags(conn)
    assert (flag.gold_text, flag.proposed, flag.author) == ("蓉江新区", "章贡新区", "ann")
    assert last_verified(conn) == {}
    conn.close()
    app = app_on(review_db)  # a new session starts on the gold the last one showed
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_queue(pilot)
        assert shown(screen) == "云帆X10" and "1 of 6 reviewed" in progress(screen)


@async_test
async def test_filters_and_the_key_from_the_overview(review_db: Path) -> None:
    app = app_on(review_db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewQueueScreen)
        await pilot.press("f")  # which filter: change tag, answer type, signal
        await settle(pilot)
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        await pilot.press("down", "down", "down", "enter")  # (any), consensus, age, refusal
        await settle(pilot)
        assert screen.filters["signal"] == "refusal" and shown(screen) == "6号线"
        assert "filter: signal=refusal" in progress(screen) and "0 of 1 reviewed" in progress(screen)
        await pilot.press("n")  # the last one: stays
        assert shown(screen) == "6号线"
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ReviewQueueScreen)


def _open(app: QAInspectApp) -> None:
    app.push_screen(ReviewQueueScreen(today=TODAY))


def _before(pilot):  # type: ignore[no-untyped-def]
    async def run(p) -> None:  # type: ignore[no-untyped-def]
        await settle(p)
        _open(p.app)
        await settle(p)
    return run(pilot)


def test_review_queue_120x40(snap_compare, review_db: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_on(review_db), terminal_size=(120, 40), run_before=_before)


def test_review_queue_80x24(snap_compare, review_db: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_on(review_db), terminal_size=(80, 24), run_before=_before)


@async_test
async def test_the_overview_title_counts_verified_golds(review_db: Path) -> None:
    conn = open_db(review_db).conn
    ref = flags.resolve_item(conn, "《红楼梦》的作者是谁？")
    flags.verify(conn, flags.targets_of(ref), author="ann")
    conn.close()
    app = app_on(review_db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        titles = [str(s.render()) for s in app.screen.query(".dataset-title").results(Static)]
        assert any("✓ 1 of 6 verified ≤90 d" in t for t in titles), titles
