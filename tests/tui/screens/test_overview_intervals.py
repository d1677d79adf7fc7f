"""The overview's intervals: each run's main metric with its 95% interval and whether it can be
told apart from the best run, filled in by a worker after the numbers show."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from textual.widgets import Static

from qa_inspect.core import flags
from qa_inspect.core.report import leaderboard
from qa_inspect.core.store import open_db
from qa_inspect.tui.widgets import RunsTable
from tests.helpers import app_for, async_test, settle


def _cells(table: RunsTable) -> dict[str, tuple[str, str]]:
    """Run name → (interval cell, vs-best cell)."""
    out = {}
    for i in range(table.row_count):
        row = [str(c).strip() for c in table.get_row_at(i)]
        out[row[0]] = (row[5], row[6])
    return out


@async_test
async def test_intervals_and_best_match_the_leaderboard(loaded_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    shutil.copy(loaded_db, db)
    boards = {b.dataset: b for b in leaderboard(open_db(db).conn)}
    app = app_for(db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tables = {t.ds.name: t for t in app.screen.query(RunsTable)}
        for name, table in tables.items():
            board = boards[name]
            cells = _cells(table)
            for row in board.ranked:
                m = row.metrics[board.metric]
                ci, standing = cells[row.run]
                assert ci == f"±{(m.high - m.low) / 2:.1f}"
                expected = "best" if board.rank(row.run) == 1 else ("tied" if board.tied_with_best(row.run) else "")
                assert standing == expected
        assert _cells(tables["cmrc2018_dev_sample"])["roberta-wwm-large"][1] == "best"


@async_test
async def test_intervals_are_hidden_where_excluding_stale_golds_changes_the_numbers(loaded_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    shutil.copy(loaded_db, db)
    with sqlite3.connect(db) as conn:
        flags.mark(conn, "cmrc2018_dev_sample", "DEV_52_QUERY_3", "8线", author="tester")
    app = app_for(db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        tables = {t.ds.name: t for t in app.screen.query(RunsTable)}
        assert all(ci == "" and standing == "" for ci, standing in _cells(tables["cmrc2018_dev_sample"]).values())
        assert any(ci.startswith("±") for ci, _ in _cells(tables["cdqa_sample"]).values())  # no flag there
        title = " ".join(str(t.render()) for t in app.screen.query(".dataset-title").results(Static))
        assert "± and vs best: official numbers only" in title
        await pilot.press("m")
        await settle(pilot)
        table = next(t for t in app.screen.query(RunsTable) if t.ds.name == "cmrc2018_dev_sample")
        assert _cells(table)["roberta-wwm-large"][1] == "best"


@async_test
async def test_f_lists_only_the_runs_with_the_chosen_settings(loaded_db: Path, tmp_path: Path) -> None:
    from textual.widgets import Static

    from qa_inspect.tui.dialogs import RunSettingsFilter

    db = tmp_path / "qa.db"
    shutil.copy(loaded_db, db)
    app = app_for(db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, RunSettingsFilter)
        await pilot.press("space", "enter")  # the first value: model glm-6b
        await settle(pilot)
        tables = {t.ds.name: t for t in app.screen.query(RunsTable)}
        assert list(_cells(tables["cdqa_sample"])) == ["glm-6b"]
        assert list(_cells(tables["cmrc2018_dev_sample"])) == ["(no run with these settings: f)", "human estimate"]
        titles = [str(s.render()) for s in app.screen.query(".dataset-title").results(Static)]
        assert "runs: model=glm-6b (1 of 2, f)" in titles[0]
        await pilot.press("f")
        await settle(pilot)
        await pilot.press("x", "enter")  # every run again
        await settle(pilot)
        tables = {t.ds.name: t for t in app.screen.query(RunsTable)}
        assert list(_cells(tables["cdqa_sample"])) == ["glm-6b", "qwen-7b-chat"]


@async_test
async def test_intervals_are_not_resampled_when_no_score_changed(loaded_db: Path, tmp_path: Path) -> None:
    from qa_inspect.tui.screens import OverviewScreen

    db = tmp_path / "qa.db"
    shutil.copy(loaded_db, db)
    app = app_for(db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        before = {name: board for name, (_, board) in screen.boards.items()}
        await pilot.press("m", "m")  # both modes: the overview reloads twice, scores unchanged
        await settle(pilot)
        assert {name: board for name, (_, board) in screen.boards.items()} == before
        assert all(screen.boards[n][1] is before[n] for n in before), "the same intervals, not resampled"
        table = next(t for t in screen.query(RunsTable) if t.ds.name == "cmrc2018_dev_sample")
        assert _cells(table)["roberta-wwm-large"][1] == "best"
