"""SQLite access for thread workers: each worker borrows a connection of its own.

SQLite connections must never be used by two threads at once. `Db.connect()` hands a worker an
idle connection (or opens one) and takes it back when the worker is done, so connections are
reused across the short-lived worker threads but never shared concurrently. A cancelled worker's
query is interrupted (`Connection.interrupt`) so a stale filter does not hold a connection.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from qa_inspect.core.store import open_db


class Db:
    """A small pool of connections to one database file, safe to use from worker threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._idle: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._all: list[sqlite3.Connection] = []
        self._closed = False

    def _open(self) -> sqlite3.Connection:
        with self._lock:
            # Every connection goes through open_db (the first creates and migrates the schema):
            # one busy timeout, and writes refused if the file is replaced under the app.
            conn = open_db(self.path).conn
            self._all.append(conn)
            return conn

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A connection for this thread alone until the block ends."""
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            conn = self._open()
        try:
            yield conn
        finally:
            if self._closed:
                conn.close()  # the app closed while this worker ran: close it here, in its thread
            else:
                self._idle.put(conn)

    def close(self) -> None:
        """Interrupt running queries; close idle connections now, busy ones when handed back."""
        with self._lock:
            self._closed = True
            for conn in self._all:
                conn.interrupt()
            while True:
                try:
                    self._idle.get_nowait().close()
                except queue.Empty:
                    break
            self._all.clear()
