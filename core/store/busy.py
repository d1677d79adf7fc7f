"""How long to wait for a database another process holds: one setting for every open, load and write.

A load that re-reads a changed source file and an annotation write wait the same time: a command
that gave up after a few seconds while the TUI was writing was as surprising as a UI that hung.
"""

from __future__ import annotations

import os
import sqlite3

__all__ = ["DEFAULT_TIMEOUT", "TIMEOUT_ENV", "database_file", "default_timeout"]

TIMEOUT_ENV = "QA_INSPECT_DB_TIMEOUT"
"""Seconds to wait for a database another process holds locked (default `DEFAULT_TIMEOUT`)."""
DEFAULT_TIMEOUT = 30.0


def default_timeout() -> float:
    """$QA_INSPECT_DB_TIMEOUT in seconds (read at each call), else 30; a bad value means the default."""
    try:
        return max(0.0, float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT)))
    except ValueError:
        return DEFAULT_TIMEOUT


def database_file(conn: sqlite3.Connection) -> str:
    """The file behind the connection's main database, for messages ("" for an in-memory one)."""
    try:
        for _seq, name, file in conn.execute("PRAGMA database_list"):
            if name == "main":
                return str(file or "")
    except sqlite3.Error:
        pass
    return ""
