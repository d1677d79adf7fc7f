"""The paper table screen (`T`): `core.report.paper_table` for the overview's dataset, with bars."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from textual.widgets import DataTable

from qa_inspect.core.report import TableSpec, cell_text, paper_table, stored_run_settings
from qa_inspect.tui.screens import PaperTableScreen
from qa_inspect.tui.screens.paper_table import axes_for
from tests.helpers import app_for, async_test, settle


def test_axes_put_shots_in_best_over_and_the_other_settings_in_the_rows() -> None:
    from qa_inspect.core.report import RunSettings

    runs = [RunSettings(f"r{m}{p}{s}", "d", {"model": m, "prompt": p, "shots": s, "tag": "fast-changing"})
            for m in ("a", "b") for p in ("cot", "vanilla") for s in ("0", "5")]
    rows, cols, best = axes_for(runs, ["tag"])
    assert rows[0] == ("model", "prompt") and rows[-1] == ("run",)
    assert best[0] == "shots" and best[-1] == ""
    assert cols[0] == "tag" and cols[-1] == ""


@async_test
async def test_t_shows_the_table_of_the_highlighted_dataset(loaded_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    shutil.copy(loaded_db, db)
    conn = sqlite3.connect(db)
    runs = [r for r in stored_run_settings(conn) if r.dataset == "cdqa_sample"]
    spec = TableSpec(rows=("model",), cols="tag", cells=("f1_recall (answer_rate)",), dataset="cdqa_sample", human=True)
    expected = paper_table(conn, spec, runs)
    app = app_for(db)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PaperTableScreen) and screen.table is not None
        grid = screen.query_one("#paper-grid", DataTable)
        assert grid.row_count == len(expected.rows) == 2
        for i in range(grid.row_count):
            shown = [str(c).strip() for c in grid.get_row_at(i)]
            want = [expected.rows[i][0]] + [cell_text(expected.cell(i, c, spec.cells[0]), spec.cells[0])
                                             for c in expected.columns]
            assert shown == want
        await pilot.press("V")  # rows by run
        await settle(pilot)
        assert screen.table is not None and screen.table.spec.rows == ("run",)


@async_test
async def test_m_works_here_and_the_title_says_the_numbers_are_of_all_golds(loaded_db: Path, tmp_path: Path) -> None:
    from textual.widgets import Static

    db = tmp_path / "qa.db"
    shutil.copy(loaded_db, db)
    app = app_for(db)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        assert isinstance(app.screen, PaperTableScreen)
        await pilot.press("m")
        await settle(pilot)
        assert app.exclude_stale
        assert "all golds (stored scores)" in str(app.screen.query_one("#paper-title", Static).render())
        await pilot.press("m")
        await settle(pilot)
        assert not app.exclude_stale
        assert "stored scores" not in str(app.screen.query_one("#paper-title", Static).render())


@async_test
async def test_an_axis_with_nothing_to_step_says_why(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.push_screen(PaperTableScreen("cmrc2018_dev_sample"))  # its runs share every setting
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PaperTableScreen) and screen.table is not None
        before = dict(screen.choice)
        for key in ("H", "B"):
            await pilot.press(key)
            await settle(pilot)
        notes = [str(n.message) for n in app._notifications]
        assert screen.choice == before  # nothing stepped …
        assert sum("No other" in n and "cmrc2018_dev_sample" in n for n in notes) == 2, notes  # … and it said why
