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
