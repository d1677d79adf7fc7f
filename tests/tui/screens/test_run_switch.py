"""Switching the browser's run (`r`) keeps the filter only where it means the same: `w` on a CMRC run,
then a CDQA run, shows that run's wrong answers under a chip that says so, and `w` again clears it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList

from qa_inspect.core.query import WRONG_MAX
from qa_inspect.tui.screens import BrowserScreen
from qa_inspect.tui.widgets import FilterBar
from tests.helpers import SIZE, app_for, async_test, open_run, settle, until

pytestmark = pytest.mark.tui


@async_test
async def test_w_then_a_cdqa_run_shows_its_wrong_answers_under_a_true_chip(loaded_db: Path) -> None:
    app = app_for(loaded_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        await pilot.press("w")
        await until(pilot, lambda: browser.total is not None and browser.filter.em == 0)
        await pilot.press("r")
        await settle(pilot)
        options = app.screen.query_one(OptionList)
        index = next(i for i in range(options.option_count) if "glm-6b" in str(options.get_option_at_index(i).prompt))
        options.highlighted = index
        await pilot.press("enter")
        await until(pilot, lambda: browser.filter.run == "glm-6b" and browser.total is not None)
        assert isinstance(app.screen, BrowserScreen)
        assert browser.filter.em is None and browser.filter.f1_max == WRONG_MAX
        assert "score below 1" in str(browser.query_one(FilterBar).render())
        assert browser.info is not None and browser.total is not None and 0 < browser.total < browser.info.items
        assert any("EM 0" in n.message for n in app._notifications)
        await pilot.press("w")
        await until(pilot, lambda: browser.filter.f1_max is None and browser.total is not None)
        assert browser.total == browser.info.items
