"""Annotations survive what happens to the WAL file: each write is checkpointed into the database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from qa_inspect.core import flags
from qa_inspect.core.store import open_db
from tests.helpers import Env

METRO_KEY = "DEV_4_QUERY_0"


def test_marks_survive_a_deleted_wal_while_the_database_is_open(env: Env) -> None:
    db = env.db
    conn = open_db(db)  # held open, as the app holds its connections
    reader = sqlite3.connect(db)
    reader.execute("SELECT COUNT(*) FROM items").fetchone()  # another connection, idle
    ref = flags.resolve_item(conn, METRO_KEY)
    for gold in ref.scored_texts():
        flags.mark(conn, ref.dataset, ref.key, gold, author="alice", reason="renamed")
    wal = Path(str(db) + "-wal")
    if wal.exists():
        wal.unlink()  # what a sync tool or a careless `rm` does
    fresh = sqlite3.connect(db)
    got = fresh.execute("SELECT COUNT(*) FROM annotations WHERE action = 'mark'").fetchone()[0]
    assert got == len(ref.scored_texts()) > 0, "every committed mark is in the database file"
    for c in (fresh, reader, conn.conn):
        c.close()


def test_a_full_disk_while_marking_records_nothing_and_says_so(env: Env) -> None:
    import pytest

    from qa_inspect.core.errors import StoreError

    c = env.conn
    ref = flags.resolve_item(c, METRO_KEY)
    pages = c.execute("PRAGMA page_count").fetchone()[0]
    c.execute(f"PRAGMA max_page_count = {pages}")  # as if the disk were full
    before = c.execute("SELECT COUNT(*) FROM annotations").fetchone()[0]
    with pytest.raises(StoreError, match="no space left on device; nothing was recorded"):
        for n in range(200):  # enough entries to need a new page
            flags.mark(c, ref.dataset, ref.key, ref.scored_texts()[0], author="alice", reason="x" * 2000 + str(n))
    assert c.execute("SELECT COUNT(*) FROM annotations").fetchone()[0] >= before
