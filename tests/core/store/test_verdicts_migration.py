"""Migration 11 → 12 (the `verdicts` table): a database of the previous version upgrades in
place and keeps every annotation."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from qa_inspect.core import store
from qa_inspect.core.store import open_db
from qa_inspect.core.store.schema import MIGRATIONS, SCHEMA_VERSION

VERDICTS = next(n for n, script in enumerate(MIGRATIONS) if "CREATE TABLE IF NOT EXISTS verdicts" in script)


def test_the_previous_version_upgrades_keeping_every_annotation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "qa.db"
    with monkeypatch.context() as patch:  # a database as the previous version left it
        patch.setattr(store.schema, "SCHEMA_VERSION", VERDICTS)
        open_db(db).conn.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == VERDICTS
        conn.executemany(
            "INSERT INTO annotations (ts, author, action, dataset, item_key, gold_text, uid, run, label)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [("2026-01-01T00:00:00Z", "ann", "mark", "cmrc", "K1", "北部", "u1", None, None),
             ("2026-01-02T00:00:00Z", "ann", "label", "cmrc", "K2", "", "u2", "bert", "hallucination")])
        before = conn.execute("SELECT * FROM annotations ORDER BY id").fetchall()
    conn2 = open_db(db).conn
    try:
        assert conn2.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn2.execute("SELECT * FROM annotations ORDER BY id").fetchall() == before
        columns = [r[1] for r in conn2.execute("PRAGMA table_info(verdicts)")]
        assert columns == ["run", "item_key", "judge", "verdict", "value", "raw", "rationale", "source"]
    finally:
        conn2.close()
