"""A database as the previous schema version left it, with a journal: what each migration's
upgrade test starts from (the migration must keep every annotation)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core import store
from qa_inspect.core.store import open_db

ENTRIES = [  # a stale mark and a label: one entry of each kind a migration must keep
    ("2026-01-01T00:00:00Z", "ann", "mark", "cmrc", "K1", "北部", "u1", None, None),
    ("2026-01-02T00:00:00Z", "ann", "label", "cmrc", "K2", "", "u2", "bert", "hallucination"),
]


def previous_version(db: Path, version: int, monkeypatch: pytest.MonkeyPatch,
                     entries: list[tuple[Any, ...]] = ENTRIES) -> list[tuple[Any, ...]]:
    """Make `db` at schema `version` with `entries` in its journal; returns the journal's rows."""
    with monkeypatch.context() as patch:
        patch.setattr(store.schema, "SCHEMA_VERSION", version)
        open_db(db).conn.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == version
        conn.executemany(
            "INSERT INTO annotations (ts, author, action, dataset, item_key, gold_text, uid, run, label)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", entries)
        return conn.execute("SELECT * FROM annotations ORDER BY id").fetchall()


def upgraded(db: Path, before: list[tuple[Any, ...]]) -> sqlite3.Connection:
    """`db` opened by today's code: at today's version, its journal `before` kept row for row."""
    conn = open_db(db).conn
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.schema.SCHEMA_VERSION
    assert conn.execute("SELECT * FROM annotations ORDER BY id").fetchall() == before
    return conn
