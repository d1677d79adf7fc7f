"""One file's rows into the database: in one transaction, or in steps that a later load resumes.

A file's write either lands whole or, when it fails, leaves that file's rows as they were (a
stepped write removes the steps it committed: `undo`); the error is one line naming the file.
While a file is written in steps its `files` row says so (`LOADING` + its SHA-256, size -1: it is
always read again), so a load killed mid-file is resumed by the next one, of the same content.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from qa_inspect.core.formats import sha256_file

from .ingest import FileStamp, record_file, transaction
from .manifest import MANIFEST_NAME
from .relpaths import rel as _rel
from .summary import LoadSummary

__all__ = ["LOADING", "db_wide", "manifest_changed", "manifest_stamp", "mark_loading", "record_side", "resuming", "taken", "write_file"]

T = TypeVar("T")
LOADING = "loading "
"""`files.note` prefix of a file being written in steps (then the file's SHA-256)."""


def write_file(
    conn: sqlite3.Connection, rel: str, write: Callable[[], T], summary: LoadSummary, errored: list[str],
    undo: Callable[[], None] | None = None,
) -> T | None:
    """One file's rows in one transaction (or in steps, then `undo` removes the steps committed
    when the file fails); a database error of that file is reported, not raised (errors that
    concern the whole database are raised). Text that is not valid Unicode (a lone surrogate such
    as `\\ud800` from a JSON escape) rolls the file back with one line."""
    try:
        with transaction(conn):
            return write()
    except (UnicodeEncodeError, sqlite3.Error) as exc:
        if isinstance(exc, sqlite3.Error) and db_wide(exc):
            raise
        if undo is not None:
            with transaction(conn):
                undo()
        message = _write_error(rel, exc)
    summary.errors.append({"path": rel, "message": message})
    errored.append(rel)
    return None


def _write_error(rel: str, exc: Exception) -> str:
    """The line for a file whose rows could not be written."""
    if isinstance(exc, UnicodeEncodeError):
        bad = exc.object[exc.start:exc.end].encode("utf-8", "surrogatepass").hex() if isinstance(exc.object, str) else ""
        return f"{rel}: text that is not valid Unicode (a lone surrogate, bytes {bad}); nothing of it was stored"
    return f"{rel}: database error ({exc})"


def db_wide(exc: sqlite3.Error) -> bool:
    """Locked, busy, I/O or corrupt: the whole load stops (a constraint error is one file's)."""
    return isinstance(exc, sqlite3.OperationalError) or type(exc) is sqlite3.DatabaseError


def resuming(stored: tuple[Any, ...] | None, sha256: str | None) -> bool:
    """Whether an interrupted load was writing this very content (`stored`: the file's row as
    (kind, size, mtime_ns, sha256, owner, note)); its committed steps are kept."""
    return bool(stored and sha256 and (stored[5] or "") == f"{LOADING}{sha256}")


def mark_loading(conn: sqlite3.Connection, rel: str, kind: str, mtime_ns: int, sha256: str) -> None:
    """Say (and commit) that `rel` is being written in steps, before the first step."""
    record_file(conn, FileStamp(rel, kind, -1, mtime_ns, "", note=f"{LOADING}{sha256}"))
    conn.execute("COMMIT")
    conn.execute("BEGIN IMMEDIATE")


def taken(parsed: list[T]) -> Iterator[T]:
    """The entries of `parsed`, each let go once handed out (a big run's memory is freed once stored)."""
    parsed.reverse()
    while parsed:
        yield parsed.pop()


def manifest_stamp(runs_dir: Path) -> FileStamp | None:
    path = runs_dir / MANIFEST_NAME
    try:
        st = path.stat()
        return FileStamp(MANIFEST_NAME, "manifest", st.st_size, st.st_mtime_ns, sha256_file(path))
    except OSError:
        return None


def manifest_changed(conn: sqlite3.Connection, runs_dir: Path, old: tuple[Any, ...] | None) -> bool:
    """Whether the manifest changed since its `files` row `old` (kind, size, mtime_ns, sha256, ...;
    None: there was none), its new stamp recorded. The manifest decides names, models, formats
    and links: when it changes, every file is read again."""
    stamp = manifest_stamp(runs_dir)
    if (stamp.sha256 if stamp else None) == (old[3] if old else None):
        return False
    with transaction(conn):
        if stamp is None:
            conn.execute("DELETE FROM files WHERE path = ?", (MANIFEST_NAME,))
        else:
            record_file(conn, stamp)
    return True


def record_side(conn: sqlite3.Connection, runs_dir: Path, path: Path, owner: str) -> None:
    """Remember a side file (n-best) so an unchanged one is not re-read, and a changed one reloads its run."""
    st = path.stat()
    rel = _rel(runs_dir, path)
    record_file(conn, FileStamp(rel, "side", st.st_size, st.st_mtime_ns, sha256_file(path), owner=owner))
