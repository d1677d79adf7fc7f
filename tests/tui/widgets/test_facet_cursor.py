"""The facet panel's cursor is always on screen: after the panel fills again (a new filter, new
counts) its row is scrolled into view, so Enter picks the value the user sees under the cursor."""

from __future__ import annotations

from pathlib import Path

import pytest

from qa_inspect.tui.widgets import FacetList, FacetPanel
from qa_inspect.tui.widgets.facet_panel import choose
from tests.helpers import app_for, async_test, open_run_with_facets, settle_facets

pytestmark = pytest.mark.tui


def _visible(table: FacetList) -> bool:
    """The cursor's row lies inside the rows the table shows (its header row aside)."""
    top = int(table.scroll_y)
    rows = table.scrollable_content_region.height - 1
    return top <= table.cursor_row < top + rows


@async_test
async def test_the_cursor_stays_on_screen_when_the_panel_fills_again(loaded_db: Path) -> None:
    app = app_for(loaded_db)
    async with app.run_test(size=(120, 24)) as pilot:
        await settle_facets(pilot)
        browser = await open_run_with_facets(pilot, "bidaf-baseline")
        await pilot.press("ctrl+f")
        await settle_facets(pilot)
        table = browser.query_one(FacetPanel).query_one(FacetList)
        last = len(table.refs) - 1
        assert last > table.scrollable_content_region.height  # more rows than fit: the case at hand
        table.move_cursor(row=last)
        await pilot.pause()
        browser.set_filter(browser.filter.with_(search="的"))  # the panel counts again and refills
        await settle_facets(pilot)
        await pilot.pause()
        assert _visible(table), (table.cursor_row, table.scroll_y)
        name, row = table.refs[table.cursor_row]
        assert row is not None
        expected = choose(browser.filter, name, row.value)  # what the row on screen under the cursor means
        await pilot.press("enter")
        await settle_facets(pilot)
        assert expected is not None and browser.filter == expected
