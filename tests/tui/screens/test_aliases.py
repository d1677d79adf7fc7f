"""Pilot tests of `A`: the run's answer accepted as an alias of the item, from the browser row and
the detail view, undone and redone with the journal's `u`/`U`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from textual.pilot import Pilot

from qa_inspect.core import flags
from qa_inspect.core.query import Filter
from qa_inspect.tui.screens import BrowserScreen, DetailScreen
from qa_inspect.tui.widgets import ItemTable
from tests.helpers import SIZE, app_for, async_test, item_id, open_run, settle

RUN, DS = "bert-base-chinese", "cmrc2018_dev_sample"
K0, K1 = "DEV_4_QUERY_0", "DEV_74_QUERY_0"


@pytest.fixture(autouse=True)
def author(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(flags.AUTHOR_ENV, "tester")
    return "tester"


def aliases(db: Path) -> list[tuple[str, str, str | None, str]]:
    with sqlite3.connect(db) as conn:
        return [(a.item_key, a.text, a.run, a.author) for a in flags.alias_list(conn, DS)]


def answer(db: Path, key: str) -> str:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT p.text FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id"
            " WHERE r.name = ? AND i.key = ?", (RUN, key)).fetchone()[0]


def notices(pilot: Pilot[None]) -> list[str]:
    return [str(n.message) for n in pilot.app._notifications]


@async_test
async def test_A_on_the_browser_row_accepts_the_answer_and_u_U_undo_redo(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, RUN)
        table = screen.query_one(ItemTable)
        table.move_cursor(row=[r.key for r in table.win_rows].index(K0))
        await pilot.pause()
        await pilot.press("A")
        await settle(pilot)
        assert aliases(db) == [(K0, answer(db, K0), RUN, "tester")]
        assert any("as an alias" in n for n in notices(pilot))
        await pilot.press("A")  # again: nothing written
        await settle(pilot)
        assert len(aliases(db)) == 1 and any("Already accepted" in n for n in notices(pilot))
        await pilot.press("u")
        await settle(pilot)
        assert aliases(db) == []
        await pilot.press("U")
        await settle(pilot)
        assert [a[0] for a in aliases(db)] == [K0]
        assert isinstance(app.screen, BrowserScreen)


@async_test
async def test_A_on_the_detail_accepts_the_answer_of_the_run_shown(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(DetailScreen(Filter(run=RUN), item_id(db, K1)))
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        await pilot.press("A")
        await settle(pilot)
    assert aliases(db) == [(K1, answer(db, K1), RUN, "tester")]
