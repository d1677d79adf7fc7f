"""Migration 17 → 18 (the labels on now, stored: `core.store.label_state`): a database of the
previous version upgrades keeping every annotation, its tables filled as the journal says; and the
item ids beside the label sets follow the items (loaded after their labels, deleted, a dataset
renamed)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core import store
from qa_inspect.core.store import CURRENT_LABELS_SQL, open_db
from qa_inspect.core.store.schema import MIGRATIONS

from tests.core.store.previous_version import upgraded

LABEL_STATE = next(n for n, script in enumerate(MIGRATIONS) if "CREATE TABLE IF NOT EXISTS label_sets" in script)

ENTRIES = [  # (id, ts, action, item_key, label, ref): K2's `gold-wrong` undone, K1's `format` taken off again
    (1, "2026-01-01T00:00:00.000Z", "mark", "K1", None, None),
    (2, "2026-01-02T00:00:00.000Z", "label", "K1", "format", None),
    (3, "2026-01-02T00:00:01.000Z", "label", "K1", "paraphrase", None),
    (4, "2026-01-03T00:00:00.000Z", "label", "K2", "gold-wrong", None),
    (5, "2026-01-03T00:00:01.000Z", "undo", "K2", "gold-wrong", 4),
    (6, "2026-01-04T00:00:00.000Z", "unlabel", "K1", "format", None),
    (7, "2026-01-04T00:00:01.000Z", "label", "K3", "format", None),  # K3: an item not loaded (yet)
    (8, "2026-01-05T00:00:00.000Z", "label", "K2", "format", None),
]


def _previous_version(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:  # a database as the previous version left it
        patch.setattr(store.schema, "SCHEMA_VERSION", LABEL_STATE)
        open_db(db).conn.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == LABEL_STATE
        conn.execute("INSERT INTO datasets (id, name, path, format, family, scorer, item_count, gold_count)"
                     " VALUES (1, 'cmrc', 'cmrc.json', 'squad', 'cmrc', 'cmrc2018-official', 2, 0)")
        conn.execute("INSERT INTO contexts (id, dataset_id, context_key, text) VALUES (1, 1, 'c', '北部')")
        conn.executemany("INSERT INTO items (id, dataset_id, key, qkey, question, context_id, source_line)"
                         " VALUES (?, 1, ?, ?, '?', 1, ?)", [(i, f"K{i}", f"q{i}", i) for i in (1, 2)])
        conn.executemany(
            "INSERT INTO annotations (id, ts, author, action, dataset, item_key, gold_text, uid, run, label, ref)"
            " VALUES (?, ?, 'ann', ?, 'cmrc', ?, ?, ?, ?, ?, ?)",
            [(i, ts, action, key, "北部" if label is None else "", f"u{i}", None if label is None else "bert", label, ref)
             for i, ts, action, key, label, ref in ENTRIES])


def test_the_previous_version_upgrades_keeping_every_annotation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "qa.db"
    _previous_version(db, monkeypatch)
    with sqlite3.connect(db) as conn:
        before = conn.execute("SELECT * FROM annotations ORDER BY id").fetchall()
    conn2 = upgraded(db, before)
    try:
        on = sorted(conn2.execute(f"SELECT run, dataset, item_key, label, id FROM ({CURRENT_LABELS_SQL})"))
        assert on == [("bert", "cmrc", "K1", "paraphrase", 3), ("bert", "cmrc", "K2", "format", 8),
                      ("bert", "cmrc", "K3", "format", 7)]
        assert sorted(conn2.execute("SELECT run, dataset, item_key, label, entry_id FROM current_labels")) == on
        assert sorted(conn2.execute("SELECT item_key, labels, item_id FROM label_sets")) == [
            ("K1", "paraphrase", 1), ("K2", "format", 2), ("K3", "format", None)]
    finally:
        conn2.close()


def test_item_ids_follow_the_items(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "qa.db"
    _previous_version(db, monkeypatch)
    conn = open_db(db).conn
    try:
        def ids() -> list[tuple[str, int | None]]:
            return sorted(conn.execute("SELECT item_key, item_id FROM label_sets"))

        conn.execute("INSERT INTO items (id, dataset_id, key, qkey, question, context_id) VALUES (30, 1, 'K3', 'q3', '?', 1)")
        assert ids() == [("K1", 1), ("K2", 2), ("K3", 30)]  # loaded after its label
        conn.execute("DELETE FROM items WHERE id = 2")
        assert ids() == [("K1", 1), ("K2", None), ("K3", 30)]
        conn.execute("INSERT INTO items (id, dataset_id, key, qkey, question, context_id) VALUES (40, 1, 'K2', 'q2', '?', 1)")
        conn.execute("UPDATE items SET key = 'K9' WHERE id = 1")
        assert ids() == [("K1", None), ("K2", 40), ("K3", 30)]
        conn.execute("UPDATE datasets SET name = 'cmrc-v2' WHERE id = 1")  # the labels name the old name: no item
        assert ids() == [("K1", None), ("K2", None), ("K3", None)]
        conn.execute("UPDATE annotations SET dataset = 'cmrc-v2'")  # rebound to it (`bind_journal`)
        assert sorted(conn.execute("SELECT dataset, item_key, item_id FROM label_sets")) == [
            ("cmrc-v2", "K1", None), ("cmrc-v2", "K2", 40), ("cmrc-v2", "K3", 30)]  # no item is K1 now
        conn.execute("UPDATE datasets SET name = 'cmrc' WHERE id = 1")
        conn.execute("UPDATE annotations SET dataset = 'cmrc'")
        conn.execute("UPDATE datasets SET name = 'cmrc-v2' WHERE id = 1")
        conn.execute("UPDATE datasets SET name = 'cmrc' WHERE id = 1")
        assert ids() == [("K1", None), ("K2", 40), ("K3", 30)]
    finally:
        conn.close()
