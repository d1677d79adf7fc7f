"""The SQLite file: schema version, forward-only migrations, WAL, and where it lives."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core import store
from qa_inspect.core.errors import StoreError
from qa_inspect.core.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    default_db_path,
    open_db,
    paths,
)

TABLES = {"files", "datasets", "contexts", "items", "golds", "runs", "predictions", "annotations"}


def _version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("PRAGMA user_version").fetchone()[0]


def test_new_database_has_schema_version_and_tables(tmp_path: Path) -> None:
    db_path = tmp_path / "sub" / "qa.db"  # parent folders are created
    conn = open_db(db_path).conn
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == len(MIGRATIONS)
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        assert TABLES <= names
        assert {"items_fts", "predictions_fts"} <= names
    finally:
        conn.close()
    assert _version(db_path) == SCHEMA_VERSION


def test_wal_mode_and_foreign_keys(tmp_path: Path) -> None:
    conn = open_db(tmp_path / "qa.db").conn
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    finally:
        conn.close()


def test_reopening_migrates_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db_path = tmp_path / "qa.db"
    conn = open_db(db_path).conn
    conn.execute(
        "INSERT INTO annotations (ts, author, action, dataset, item_key, gold_text) VALUES ('t', 'a', 'mark', 'd', 'k', 'g')"
    )
    conn.close()
    ran: list[int] = []
    original = store.schema.migrate
    monkeypatch.setattr(store.schema, "migrate", lambda c, v: (ran.append(v), original(c, v)))
    conn = open_db(db_path).conn
    try:
        # migrate is called with the current version, so its loop is empty
        assert ran == [SCHEMA_VERSION]
        assert conn.execute("SELECT COUNT(*) FROM annotations").fetchone()[0] == 1
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        conn.close()


def test_migrations_run_forward_from_an_older_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A database made at an older version gets exactly the missing migrations, in order."""
    db_path = tmp_path / "qa.db"
    open_db(db_path).conn.close()
    extra = "CREATE TABLE IF NOT EXISTS later_addition (x INTEGER);"
    monkeypatch.setattr(store.schema, "MIGRATIONS", [*MIGRATIONS, extra])
    monkeypatch.setattr(store.schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    conn = open_db(db_path).conn
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
        assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'later_addition'").fetchone()
    finally:
        conn.close()


def test_newer_schema_version_is_a_clear_error(tmp_path: Path) -> None:
    db_path = tmp_path / "qa.db"
    open_db(db_path).conn.close()
    with sqlite3.connect(db_path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError) as info:
        open_db(db_path)
    message = str(info.value)
    assert str(db_path) in message and "newer" in message and "\n" not in message
    assert _version(db_path) == SCHEMA_VERSION + 1  # nothing was touched


def test_garbage_file_is_a_store_error(tmp_path: Path) -> None:
    db_path = tmp_path / "qa.db"
    db_path.write_bytes(b"this is not sqlite\n" * 300)
    with pytest.raises(StoreError, match="not a qa-inspect database or corrupt"):
        open_db(db_path)


def test_timeout_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(store.TIMEOUT_ENV, "0.25")
    assert store.default_timeout() == 0.25
    monkeypatch.setenv(store.TIMEOUT_ENV, "soon")
    assert store.default_timeout() == store.DEFAULT_TIMEOUT == 30.0
    monkeypatch.delenv(store.TIMEOUT_ENV)
    assert store.default_timeout() == 30.0


def test_locked_database_at_open_is_a_store_error(tmp_path: Path) -> None:
    db_path = tmp_path / "qa.db"
    holder = sqlite3.connect(db_path, isolation_level=None)  # a fresh file, not yet WAL
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match="locked by another process"):
            open_db(db_path, timeout=0.1)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


# ------------------------------------------------------------------------------- default_db_path


def test_default_db_path_beside_the_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    runs = tmp_path / "runs"
    runs.mkdir()
    assert default_db_path(runs) == runs.resolve() / ".qa-inspect" / "qa.db"
    (runs / ".qa-inspect").mkdir()  # existing and writable: still there
    assert default_db_path(runs) == runs.resolve() / ".qa-inspect" / "qa.db"


def test_default_db_path_falls_back_to_user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(paths.os, "access", lambda p, mode: False)  # root can write anywhere
    a = tmp_path / "one" / "runs"
    b = tmp_path / "two" / "runs"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    db_a, db_b = default_db_path(a), default_db_path(b)
    cache = tmp_path / "cache" / "qa-inspect" / "db"
    assert db_a.parent.parent == cache and db_a.name == "qa.db"
    assert db_a.parent.name.startswith("runs-")
    assert db_a != db_b  # two read-only folders of the same name do not share a database
    assert default_db_path(a) == db_a  # stable
    assert not (a / ".qa-inspect").exists()


def test_default_db_path_read_only_existing_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    runs = tmp_path / "runs"
    (runs / ".qa-inspect").mkdir(parents=True)
    state = (runs / ".qa-inspect").resolve()
    real_access = os.access
    monkeypatch.setattr(paths.os, "access", lambda p, mode: False if Path(p) == state else real_access(p, mode))
    assert default_db_path(runs).is_relative_to(tmp_path / "cache")


def test_early_v1_database_without_uid_and_slices_migrates(tmp_path: Path) -> None:
    """A version-1 database from before `annotations.uid` and `slices` existed still opens."""
    import re
    import sqlite3

    from qa_inspect.core import store

    old_v1 = re.sub(r"\n\s*uid TEXT UNIQUE,[^\n]*", "", store.MIGRATIONS[0])
    old_v1 = re.sub(r"CREATE TABLE IF NOT EXISTS slices \(.*?\);", "", old_v1, flags=re.S)
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(old_v1)
    conn.execute("INSERT INTO annotations (ts, author, action, dataset, item_key, gold_text) VALUES ('t', 'a', 'mark', 'd', 'k', 'g')")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()

    db = store.open_db(path)
    cols = {row[1] for row in db.conn.execute("PRAGMA table_info(annotations)")}
    tables = {row[0] for row in db.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "uid" in cols and "slices" in tables
    assert db.conn.execute("SELECT uid IS NOT NULL FROM annotations").fetchone()[0] == 1
    assert db.conn.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION


def test_a_full_disk_is_said_in_words(tmp_path: Path) -> None:
    err = store.store_error(tmp_path / "qa.db", sqlite3.OperationalError("database or disk is full"))
    assert str(err) == f"{tmp_path / 'qa.db'}: no space left on device; nothing was written"
