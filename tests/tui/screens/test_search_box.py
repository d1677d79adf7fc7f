"""The browser's search box: typing searches once it pauses (one search, the last text), enter at once."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from qa_inspect.tui.screens.search_box import PAUSE, SearchBox
from tests.helpers import async_test, until


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.searches: list[tuple[str, bool]] = []

    def compose(self) -> ComposeResult:
        yield SearchBox(id="search")

    def on_search_box_search(self, message: SearchBox.Search) -> None:
        self.searches.append((message.text, message.submitted))


@async_test
async def test_typing_searches_once_it_pauses_and_enter_at_once() -> None:
    app = Host()
    async with app.run_test() as pilot:
        box = app.query_one(SearchBox)
        assert box.has_class("hidden")
        box.open("old")
        await pilot.pause()
        assert not box.has_class("hidden") and box.has_focus and box.value == "old"
        box.value = ""
        box.pause = 2.0  # longer than any gap between the keys below, even on a loaded machine
        await pilot.press(*" 北京 ")
        await pilot.pause()
        assert app.searches == []  # still typing
        assert box.pending
        await until(pilot, lambda: bool(app.searches), timeout=box.pause * 20)
        assert app.searches == [("北京", False)]  # one search, stripped, for the last text
        await pilot.press("x", "enter")
        await pilot.pause()
        assert app.searches[-1] == ("北京 x", True)
        assert not box.pending  # enter stopped the pending search
        await pilot.pause(PAUSE)
        assert len(app.searches) == 2


@async_test
async def test_escape_hides_the_box_only_without_a_search_applied() -> None:
    app = Host()
    async with app.run_test() as pilot:
        box: Any = app.query_one(SearchBox)
        box.open("")
        box.close("applied")
        assert not box.has_class("hidden")
        box.close("")
        assert box.has_class("hidden")
        box.open("x")
        box.clear()
        await pilot.pause(PAUSE * 2)
        assert box.value == "" and box.has_class("hidden")
