"""The browser counts a set of items once: a sort, or a filter toggled back, reuses the count;
a flag (which changes what counts) forgets them."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from qa_inspect.core import query
from qa_inspect.tui.screens import BrowserScreen
from tests.helpers import SIZE, Env, async_test, open_run, settle
from tests.helpers import env_app as make_app


REAL_POSITION = query.position


def rankings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The item ids `query.position` is asked to rank (every item of the filter: seconds at 1M)."""
    ranked: list[int] = []

    def ranking(conn: Any, f: Any, item_id: int) -> Any:
        ranked.append(item_id)
        return REAL_POSITION(conn, f, item_id)

    monkeypatch.setattr(query, "position", ranking)
    return ranked


@async_test
async def test_a_sort_or_a_toggle_back_is_not_counted_again(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[Any] = []
    real = query.metrics_ab

    def counting(conn: Any, f: Any) -> Any:
        counted.append(f)
        return real(conn, f)

    monkeypatch.setattr(query, "metrics_ab", counting)
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        assert isinstance(browser, BrowserScreen)
        base = browser.filter
        total = browser.total
        assert total is not None and counted
        n = len(counted)
        browser.set_filter(base.with_(em=0))
        await settle(pilot)
        wrong = browser.total
        assert len(counted) == n + 1 and wrong is not None and wrong < total
        for f in (base.with_(em=0, sort="f1"), base, base.with_(em=0), base.with_(sort="f1", descending=True)):
            browser.set_filter(f)
            await settle(pilot)
            assert browser.total == (wrong if f.em == 0 else total)
        assert len(counted) == n + 1  # each set of items counted once
        browser.counts.forget()
        browser.refresh_items()
        await settle(pilot)
        assert len(counted) == n + 2  # after a change of the data, counted afresh


@async_test
async def test_the_detail_takes_the_browsers_count_instead_of_counting_again(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qa_inspect.tui.screens import DetailScreen

    gate = threading.Event()
    real_ab, real_count = query.metrics_ab, query.count
    detail_counts: list[Any] = []

    def slow(conn: Any, f: Any) -> Any:
        if f.em == 0:
            gate.wait(10)  # the count of the new filter comes after the detail opened
        return real_ab(conn, f)

    def counting(conn: Any, f: Any) -> Any:
        detail_counts.append(f)
        return real_count(conn, f)

    monkeypatch.setattr(query, "metrics_ab", slow)
    monkeypatch.setattr(query, "count", counting)
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        browser.set_filter(browser.filter.with_(em=0))
        for _ in range(200):
            await pilot.pause(0.01)
            if browser.window_generation == browser.generation:
                break
        assert browser.total is None  # rows shown, still counting
        browser.action_open()
        await pilot.pause(0.1)
        detail = app.screen
        assert isinstance(detail, DetailScreen) and detail.total is None
        gate.set()
        await settle(pilot)
        assert detail.total == browser.total and detail.total is not None and detail.total > 0
        assert detail_counts == []  # counted once, by the browser


@async_test
async def test_back_from_a_walk_past_the_window_lands_on_the_row_without_ranking_again(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qa_inspect.tui.screens import DetailScreen
    from qa_inspect.tui.widgets import ItemTable

    ranked = rankings(monkeypatch)
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        table = browser.query_one(ItemTable)
        assert browser.total is not None and browser.total > len(table.win_rows) + 3
        table.move_cursor(row=len(table.win_rows) - 1)
        await settle(pilot)
        browser.action_open()
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen)
        for _ in range(3):  # past the browser's window
            await pilot.press("n")
            await settle(pilot)
        assert detail.detail is not None and detail.position is not None
        walked_to, at = detail.detail.item_id, detail.position
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is browser
        assert table.current is not None and table.current.item_id == walked_to
        assert ranked == []
        assert table.absolute_cursor == at == REAL_POSITION(env.conn, browser.filter, walked_to)


@async_test
async def test_reloading_keeps_the_row_by_looking_where_it_was(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """A flag marked (or the data re-read) reloads the rows with the cursor kept on its item: the
    window where it was is read first; every item is ranked only when it moved out of it."""
    from qa_inspect.tui.widgets import ItemTable

    ranked = rankings(monkeypatch)
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        table = browser.query_one(ItemTable)
        table.move_cursor(row=7)
        await settle(pilot)
        item = table.current.item_id if table.current else None
        at = table.absolute_cursor
        browser.refresh_items(keep_item=item)
        await settle(pilot)
        assert table.current is not None and table.current.item_id == item and table.absolute_cursor == at
        assert ranked == []
        other = REAL_POSITION(env.conn, browser.filter.with_(descending=True), item)
        browser.set_filter(browser.filter.with_(descending=True), keep_item=item)  # the row moves far away
        await settle(pilot)
        assert table.current is not None and table.current.item_id == item and table.absolute_cursor == other
        assert ranked == [item]


@async_test
async def test_a_big_runs_count_frame_is_read_after_its_first_count(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once a run's first count is in, its count frame is read in the background (here every run is
    "big"); later filters count from it, equal to the SQL pass."""
    from qa_inspect.core.query import Filter, kept_frame

    monkeypatch.setattr(query, "COUNT_FRAME_MIN_ITEMS", 0)
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        assert browser.total is not None
        assert kept_frame(env.conn, Filter(run="bidaf-baseline")) is not None
        browser.set_filter(browser.filter.with_(em=0, f1_min=0.2))
        await settle(pilot)
        assert browser.total == query.count(env.conn, browser.filter)
        got, want = browser.metrics, query.metrics(env.conn, browser.filter)
        assert got is not None and (got.items, got.predicted, got.em) == (want.items, want.predicted, want.em)
        assert got.f1 == pytest.approx(want.f1, rel=1e-9)
