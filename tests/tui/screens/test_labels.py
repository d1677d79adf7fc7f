"""Pilot tests of labels by hand: single keys in the browser, the picker from the
browser and the detail, bulk labelling on a selection, undo/redo shared with stale flags, the
facet, help and palette."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, SelectionList, Static

from qa_inspect.core import flags
from qa_inspect.core import labels as L
from qa_inspect.tui.commands import ActionsProvider
from qa_inspect.tui.dialogs import LabelDialog
from qa_inspect.tui.screens import BrowserScreen, DetailScreen
from qa_inspect.tui.widgets import ItemTable
from tests.helpers import SIZE, app_for, async_test, open_run, settle

RUN = "bidaf-baseline"


@pytest.fixture(autouse=True)
def author(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(flags.AUTHOR_ENV, "tester")
    return "tester"


def labels(db: Path, **where: str) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        return [(lab.item_key, lab.label) for lab in L.current_labels(conn, run=RUN, **where)]


def notices(pilot: Pilot[None]) -> list[str]:
    return [str(n.message) for n in pilot.app._notifications]


async def cursor_to(pilot: Pilot[None], screen: BrowserScreen, key: str) -> ItemTable:
    table = screen.query_one(ItemTable)
    table.move_cursor(row=[r.key for r in table.win_rows].index(key))
    await pilot.pause()
    return table


@async_test
async def test_single_keys_label_the_row_and_u_U_undo_redo(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, RUN)
        await cursor_to(pilot, screen, "DEV_52_QUERY_1")
        await pilot.press("1")  # gold-wrong, the first label of the default set
        await settle(pilot)
        assert labels(db) == [("DEV_52_QUERY_1", "gold-wrong")]
        assert any("Labelled DEV_52_QUERY_1: gold-wrong" in n for n in notices(pilot))
        await pilot.press("3")
        await settle(pilot)
        assert labels(db) == [("DEV_52_QUERY_1", "gold-wrong"), ("DEV_52_QUERY_1", "paraphrase")]
        await pilot.press("1")  # on already: off again
        await settle(pilot)
        assert labels(db) == [("DEV_52_QUERY_1", "paraphrase")]
        await pilot.press("u")
        await settle(pilot)
        assert labels(db) == [("DEV_52_QUERY_1", "gold-wrong"), ("DEV_52_QUERY_1", "paraphrase")]
        await pilot.press("u", "u")
        await settle(pilot)
        assert labels(db) == []
        await pilot.press("U")
        await settle(pilot)
        assert labels(db) == [("DEV_52_QUERY_1", "gold-wrong")]
        await pilot.press("9")  # the default set has seven labels
        await settle(pilot)
        assert any("No label 9" in n for n in notices(pilot))


@async_test
async def test_bulk_labelling_on_a_selection_is_one_action(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, RUN)
        table = screen.query_one(ItemTable)
        keys = [r.key for r in table.win_rows[:3]]
        await pilot.press("space", "space", "space")  # select three rows (the cursor moves down)
        await pilot.press("2")
        await settle(pilot)
        assert labels(db) == [(k, "ambiguous-question") for k in sorted(keys)]
        assert not screen.selection.ids  # the selection is done with, as after a bulk mark
        assert any("Labelled 3 items: ambiguous-question" in n for n in notices(pilot))
        await pilot.press("u")
        await settle(pilot)
        assert labels(db) == []
        # ctrl+a: every item of the filter, through the picker
        await pilot.press("ctrl+a", "l")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, LabelDialog) and dialog.data.items == screen.total
        await pilot.press("7", "enter")  # format
        await settle(pilot)
        assert app.screen is screen
        assert len(labels(db, label="format")) == screen.total


@async_test
async def test_picker_from_the_detail_with_a_new_label_and_a_note(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, RUN)
        await cursor_to(pilot, screen, "DEV_52_QUERY_3")
        await pilot.press("enter")
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen)
        assert not detail.query_one("#d-labels", Static).display  # no labels yet: no line
        await pilot.press("l")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, LabelDialog)
        await pilot.press("3")  # paraphrase
        assert dialog.query_one(SelectionList).selected == ["paraphrase"]
        dialog.query_one("#labels-new", Input).focus()
        await pilot.press(*"tokenisation", "enter")  # adds the label, checked, and stays
        await pilot.pause()
        assert app.screen is dialog and dialog.query_one(SelectionList).selected == ["paraphrase", "tokenisation"]
        dialog.query_one("#labels-note", Input).value = "gold splits 8 and 线"
        dialog.query_one(SelectionList).focus()
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is detail
        assert labels(db) == [("DEV_52_QUERY_3", "paraphrase"), ("DEV_52_QUERY_3", "tokenisation")]
        with sqlite3.connect(db) as conn:
            assert "tokenisation" in L.label_set(conn)
        line = detail.query_one("#d-labels", Static)
        assert line.display and "paraphrase · tokenisation" in str(line.render()) and "gold splits" in str(line.render())
        await pilot.press("u")  # the picker's whole apply is one action
        await settle(pilot)
        assert labels(db) == [] and not detail.query_one("#d-labels", Static).display
        await pilot.press("U")
        await settle(pilot)
        assert "gold splits" in str(detail.query_one("#d-labels", Static).render()) and len(labels(db)) == 2
        await pilot.press("l")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is detail


@async_test
async def test_without_a_run_labels_say_choose_one_and_keys_are_in_help_and_palette(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, RUN)
        screen.set_filter(screen.filter.with_(run=None))
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        assert any("Choose a run first" in n for n in notices(pilot)) and labels(db) == []
        ids = {b.id for b in BrowserScreen.BINDINGS if hasattr(b, "id")}
        assert {"labels.pick", "labels.toggle-1", "labels.toggle-9"} <= ids
        assert "labels.pick" in {b.id for b in DetailScreen.BINDINGS if hasattr(b, "id")}
        titles = [t for t, _, _ in ActionsProvider(screen)._entries()]  # type: ignore[arg-type]
        assert "Label (l)" in titles and "Label 1 (1)" in titles
