"""What is typed while the mark-stale form opens lands in its first text field, not in the gold
choice: the form is focused on that field from its first frame."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from textual.widgets import Input

from qa_inspect.core import flags
from qa_inspect.tui.stale import StaleForm
from qa_inspect.tui.stale.jobs import StaleFormData, form_data
from tests.helpers import SIZE, app_for, async_test, item_id, settle

pytestmark = pytest.mark.tui


@async_test
async def test_keys_typed_as_the_form_opens_go_to_the_reason(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(flags.AUTHOR_ENV, "tester")
    with sqlite3.connect(db) as conn:
        data = form_data(conn, item_id(db, "DEV_4_QUERY_0"), None)
    assert isinstance(data, StaleFormData)  # the gold choice comes first in the form, the reason after it
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(StaleForm(data))
        await pilot.press(*"renamed")  # at once: no pause for the form to settle
        form = app.screen
        assert isinstance(form, StaleForm)
        assert form.query_one("#sf-reason", Input).value == "renamed"
