"""Snapshots of the item table's width rules at 80×24 (pytest-textual-snapshot; `--snapshot-update`
to accept after looking at the new SVGs): run B's EM left out and named in the status line, and
the user's columns (k) kept, scrolled sideways two columns with the id pinned (tinted)."""

from __future__ import annotations

from pathlib import Path

from qa_inspect.core.query import ColumnLayout
from qa_inspect.tui.app import QAInspectApp
from qa_inspect.tui.screens import BrowserScreen
from tests.helpers import app_for
from tests.helpers import run_key_by_key as run

A, B = "bidaf-baseline", "roberta-wwm-large"


def _with_b(app: QAInspectApp) -> None:
    screen = app.screen
    assert isinstance(screen, BrowserScreen)
    screen.set_filter(screen.filter.with_(compare=B))


def _every_column(app: QAInspectApp) -> None:
    app.remember_columns("cdqa_sample", ColumnLayout())  # k, then enter: every column as listed
    screen = app.screen
    assert isinstance(screen, BrowserScreen)
    screen.rebuild_columns()
    screen.show_status()


def test_browser_compare_hidden_column_80x24(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run(A), _with_b)
    assert snap_compare(app_for(loaded_db), terminal_size=(80, 24), run_before=steps)


def test_browser_columns_scrolled_80x24(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    """glm-6b (CDQA) with its tag and answer type columns, which 80 columns leave out unless chosen."""
    steps = run(lambda app: app.open_run("glm-6b"), _every_column, keys=("greater_than_sign", "greater_than_sign"))
    assert snap_compare(app_for(loaded_db), terminal_size=(80, 24), run_before=steps)
