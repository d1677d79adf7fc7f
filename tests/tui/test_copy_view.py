"""`Y` copies the `qa-inspect open` line of the view on screen; `open` with that line's options
brings back the run, the filter, the sort and the item."""

from __future__ import annotations

import shlex
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qa_inspect.core.query import view_filter, view_item
from qa_inspect.tui.app import QAInspectApp
from qa_inspect.tui.cli import app as cli
from qa_inspect.tui.screens import BrowserScreen, DetailScreen, OverviewScreen
from tests.helpers import SIZE, app_for, async_test, open_run, settle, until

pytestmark = pytest.mark.tui


def options(line: str) -> dict[str, str]:
    words = shlex.split(line)
    assert words[:2] == ["qa-inspect", "open"]
    return {words[k][2:]: words[k + 1] for k in range(3, len(words), 2)}


@async_test
async def test_Y_then_open_restores_run_filter_sort_and_item(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("qa_inspect.tui.text.CLIPBOARD_COMMANDS", ())
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("Y")  # the overview has no view to copy: it says so
        assert any("open one first" in str(n.message) for n in app._notifications)
        browser = await open_run(pilot, "bidaf-baseline")
        browser.set_filter(browser.filter.with_(em=0, search="什么", sort="f1", descending=True,
                                                compare="bert-base-chinese"))
        await settle(pilot)
        await pilot.press("enter")  # the detail of the first row
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen) and detail.detail is not None
        await pilot.press("Y")
        line = app.view_line()
        assert line is not None and any(line in str(n.message) for n in app._notifications)
        shown, key = browser.filter, detail.detail.key
    o = options(line)
    with sqlite3.connect(db) as conn:
        f = view_filter(conn, run=o["run"], compare=o.get("compare"), filter_text=o.get("filter"), sort=o.get("sort"))
        item = view_item(conn, f, o["item"])
    again = QAInspectApp(db_path=db, runs_dir=Path("sample_runs"), remember=False, start=(f, item))
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(again.screen, DetailScreen)
        await until(pilot, lambda: again.screen.detail is not None)  # type: ignore[attr-defined]
        assert again.screen.detail.key == key  # type: ignore[attr-defined]
        await pilot.press("escape")
        await settle(pilot)
        reopened = again.screen
        assert isinstance(reopened, BrowserScreen)
        assert reopened.filter == shown  # run, compare, filter and sort, the dataset filled in as before
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(again.screen, OverviewScreen)


def test_open_with_a_name_it_cannot_find_says_so_in_one_line(db: Path, sample_runs: Path) -> None:
    result = CliRunner().invoke(cli, ["open", str(sample_runs), "--db", str(db), "--run", "nope"])
    assert result.exit_code == 1 and "unknown run 'nope'" in result.output
    assert "Traceback" not in result.output
