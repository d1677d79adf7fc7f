"""Stored frames (`core.store.frame_store`) and migration 15 → 16: a database of the previous
version upgrades in place keeping every annotation; arrays round-trip under their stamp, another
stamp reads nothing, and a write that cannot happen is skipped, never raised."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core.store import StoredColumn, frame_stamp, frame_stored, open_db, store_frame, stored_frame
from qa_inspect.core.store.schema import MIGRATIONS

from tests.core.store.previous_version import previous_version, upgraded

FRAMES = next(n for n, script in enumerate(MIGRATIONS) if "frame_columns" in script)


def _previous(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A database as the version before stored frames left it, with annotations and one item."""
    db = tmp_path / "qa.db"
    previous_version(db, FRAMES, monkeypatch, [
        ("2026-01-01T00:00:00Z", "ann", "mark", "cmrc", "K1", "北部", "u1", None, None),
        ("2026-01-02T00:00:00Z", "ann", "label", "cmrc", "K1", "", "u2", "bert", "hallucination")])
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO datasets (id, name, path, format, family, scorer, item_count, gold_count)"
                     " VALUES (1, 'cmrc', 'cmrc.json', 'squad', 'cmrc', 'cmrc2018-official', 1, 0)")
        conn.execute("INSERT INTO items (id, dataset_id, key, qkey, question, source_line)"
                     " VALUES (1, 1, 'K1', 'q1', '哪里?', 1)")
    return db


def test_the_previous_version_upgrades_keeping_every_annotation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _previous(tmp_path, monkeypatch)
    with sqlite3.connect(db) as conn:
        before = conn.execute("SELECT * FROM annotations ORDER BY id").fetchall()
    conn2 = upgraded(db, before)
    try:
        names = {r[0] for r in conn2.execute("SELECT name FROM sqlite_master")}
        assert "frame_columns" in names
    finally:
        conn2.close()


def test_arrays_round_trip_under_their_stamp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = open_db(_previous(tmp_path, monkeypatch)).conn
    stamp = frame_stamp(conn, 1, "salt")
    assert frame_stamp(conn, 1, "other salt") != stamp
    columns = {"ids": StoredColumn("<i8", (1).to_bytes(8, "little")),
               "item:split": StoredColumn("|u1", b"\x01", [None, "dev", 3])}
    assert not frame_stored(conn, 1, 0, stamp) and stored_frame(conn, 1, 0, stamp) is None
    assert store_frame(conn, 1, 0, stamp, columns)
    assert frame_stored(conn, 1, 0, stamp)
    assert stored_frame(conn, 1, 0, stamp) == columns
    assert stored_frame(conn, 1, 5, stamp) is None  # another run's part
    conn.execute("INSERT INTO files (path, kind, size, mtime_ns, sha256, loaded_at)"
                 " VALUES ('cmrc.json', 'dataset', 1, 1, 'x', 'now')")  # a load wrote something
    assert frame_stamp(conn, 1, "salt") != stamp
    assert stored_frame(conn, 1, 0, frame_stamp(conn, 1, "salt")) is None
    smaller = {"ids": columns["ids"]}
    assert store_frame(conn, 1, 0, "new", smaller)  # replaces the part's every array
    assert stored_frame(conn, 1, 0, "new") == smaller and stored_frame(conn, 1, 0, stamp) is None
    conn.close()


def test_a_write_that_cannot_happen_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _previous(tmp_path, monkeypatch)
    open_db(db).conn.close()
    column = {"ids": StoredColumn("<i8", bytes(8))}
    conn = open_db(db).conn
    conn.execute("BEGIN")
    assert not store_frame(conn, 1, 0, "s", column)  # someone's transaction: not ours to commit
    conn.execute("ROLLBACK")
    conn.close()
    ro = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None)
    assert not store_frame(ro, 1, 0, "s", column)
    assert stored_frame(ro, 1, 0, "s") is None
    ro.close()
