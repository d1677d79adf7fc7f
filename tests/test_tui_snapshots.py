"""Snapshot tests of every screen at fixed sizes (pytest-textual-snapshot; `--snapshot-update` to accept).

Deterministic: the sample runs, the built-in theme, no clock, no absolute paths on screen; the
app is driven by `run_before` and every worker has finished before the picture is taken.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from qa_inspect.core.query import Filter
from qa_inspect.tui.app import QAInspectApp
from qa_inspect.tui.screens.detail import DetailScreen
from tests.helpers import app_for
from tests.helpers import run_before as run


@pytest.fixture(scope="module")
def db(loaded_db: Path) -> Path:
    return loaded_db


def item_id(db: Path, key: str) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT id FROM items WHERE key = ?", (key,)).fetchone()[0]


def open_detail(db: Path, run_name: str, key: str) -> Callable[[QAInspectApp], object]:
    f = Filter(run=run_name)
    return lambda app: app.push_screen(DetailScreen(f, item_id(db, key)))


def test_overview_120x40(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(db), terminal_size=(120, 40), run_before=run(keys=("down", "down", "down")))


def test_overview_80x24(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(db), terminal_size=(80, 24), run_before=run())


def test_browser_120x40(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("bidaf-baseline"), keys=("w", "down", "down"))
    assert snap_compare(app_for(db), terminal_size=(120, 40), run_before=steps)


def test_browser_compare_120x40(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("bidaf-baseline"), keys=("C", "down", "down", "enter", "d"))
    assert snap_compare(app_for(db), terminal_size=(120, 40), run_before=steps)


def test_browser_cdqa_80x24(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(db), terminal_size=(80, 24), run_before=run(lambda app: app.open_run("qwen-7b-chat")))


def test_detail_120x40(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("bidaf-baseline"), open_detail(db, "bidaf-baseline", "DEV_52_QUERY_1"))
    assert snap_compare(app_for(db), terminal_size=(120, 40), run_before=steps)


def test_detail_subsequence_80x24(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(open_detail(db, "bert-base-chinese", "DEV_74_QUERY_0"), keys=("a",))
    assert snap_compare(app_for(db), terminal_size=(80, 24), run_before=steps)


def test_detail_wide_cdqa_160x45(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    with sqlite3.connect(db) as conn:
        key = conn.execute(
            "SELECT i.key FROM golds g JOIN items i ON i.id = g.item_id WHERE g.superseded = 1 ORDER BY i.id LIMIT 1"
        ).fetchone()[0]
    steps = run(open_detail(db, "glm-6b", key))
    assert snap_compare(app_for(db), terminal_size=(160, 45), run_before=steps)


def test_filters_120x40(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("glm-6b"), keys=("f",))
    assert snap_compare(app_for(db), terminal_size=(120, 40), run_before=steps)


def test_help_120x40(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("glm-6b"), keys=("question_mark",))
    assert snap_compare(app_for(db), terminal_size=(120, 40), run_before=steps)
