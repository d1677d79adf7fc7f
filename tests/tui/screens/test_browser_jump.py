"""Jump-to-item without a known row: the rows around the item (a keyset walk each side of its
sort key) show at once with the cursor on it; the row number and the result bar wait for its
position, counted after, and never show a wrong one meanwhile."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from qa_inspect.core import query
from qa_inspect.core.query import Filter
from qa_inspect.core.query.sql import build, order_clause
from qa_inspect.tui.screens import BrowserScreen
from qa_inspect.tui.widgets import ItemTable, ResultBar, StatusLine
from tests.helpers import SIZE, Env, async_test, open_run, settle, until
from tests.helpers import env_app as make_app


def _held(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, list[int]]:
    """`core.query.position` made to wait until the returned event is set; the ids it was asked for."""
    gate, asked = threading.Event(), []
    real = query.position

    def held(conn: Any, f: Filter, item_id: int) -> int | None:
        asked.append(item_id)
        gate.wait(10)
        return real(conn, f, item_id)

    monkeypatch.setattr(query, "position", held)
    return gate, asked


async def _shown(condition: Callable[[], bool]) -> None:
    """Wait without `settle` (which waits for every worker, the held count too)."""
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.01)


def _sql_rank(env: Env, f: Filter) -> list[int]:
    """The filter's ids in the order shown, from the one sorted query (`order_clause`)."""
    sql, params = build(env.conn, f)
    order_params: list[Any] = []
    order = order_clause(f, order_params)
    return [r[0] for r in env.conn.execute(f"SELECT i.id {sql} ORDER BY {order}", [*params, *order_params])]


@async_test
async def test_jump_shows_the_item_before_its_position(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        assert isinstance(browser, BrowserScreen)
        table = browser.query_one(ItemTable)
        f = browser.filter.with_(sort="f1", descending=True)
        ranked = _sql_rank(env, f)
        item = ranked[len(ranked) * 2 // 3]  # deep in the sorted filter, far from the rows shown
        gate, asked = _held(monkeypatch)
        browser.set_filter(f, keep_item=item)  # the row is not at hand: nothing knows where it is
        await _shown(lambda: table.current is not None and table.current.item_id == item)
        assert not table.win_known and table.known_cursor is None
        assert "#" not in str(browser.query_one(StatusLine).render())  # no row number until counted
        assert browser.query_one(ResultBar).place[0] == 0  # nor a place on the bar
        ids = [r.item_id for r in table.win_rows]
        assert ids == ranked[ranked.index(item) - ids.index(item) :][: len(ids)]  # the rows around it, in order
        await pilot.press("down")  # moves inside the window meanwhile
        await _shown(lambda: table.current is not None and table.current.item_id == ranked[ranked.index(item) + 1])
        assert table.known_cursor is None
        gate.set()
        await until(pilot, lambda: table.win_known)
        assert asked == [item]
        assert table.absolute_cursor == ranked.index(item) + 1 == table.known_cursor
        assert f"#{ranked.index(item) + 2}" in str(browser.query_one(StatusLine).render())
        assert browser.query_one(ResultBar).place[0] == len(ranked)
        await pilot.press("pagedown")  # placed: paging by position again
        await settle(pilot)
        assert table.current is not None and table.current.item_id == ranked[table.absolute_cursor]
