"""The help is searchable: typing narrows every screen's keys to the rows that hold the words."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from qa_inspect.tui.base import HelpSection
from qa_inspect.tui.dialogs import HelpScreen
from qa_inspect.tui.dialogs.help import matching
from tests.helpers import SIZE, app_for, async_test, open_run, settle

pytestmark = pytest.mark.tui

SECTIONS = [
    HelpSection("Item browser", [("u", "Undo your last flag", "stale.undo"), ("f", "Open the filter dialog", "browser.filters")]),
    HelpSection("Review queue", [("u", "Undo your last mark or verify", "review-queue.undo")]),
    HelpSection("Everywhere", [("q", "Quit qa-inspect", "app.quit")]),
]


def test_every_word_must_match_and_empty_sections_go() -> None:
    assert matching(SECTIONS, "") == SECTIONS
    undo = matching(SECTIONS, "UNDO")
    assert [s.title for s in undo] == ["Item browser", "Review queue"] and len(undo[0].rows) == 1
    assert [s.title for s in matching(SECTIONS, "undo queue")] == ["Review queue"]  # the section title counts
    assert matching(SECTIONS, "browser.filters")[0].rows == [SECTIONS[0].rows[1]]
    assert matching(SECTIONS, "nothing like this") == []


@async_test
async def test_typing_in_the_help_filters_its_rows(loaded_db: Path) -> None:
    app = app_for(loaded_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_run(pilot, "bidaf-baseline")
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.query_one("#help-text", Static)
        assert "Open the filter dialog" in str(text.render())
        await pilot.press(*"redo")
        body = str(text.render())
        assert "Redo the flag or label action" in body and "Redo the mark or verify" in body
        assert "Open the filter dialog" not in body
        await pilot.press(*"zzzz")
        assert "No key matches" in str(text.render())
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
