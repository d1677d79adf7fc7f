"""Snapshots of the stale-answer UI: the mark form, and the detail view of an item with
stale golds (two annotators' proposals, a resolved flag). Author and times are fixed: the journal
entries are written with set timestamps and the annotator comes from $QA_INSPECT_AUTHOR."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from qa_inspect.core import flags
from tests.helpers import app_for, open_detail
from tests.helpers import run_before as run

DS = "cmrc2018_dev_sample"


def _entry(conn: sqlite3.Connection, key: str, gold: str, author: str, ts: str, **fields: str) -> None:
    flags.append(conn, "mark", DS, key, gold, author=author, ts=ts, **fields)


@pytest.fixture(scope="module")
def flagged_db(loaded_db: Path) -> Path:
    """The module's loaded sample runs with three annotators' flags on one item."""
    path = loaded_db
    conn = sqlite3.connect(path, isolation_level=None)
    _entry(conn, "DEV_52_QUERY_3", "8线", "alice", "2024-05-01T09:30:00.000Z", reason="line renamed",
           proposed="8条线路", evidence="https://example.org/jiaxing-south")
    _entry(conn, "DEV_52_QUERY_3", "8线", "bob", "2024-05-02T14:05:00.000Z", reason="[bold]two more lines[/]",
           proposed="10条线")
    _entry(conn, "DEV_52_QUERY_3", "八条线", "carol", "2023-12-24T08:00:00.000Z", reason="old release wording")
    conn.close()
    return path


@pytest.fixture(autouse=True)
def author(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(flags.AUTHOR_ENV, "tester")


def test_stale_form_80x24(snap_compare, flagged_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("bidaf-baseline"), keys=("down",) * 10 + ("s",))
    assert snap_compare(app_for(flagged_db), terminal_size=(80, 24), run_before=steps)


def test_detail_with_stale_golds_120x40(snap_compare, flagged_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(open_detail(flagged_db, "bidaf-baseline", "DEV_52_QUERY_3"), keys=("3",))
    assert snap_compare(app_for(flagged_db), terminal_size=(120, 40), run_before=steps)
