"""Pilot tests of the compare screen's samples row: pass@1 and the flaky/stable counts equal
`sample_diff`, Enter on a count browses exactly those items, and a comparison of single-answer
runs shows no samples row."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widgets import Static

from qa_inspect.core.load import load_runs
from qa_inspect.core.report import sample_change_keys
from qa_inspect.core.store import open_db
from qa_inspect.tui.screens import BrowserScreen, CompareScreen
from qa_inspect.tui.screens.compare_samples import SAMPLE_COLUMNS, SampleTable
from tests.diff_samples_data import diff_samples_folder
from tests.helpers import SIZE, app_for, async_test, settle


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    folder = diff_samples_folder(tmp_path)
    assert not load_runs(folder).errors
    return folder


async def _compare(pilot: Pilot[None], run_a: str, run_b: str) -> CompareScreen:
    await settle(pilot)
    screen = CompareScreen(run_a, run_b)
    pilot.app.push_screen(screen)
    await settle(pilot)
    assert screen.diff is not None and screen.loaded_generation == screen.generation
    return screen


@async_test
async def test_samples_row_and_enter_browses_the_items_that_became_flaky(runs: Path) -> None:
    db = runs / ".qa-inspect" / "qa.db"
    app = app_for(db, runs)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _compare(pilot, "a", "b")
        s = screen.diff.samples if screen.diff else None
        assert s is not None
        table = screen.query_one(SampleTable)
        assert table.display and screen.query_one("#cmp-samples-title", Static).display
        shown = [table.get_cell_at(Coordinate(0, c)).plain for c in range(len(SAMPLE_COLUMNS))]
        assert shown == ["50.0", "75.0", "+25.00", str(s.became_flaky), str(s.became_stable), str(s.still_flaky)]
        table.focus()
        table.move_cursor(row=0, column=3)  # became flaky
        await pilot.press("enter")
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        conn = open_db(db).conn
        try:
            expected = sample_change_keys(conn, "a", "b", "became_flaky")
        finally:
            conn.close()
        assert browser.filter.keys == tuple(expected) and browser.filter.compare == "b"
        assert browser.total == s.became_flaky == len(expected)


@async_test
async def test_single_answer_runs_show_no_samples_row(runs: Path) -> None:
    app = app_for(runs / ".qa-inspect" / "qa.db", runs)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _compare(pilot, "one", "two")
        assert screen.diff is not None and screen.diff.samples is None
        assert not screen.query_one(SampleTable).display
        assert not screen.query_one("#cmp-samples-title", Static).display
