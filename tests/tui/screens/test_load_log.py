"""The load log screen: the last load's errors, warnings, skipped files and links, one key away."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from qa_inspect.core.load import LOG_SETTING, load_runs
from qa_inspect.core.store import open_db
from qa_inspect.tui.screens import LoadLogScreen, OverviewScreen
from tests.helpers import app_for, async_test, settle
from tests.helpers import run_before as run


@pytest.fixture
def troubled_db(sample_runs: Path, tmp_path: Path) -> Path:
    """Sample runs plus a broken file and a run that matches nothing; the log's clock fixed."""
    runs = tmp_path / "runs"
    shutil.copytree(sample_runs, runs, ignore=shutil.ignore_patterns(".qa-inspect"))
    (runs / "broken.json").write_text('{"data": [', encoding="utf-8")
    (runs / "orphan.json").write_text('{"zz-1": "x", "zz-2": "y"}', encoding="utf-8")
    db = tmp_path / "qa.db"
    load_runs(runs, db)
    conn = open_db(db).conn
    value = json.loads(conn.execute("SELECT value FROM settings WHERE key = ?", (LOG_SETTING,)).fetchone()[0])
    value["at"] = "2026-01-02T03:04:05Z"
    value["summary"]["db"] = "qa.db"
    conn.execute("UPDATE settings SET value = ? WHERE key = ?", (json.dumps(value, ensure_ascii=False), LOG_SETTING))
    conn.close()
    return db


@async_test
async def test_overview_counts_problems_and_l_opens_the_log(troubled_db: Path) -> None:
    app = app_for(troubled_db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)
        line = app.screen.query_one("#overview-load", Static)
        assert line.display and "2 errors" in str(line.render()) and "L: load log" in str(line.render())
        await pilot.press("L")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LoadLogScreen)
        table = screen.query_one(DataTable)
        kinds = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        assert kinds[:2] == ["✖ error", "✖ error"] and "run" in kinds and "dataset" in kinds
        files = {str(table.get_row_at(i)[1]) for i in range(2)}
        assert files == {"broken.json", "orphan.json"}
        detail = str(screen.query_one("#load-log-detail", Static).render())
        assert screen.rows[0].message.split(":")[0] in detail
        await pilot.press("down")
        assert screen.rows[1].path in str(screen.query_one("#load-log-detail", Static).render())
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)


@async_test
async def test_a_clean_load_shows_no_problem_line(loaded_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    shutil.copy(loaded_db, db)
    app = app_for(db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not app.screen.query_one("#overview-load", Static).display


def test_load_log_120x40(snap_compare, troubled_db: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(troubled_db), terminal_size=(120, 40), run_before=run(keys=("L",)))


def test_load_log_80x24(snap_compare, troubled_db: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(troubled_db), terminal_size=(80, 24), run_before=run(keys=("L",)))


def test_load_log_200x50(snap_compare, troubled_db: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(troubled_db), terminal_size=(200, 50), run_before=run(keys=("L",)))
