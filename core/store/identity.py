"""Which files a connection opened, so a database swapped, moved or deleted under it is noticed.

SQLite keeps writing to the file it opened even after that file was unlinked or renamed away; a
user who deletes or replaces `qa.db` (or its `-wal` and `-shm`) while the app is open would then
mark golds into a file nobody reads again. `open_db` makes `StoreConnection`s, which remember the
(device, inode) of the database and its WAL files at open time; `write_transaction` compares them
with what is at those paths now and refuses to write when they differ. (`sqlite3.Connection` has
no `__dict__` and cannot be weakly referenced, hence the subclass rather than a side table.)

Not covered: a file overwritten in place (`cp other.db qa.db` keeps the inode).
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from qa_inspect.core.errors import StoreError

__all__ = ["OpenedFiles", "StoreConnection", "check_same_files", "remember_files"]

FileId = tuple[int, int]
"""(st_dev, st_ino): a file's identity, whatever its name or content."""


def _file_id(path: Path) -> FileId | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


@dataclass(frozen=True, slots=True)
class OpenedFiles:
    """The database file and its `-wal`/`-shm` (None: absent, e.g. not in WAL mode) at one moment."""

    path: Path
    db: FileId | None
    wal: FileId | None
    shm: FileId | None

    @classmethod
    def at(cls, path: Path) -> OpenedFiles:
        path = Path(os.path.abspath(path))
        side = [_file_id(path.with_name(path.name + suffix)) for suffix in ("-wal", "-shm")]
        return cls(path, _file_id(path), side[0], side[1])

    def changed(self) -> str | None:
        """The path whose file differs from the one at open time (a WAL file absent then is not checked)."""
        now = OpenedFiles.at(self.path)
        if now.db != self.db:
            return str(self.path)
        for suffix, then, current in (("-wal", self.wal, now.wal), ("-shm", self.shm, now.shm)):
            if then is not None and current != then:
                return f"{self.path}{suffix}"
        return None


class StoreConnection(sqlite3.Connection):
    """A `sqlite3.Connection` that knows which files it opened (`open_db` returns these)."""

    opened: OpenedFiles | None = None


def remember_files(conn: sqlite3.Connection, path: Path) -> None:
    """Record the files behind `conn` now (call once the database is open and in WAL mode)."""
    if isinstance(conn, StoreConnection):
        opened = OpenedFiles.at(path)
        conn.opened = opened if opened.db is not None else None


def check_same_files(conn: sqlite3.Connection) -> None:
    """Raise `StoreError` when the database (or its WAL) at the opened path is no longer the one
    `conn` opened; connections made elsewhere (plain `sqlite3.connect`) are not checked."""
    opened = getattr(conn, "opened", None)
    if not isinstance(opened, OpenedFiles):
        return
    changed = opened.changed()
    if changed is not None:
        raise StoreError(f"{changed} was replaced or deleted while open; nothing was written — reopen")
