"""Migration 14 → 15 (the registry columns' sort indexes): a database of the previous version
upgrades in place, keeps every annotation, and an analysed one gets statistics for the new
indexes (else SQLite would prefer them, unanalysed, over the right ones)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core.store import open_db
from qa_inspect.core.store.schema import MIGRATIONS, SCHEMA_VERSION

from tests.core.store.previous_version import previous_version

SORT_INDEXES = next(n for n, script in enumerate(MIGRATIONS) if "predictions_run_category" in script)
NEW = ["predictions_run_category", "predictions_run_relation", "items_gold_count", "items_cross_sentence"]


@pytest.mark.parametrize("analysed", [False, True])
def test_the_previous_version_upgrades_keeping_every_annotation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                analysed: bool) -> None:
    db = tmp_path / "qa.db"
    previous_version(db, SORT_INDEXES, monkeypatch)  # a database as the previous version left it
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO datasets (id, name, path, format, family, scorer, item_count, gold_count)"
                     " VALUES (1, 'cmrc', 'cmrc.json', 'squad', 'cmrc', 'cmrc2018-official', 2, 0)")
        conn.execute("INSERT INTO contexts (id, dataset_id, context_key, text) VALUES (1, 1, 'c', '北部')")
        conn.executemany("INSERT INTO items (id, dataset_id, key, qkey, question, context_id, source_line)"
                         " VALUES (?, 1, ?, ?, '?', 1, ?)", [(i, f"K{i}", f"q{i}", i) for i in (1, 2)])
        conn.execute("INSERT INTO runs (id, name, path, format, dataset_id, scorer, prediction_count)"
                     " VALUES (1, 'bert', 'bert.json', 'prediction-map', 1, 'cmrc2018-official', 2)")
        conn.executemany("INSERT INTO predictions (run_id, item_id, text, source_line, scorer, em, f1, error_category)"
                         " VALUES (1, ?, '北部', ?, 'cmrc2018-official', 1, 1.0, 'exact')", [(1, 1), (2, 2)])
        if analysed:
            conn.execute("ANALYZE")
        before = conn.execute("SELECT * FROM annotations ORDER BY id").fetchall()
    conn2 = open_db(db).conn
    try:
        assert conn2.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn2.execute("SELECT * FROM annotations ORDER BY id").fetchall() == before
        indexes = {r[0] for r in conn2.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert set(NEW) <= indexes
        has_stats = conn2.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone() is not None
        assert has_stats == analysed  # statistics only where someone asked for them
        if analysed:
            stats = {r[0] for r in conn2.execute("SELECT idx FROM sqlite_stat1")}
            assert set(NEW) <= stats
    finally:
        conn2.close()
