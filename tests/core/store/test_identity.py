"""A database replaced, moved or deleted under an open connection: the next write says so and writes nothing."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core import flags
from qa_inspect.core.errors import StoreError
from qa_inspect.core.store import StoreConnection, open_db, write_transaction

from tests.helpers import Env

METRO_KEY = "DEV_4_QUERY_0"
REFUSED = "was replaced or deleted while open; nothing was written — reopen"


def _mark(conn: sqlite3.Connection, reason: str = "renamed") -> None:
    ref = flags.resolve_item(conn, METRO_KEY)
    flags.mark(conn, ref.dataset, ref.key, ref.scored_texts()[0], author="alice", reason=reason)


def _marks(db: Path) -> int:
    with sqlite3.connect(db) as fresh:
        return fresh.execute("SELECT COUNT(*) FROM annotations").fetchone()[0]


def test_open_db_connections_remember_their_file(env: Env) -> None:
    assert isinstance(env.conn, StoreConnection)
    assert env.conn.opened is not None and env.conn.opened.path == env.db.resolve()
    assert env.conn.opened.wal is not None, "WAL mode: the -wal file is part of what was opened"


def test_a_deleted_database_is_not_written_into(env: Env) -> None:
    _mark(env.conn)
    env.db.unlink()  # the user deletes qa.db while the app is open
    with pytest.raises(StoreError) as info:
        _mark(env.conn, "after the delete")
    assert str(info.value) == f"{env.db.resolve()} {REFUSED}"
    assert not env.db.exists(), "nothing recreated the file either"


def test_a_replaced_database_is_not_written_into(env: Env, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    shutil.copy(env.db, other)
    before = _marks(other)
    os.replace(other, env.db)  # a sync tool or a restore swaps the file
    with pytest.raises(StoreError, match=REFUSED):
        _mark(env.conn)
    assert _marks(env.db) == before, "the file now at the path got nothing"
    fresh = open_db(env.db).conn  # reopening is the way on
    _mark(fresh)
    assert _marks(env.db) == before + 1
    fresh.close()


def test_a_moved_database_is_not_written_into(env: Env) -> None:
    env.db.rename(env.db.with_name("moved.db"))
    with pytest.raises(StoreError, match=REFUSED):
        _mark(env.conn)


def test_deleted_wal_and_shm_while_open_is_refused(env: Env) -> None:
    """SQLite would go on writing into the unlinked WAL while a new process made a fresh one."""
    _mark(env.conn)
    for suffix in ("-wal", "-shm"):
        Path(f"{env.db}{suffix}").unlink()
    with pytest.raises(StoreError, match=rf"{env.db.name}-wal {REFUSED}"):
        _mark(env.conn, "into the void")
    assert _marks(env.db) == 1, "the mark before the deletion is in the database file"


def test_refused_write_leaves_the_connection_usable_for_reading(env: Env) -> None:
    env.db.unlink()
    with pytest.raises(StoreError):
        write_transaction(env.conn, lambda c: c.execute("INSERT INTO settings VALUES ('k', 'v')"))
    assert not env.conn.in_transaction
    assert env.conn.execute("SELECT COUNT(*) FROM items").fetchone()[0] > 0


def test_other_connections_coming_and_going_are_no_replacement(env: Env) -> None:
    """The TUI opens a connection per worker; one closing does not make the others' files "new"."""
    for _ in range(3):
        other = open_db(env.db).conn
        _mark(other)
        other.close()
        _mark(env.conn)
    plain = sqlite3.connect(env.db)
    plain.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    plain.close()
    _mark(env.conn)
    assert _marks(env.db) == 7
