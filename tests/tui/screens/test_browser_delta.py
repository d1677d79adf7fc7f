"""Choosing a compare run builds the pair's Δ order in a worker (once per screen and pair); the
browser's Δ-sorted rows are the sorted query's before and after."""

from __future__ import annotations

import pytest
from qa_inspect.core.query import delta_order, fresh_pair, page_ids
from qa_inspect.core.query.sql import build, order_clause, run_ids
from qa_inspect.tui.screens import BrowserScreen
from tests.helpers import SIZE, Env, async_test, open_run, settle
from tests.helpers import env_app as make_app


def _reference(env: Env, f: object) -> list[int]:
    sql, params = build(env.conn, f)
    return [r[0] for r in env.conn.execute(f"SELECT i.id {sql} ORDER BY {order_clause(f)}", params)]


@async_test
async def test_a_compare_run_gets_its_delta_order_and_the_rows_stay_the_same(env: Env,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(delta_order, "DELTA_ORDER_MIN_ITEMS", 0)  # the samples are small
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bert-base-chinese")
        assert isinstance(browser, BrowserScreen)
        assert env.conn.execute("SELECT COUNT(*) FROM delta_pairs").fetchone()[0] == 0  # no compare run: nothing built
        f = browser.filter.with_(compare="bidaf-baseline", sort="delta", descending=True)
        browser.set_filter(f)
        await settle(pilot)
        pair = run_ids(env.conn, f)[1:]
        assert fresh_pair(env.conn, *pair) is not None  # type: ignore[misc]
        shown = [r.item_id for r in browser.query_one("#items").win_rows]
        assert shown == _reference(env, f)[: len(shown)] == page_ids(env.conn, f, 0, len(shown))
        built = env.conn.execute("SELECT built_at FROM delta_pairs").fetchone()[0]
        browser.set_filter(f.with_(em=0))  # the same pair: checked, not built again
        await settle(pilot)
        assert env.conn.execute("SELECT built_at FROM delta_pairs").fetchall() == [(built,)]
        shown = [r.item_id for r in browser.query_one("#items").win_rows]
        assert shown == _reference(env, f.with_(em=0))[: len(shown)]


@async_test
async def test_a_small_dataset_is_sorted_by_delta_without_a_stored_order(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bert-base-chinese")
        f = browser.filter.with_(compare="bidaf-baseline", sort="delta")
        browser.set_filter(f)
        await settle(pilot)
        assert env.conn.execute("SELECT COUNT(*) FROM delta_pairs").fetchone()[0] == 0
        shown = [r.item_id for r in browser.query_one("#items").win_rows]
        assert shown == _reference(env, f)[: len(shown)]
