"""The SQLite database: opening it safely, its schema, and forward-only migrations.

The file is a documented artefact (see docs/database.md): people open it with
sqlite-utils, Datasette or polars, so tables and columns only ever get added, never renamed.
`PRAGMA user_version` holds the schema version; `MIGRATIONS[n]` (`core.store.migrations`) takes
version n to n+1.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
import re
import sqlite3
from pathlib import Path

from qa_inspect.core.errors import StoreError

from .busy import default_timeout
from .identity import StoreConnection, remember_files
from .migrations import MIGRATIONS

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "OpenDb", "migrate", "open_db", "split_statements", "store_error"]

SCHEMA_VERSION = len(MIGRATIONS)


def _no_space(path: Path) -> bool:
    """Whether the database's file system is full (SQLite sometimes says only "disk I/O error")."""
    try:
        return os.statvfs(Path(path).parent).f_bavail == 0
    except OSError:
        return False


def store_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """The one-line error for a database failure, whenever it shows (opening or writing)."""
    text = str(exc)
    if "disk is full" in text or "disk I/O error" in text and _no_space(path):
        return StoreError(f"{path}: no space left on device; nothing was written")
    if isinstance(exc, sqlite3.OperationalError):
        if "locked" in text or "busy" in text:
            return StoreError(f"{path}: database is locked by another process; try again")
        return StoreError(f"{path}: cannot use database ({text})")
    if type(exc) is sqlite3.DatabaseError:
        return StoreError(f"{path}: not a qa-inspect database or corrupt ({text})")
    return StoreError(f"{path}: database error ({text})")


@dataclass(frozen=True, slots=True)
class OpenDb:
    """An open, migrated database: `conn` is its connection (as `sqlite_utils.Database.conn` was;
    sqlite-utils is not imported at run time: it cost ~0.2 s of every command's start)."""

    conn: sqlite3.Connection


def open_db(path: Path, *, timeout: float | None = None) -> OpenDb:
    """Open (creating if needed) and migrate the database; every failure is one `StoreError` line.

    `timeout`: seconds to wait on a lock held by another process (default: the one busy timeout,
    $QA_INSPECT_DB_TIMEOUT or 30). The connection remembers which file it opened, so a write after
    the file was replaced or deleted is refused (`identity`).
    """
    timeout = default_timeout() if timeout is None else timeout
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            str(path), timeout=timeout, check_same_thread=False, isolation_level=None, factory=StoreConnection
        )
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"{path}: cannot open database ({exc})") from None
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{path}: database schema version {version} is newer than this qa-inspect "
                f"understands ({SCHEMA_VERSION}); upgrade qa-inspect"
            )
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        migrate(conn, version)
        remember_files(conn, path)
    except StoreError:
        conn.close()
        raise
    except sqlite3.Error as exc:
        conn.close()
        raise store_error(path, exc) from None
    return OpenDb(conn)


def migrate(conn: sqlite3.Connection, version: int) -> None:
    """Apply migrations one transaction each, so a crash leaves a consistent older version."""
    for target in range(version, SCHEMA_VERSION):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in split_statements(MIGRATIONS[target]):
                if not _column_exists(conn, statement):
                    conn.execute(statement)
                    _index_stats(conn, statement)
            conn.execute(f"PRAGMA user_version = {target + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


_CREATE_INDEX = re.compile(r"CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s+ON", re.IGNORECASE)


def _index_stats(conn: sqlite3.Connection, statement: str) -> None:
    """A new index of a database that holds planner statistics (someone ran ANALYZE) gets its
    own: an index without them looks selective beside analysed ones, and SQLite would walk it
    instead of the right one (a sort of every item where a walk of one page was)."""
    m = _CREATE_INDEX.match(statement.strip())
    if m and conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone():
        conn.execute(f"ANALYZE {m.group(1)}")


_ADD_COLUMN = re.compile(r"ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+(\w+)", re.IGNORECASE)


def _column_exists(conn: sqlite3.Connection, statement: str) -> bool:
    """`ADD COLUMN` of a column that is already there is skipped: SQLite has no IF NOT EXISTS for
    it, and a migration must be safe to re-run on a database a crash or an old build left behind."""
    m = _ADD_COLUMN.match(statement.strip())
    if m is None:
        return False
    return any(row[1] == m.group(2) for row in conn.execute(f"PRAGMA table_info({m.group(1)})"))


def split_statements(script: str) -> list[str]:
    """Split a migration script into statements (executescript would commit implicitly)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines():
        code = line.split("--", 1)[0]
        if not code.strip():
            continue
        buf += code + "\n"
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
