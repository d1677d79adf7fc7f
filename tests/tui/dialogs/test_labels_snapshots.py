"""Snapshot of the label picker over an item that carries one label and a note
(pytest-textual-snapshot; `--snapshot-update` to accept after looking at the new SVG)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from qa_inspect.core import flags
from qa_inspect.core import labels as L
from tests.helpers import app_for, open_detail
from tests.helpers import run_before as run


@pytest.fixture(scope="module")
def labelled_db(loaded_db: Path) -> Path:
    conn = sqlite3.connect(loaded_db, isolation_level=None)
    L.add_labels(conn, "bidaf-baseline", ["DEV_52_QUERY_3"], ["paraphrase"], author="alice")
    L.set_note(conn, "bidaf-baseline", "DEV_52_QUERY_3", "gold splits 8 and 线", author="alice")
    conn.close()
    return loaded_db


@pytest.fixture(autouse=True)
def author(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(flags.AUTHOR_ENV, "tester")


def test_label_dialog_80x24(snap_compare, labelled_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(open_detail(labelled_db, "bidaf-baseline", "DEV_52_QUERY_3"), keys=("l", "2"), key_by_key=True)
    assert snap_compare(app_for(labelled_db), terminal_size=(80, 24), run_before=steps)
