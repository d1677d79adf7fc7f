"""Database writes: each one committed `BEGIN IMMEDIATE` transaction, retried while another process writes.

The TUI and the CLI may write to the same database at once (it runs in WAL mode). While another
process holds the write lock, a write retries for the busy timeout (`busy.default_timeout`, the
one setting), telling `on_busy` once ("database busy, retrying"); past it nothing is written and
`StoreError` says so, naming the file. A database replaced or deleted under the connection is
refused before anything is written (`identity`). Either way a crash or a timeout leaves whole
actions only.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import Any, TypeVar

from qa_inspect.core.errors import StoreError

from .busy import TIMEOUT_ENV, database_file, default_timeout
from .identity import check_same_files

__all__ = ["BusyCallback", "after_commit", "sqlite_connection", "write_transaction"]

_ATTEMPT_MS = 250

BusyCallback = Callable[[str], None]

_AFTER_COMMIT: dict[int, dict[str, Callable[[], None]]] = {}
"""Per connection (by id) inside `write_transaction`: what runs once its transaction is committed."""

_Action = TypeVar("_Action", bound=Callable[[], None])


def after_commit(conn: sqlite3.Connection, key: str, make: Callable[[], _Action]) -> _Action | None:
    """The action registered under `key` to run once the `write_transaction` open on `conn`
    commits (never when it rolls back), made by `make()` on first use in that transaction: a copy
    of the journal kept outside the database must hold committed entries only, written once per
    transaction. None (nothing registered) when no `write_transaction` is open on `conn`."""
    pending = _AFTER_COMMIT.get(id(conn))
    if pending is None:
        return None
    if key not in pending:
        pending[key] = make()
    return pending[key]  # type: ignore[return-value]


def sqlite_connection(conn: Any) -> sqlite3.Connection:
    """A `sqlite3.Connection` from it, or from anything holding one as `.conn` (`OpenDb`, a
    `sqlite_utils.Database` a user opened on the file)."""
    return getattr(conn, "conn", conn)


def _busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _checkpoint(conn: sqlite3.Connection) -> None:
    """Copy committed pages from the WAL into the database file now (best effort: a reader that
    holds an old snapshot leaves the rest for the next checkpoint)."""
    try:
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
    except sqlite3.OperationalError:
        pass  # busy: SQLite checkpoints on its own later


def write_transaction(
    conn: sqlite3.Connection,
    work: Callable[[sqlite3.Connection], Any],
    on_busy: BusyCallback | None = None,
    deadline: float | None = None,
) -> Any:
    """Run `work` inside one IMMEDIATE transaction and commit; retry while the database is busy.

    Either everything `work` wrote is committed or nothing is (then StoreError says why). An
    annotation is the user's work, so it is written with `synchronous = FULL` and checkpointed into
    the database file right after the commit: a lost or deleted `-wal` file cannot take it along.
    A database file replaced or deleted since `open_db` raises StoreError before `work` runs.
    `deadline`: seconds to keep retrying while busy (default: the busy timeout, $QA_INSPECT_DB_TIMEOUT).
    """
    if conn.in_transaction:
        raise StoreError("a transaction is already open on this connection; finish it before annotating")
    seconds = default_timeout() if deadline is None else deadline
    limit = time.monotonic() + seconds
    old_timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    told = False

    def wait(exc: sqlite3.OperationalError) -> None:
        nonlocal told
        if not _busy(exc) or time.monotonic() >= limit:
            where = database_file(conn) or "database"
            if _busy(exc):
                raise StoreError(
                    f"{where}: database busy: another process kept it locked for {seconds:g} s; nothing was"
                    f" recorded, try again (wait longer: set {TIMEOUT_ENV})"
                ) from None
            raise StoreError(f"{where}: cannot write to the database ({exc})") from None
        if not told and on_busy is not None:
            on_busy("database busy (another process is writing), retrying…")
        told = True
        time.sleep(0.05)

    conn.execute(f"PRAGMA busy_timeout = {_ATTEMPT_MS}")
    conn.execute("PRAGMA synchronous = FULL")
    try:
        while True:
            try:
                conn.execute("BEGIN IMMEDIATE")
                break
            except sqlite3.OperationalError as exc:
                wait(exc)
        try:
            check_same_files(conn)
            _AFTER_COMMIT[id(conn)] = {}
            result = work(conn)
        except sqlite3.Error as exc:
            if conn.in_transaction:  # SQLite rolls back by itself after some errors (a full disk)
                conn.execute("ROLLBACK")
            if "disk is full" in str(exc):
                raise StoreError("no space left on device; nothing was recorded") from None
            raise StoreError(f"cannot write to the database ({exc}); nothing was recorded") from None
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        while True:
            try:
                conn.execute("COMMIT")
                _checkpoint(conn)
                break
            except sqlite3.OperationalError as exc:
                try:
                    wait(exc)
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
        for action in _AFTER_COMMIT.pop(id(conn), {}).values():
            action()
        return result
    finally:
        _AFTER_COMMIT.pop(id(conn), None)  # rolled back: nothing of it happened
        conn.execute(f"PRAGMA busy_timeout = {int(old_timeout)}")
