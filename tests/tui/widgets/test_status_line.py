"""The status line keeps the metrics mode at 80 columns: when the line does not fit, the mode
moves before the numbers it qualifies instead of being cut off at the right edge."""

from __future__ import annotations

from pathlib import Path

import pytest

from qa_inspect.tui.widgets import StatusLine
from tests.helpers import app_for, async_test, open_run, settle, until

pytestmark = pytest.mark.tui


@async_test
async def test_the_mode_is_on_screen_at_80_columns(loaded_db: Path) -> None:
    app = app_for(loaded_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        browser.set_filter(browser.filter.with_(compare="bert-base-chinese"))
        await until(pilot, lambda: browser.total is not None)
        await pilot.press("m")
        await until(pilot, lambda: browser.excluded.of(browser.generation) is not None)
        line = browser.query_one(StatusLine)
        visible = str(line.render())[: line.size.width]
        assert "stale golds excluded" in visible, visible
