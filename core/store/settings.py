"""Per-database settings (the `settings` table), and who is annotating.

Author: explicit argument, else `$QA_INSPECT_AUTHOR`, else the name set once with
`set_default_author` (stored in the `settings` table as `author:<system user>`), else the
system user.
"""

from __future__ import annotations

import getpass
import os
import sqlite3
from typing import Any

from .transaction import BusyCallback, sqlite_connection, write_transaction

__all__ = ["AUTHOR_ENV", "author_for", "default_author", "get_setting", "set_default_author", "set_setting"]

AUTHOR_ENV = "QA_INSPECT_AUTHOR"


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def get_setting(conn: Any, key: str) -> str | None:
    conn = sqlite_connection(conn)
    if not _has_table(conn, "settings"):
        return None
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def set_setting(conn: Any, key: str, value: str | None, *, on_busy: BusyCallback | None = None) -> None:
    """Set (or, with None, clear) a setting in its own transaction."""

    def work(c: sqlite3.Connection) -> None:
        if value is None:
            c.execute("DELETE FROM settings WHERE key = ?", (key,))
        else:
            c.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, value))

    write_transaction(sqlite_connection(conn), work, on_busy)


def default_author() -> str:
    """The system user's login name ("unknown" when there is none)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _author_key() -> str:
    return f"author:{default_author()}"


def author_for(conn: Any, explicit: str | None = None) -> str:
    """Who is annotating: `explicit`, else $QA_INSPECT_AUTHOR, else the stored name, else the system user."""
    for name in (explicit, os.environ.get(AUTHOR_ENV), get_setting(conn, _author_key())):
        if name and name.strip():
            return name.strip()
    return default_author()


def set_default_author(conn: Any, name: str | None) -> None:
    """Remember `name` as this system user's annotator name in this database (None: forget it)."""
    set_setting(conn, _author_key(), name.strip() if name and name.strip() else None)
