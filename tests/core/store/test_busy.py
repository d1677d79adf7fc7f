"""One busy timeout for opening, loading and annotation writes; the busy message names the file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core import store
from qa_inspect.core.errors import StoreError
from qa_inspect.core.store import TIMEOUT_ENV, open_db, write_transaction


def test_open_and_write_wait_the_same_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TIMEOUT_ENV, "0.3")
    path = tmp_path / "qa.db"
    conn = open_db(path).conn
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 300
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreError) as info:
            write_transaction(conn, lambda c: c.execute("INSERT INTO settings VALUES ('k', 'v')"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert str(info.value) == (f"{path}: database busy: another process kept it locked for 0.3 s; nothing was"
                               f" recorded, try again (wait longer: set {TIMEOUT_ENV})")
    assert store.get_setting(conn, "k") is None
    conn.close()


def test_the_default_is_thirty_seconds_for_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TIMEOUT_ENV, raising=False)
    conn = open_db(tmp_path / "qa.db").conn
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000 == store.DEFAULT_TIMEOUT * 1000
    conn.close()
