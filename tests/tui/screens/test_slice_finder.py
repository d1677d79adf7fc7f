"""The slice finder screen (`f` on compare): the rows are `find_slices`' and Enter browses a slice."""

from __future__ import annotations

from textual.widgets import DataTable

from qa_inspect.core import query
from qa_inspect.core.report import StatOptions, find_slices
from qa_inspect.tui.screens import BrowserScreen, SliceFinderScreen
from tests.helpers import Env, async_test, open_compare
from tests.helpers import env_app as make_app
from tests.helpers import settle_facets as settle


@async_test
async def test_i_lists_the_finder_slices_and_enter_browses_one(env: Env) -> None:
    expected = find_slices(env.conn, "bidaf-baseline", "roberta-wwm-large", options=StatOptions())
    assert expected is not None and expected.slices
    app = make_app(env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_compare(pilot, "bidaf-baseline", 1)
        await pilot.press("i")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SliceFinderScreen)
        table = screen.query_one("#finder-table", DataTable)
        assert table.row_count == len(expected.slices)
        shown = [(str(table.get_row_at(i)[0]), str(table.get_row_at(i)[1])) for i in range(table.row_count)]
        assert shown == [(s.label, s.value) for s in expected.slices]
        await pilot.press("enter")
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        first = expected.slices[0]
        assert browser.filter.run == "bidaf-baseline" and browser.filter.compare == "roberta-wwm-large"
        assert browser.total == query.count(env.conn, browser.filter)
        assert browser.total >= first.test.n  # the slice's items (those without B's answer included)
