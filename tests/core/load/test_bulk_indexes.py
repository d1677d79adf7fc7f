"""`core.load.bulk_indexes`: a bulk load builds the predictions' indexes after its rows, storing
exactly what a load with the indexes in place stores, and a load killed in between leaves them
for the next load to build."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from qa_inspect.core.load import bulk_indexes, load_runs
from qa_inspect.core.store import open_db

ROWS = "SELECT * FROM predictions ORDER BY run_id, item_id"


def _indexes(db: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'predictions'"
                            " ORDER BY name").fetchall()
    finally:
        conn.close()


def _rows(db: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db)
    try:
        runs = {rid: name for rid, name in conn.execute("SELECT id, name FROM runs")}
        cols = [r[1] for r in conn.execute("PRAGMA table_info(predictions)")]
        at = cols.index("run_id")
        # ids are assigned in load order: compare by the run's name, every other column as stored
        return sorted((runs[r[at]], *r[1:at], *r[at + 1:]) for r in conn.execute(ROWS))
    finally:
        conn.close()


def _deferred(db: Path) -> str | None:
    conn = sqlite3.connect(db)
    try:
        row = conn.execute("SELECT value FROM settings WHERE key = ?", (bulk_indexes.DEFERRED_KEY,)).fetchone()
        return None if row is None else row[0]
    finally:
        conn.close()


@pytest.fixture
def runs(sample_runs: Path, tmp_path: Path) -> Path:
    shutil.copytree(sample_runs, tmp_path / "runs", ignore=shutil.ignore_patterns(".qa-inspect"))
    return tmp_path / "runs"


def test_a_bulk_load_stores_every_row_and_index_as_a_load_with_the_indexes_in_place(
        runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = load_runs(runs, tmp_path / "plain.db")
    dropped: list[bool] = []
    real = bulk_indexes._drop

    def spy(conn: sqlite3.Connection, incoming: int, table: str) -> bool:
        done = real(conn, incoming, table)
        dropped.extend([done] if table == "predictions" else [])
        return done

    monkeypatch.setattr(bulk_indexes, "BULK_MIN", 1)
    monkeypatch.setattr(bulk_indexes, "_drop", spy)
    bulk = load_runs(runs, tmp_path / "bulk.db")
    assert dropped == [True]
    assert not plain.errors and not bulk.errors
    assert _rows(tmp_path / "bulk.db") == _rows(tmp_path / "plain.db")
    assert len(_rows(tmp_path / "plain.db")) > 100
    assert _indexes(tmp_path / "bulk.db") == _indexes(tmp_path / "plain.db")
    assert len(_indexes(tmp_path / "plain.db")) >= 8
    assert _deferred(tmp_path / "bulk.db") is None


def test_no_bulk_when_the_table_holds_more_rows_than_come(runs: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "qa.db"
    load_runs(runs, db)
    conn = open_db(db).conn
    try:
        stored = conn.execute("SELECT MAX(id) FROM predictions").fetchone()[0]
        monkeypatch.setattr(bulk_indexes, "BULK_MIN", 1)
        with bulk_indexes.deferred_indexes(conn, stored - 1) as dropped:
            assert not dropped
            assert len(conn.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'predictions'"
                                    " AND type = 'index' AND sql IS NOT NULL").fetchall()) >= 8
        with bulk_indexes.deferred_indexes(conn, stored) as dropped:
            assert dropped
            assert conn.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'predictions'"
                                " AND type = 'index' AND sql IS NOT NULL").fetchall() == []
    finally:
        conn.close()
    assert _deferred(db) is None


def test_indexes_come_back_when_the_bulk_write_fails(runs: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "qa.db"
    load_runs(runs, db)
    before = _indexes(db)
    conn = open_db(db).conn
    monkeypatch.setattr(bulk_indexes, "BULK_MIN", 1)
    try:
        with pytest.raises(RuntimeError), bulk_indexes.deferred_indexes(conn, 10**9):
            raise RuntimeError("a write that failed")
    finally:
        conn.close()
    assert _indexes(db) == before
    assert _deferred(db) is None


_KILLED = """
import os, signal, sys
from pathlib import Path
from qa_inspect.core.load import bulk_indexes, ingest_runs, load_runs
bulk_indexes.BULK_MIN = 1
write = ingest_runs.write_run
seen = [0]
def dying(*args, **kwargs):
    seen[0] += 1
    if seen[0] == int(sys.argv[3]):
        os.kill(os.getpid(), signal.SIGKILL)
    return write(*args, **kwargs)
import qa_inspect.core.load.loader as loader
loader.write_run = dying
load_runs(Path(sys.argv[1]), Path(sys.argv[2]))
"""


def test_a_load_killed_with_its_indexes_dropped_is_finished_by_the_next(runs: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean.db"
    load_runs(runs, clean)
    db = tmp_path / "qa.db"
    killed = subprocess.run([sys.executable, "-c", _KILLED, str(runs), str(db), "3"], capture_output=True, check=False)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert _deferred(db) is not None  # the kill came after the drop: the statements are kept
    assert [name for name, sql in _indexes(db) if sql] == []  # the UNIQUE (run_id, item_id) one stays
    summary = load_runs(runs, db)
    assert not summary.errors, summary.errors
    assert _deferred(db) is None
    assert _indexes(db) == _indexes(clean)
    assert _rows(db) == _rows(clean)


def test_indexes_built_with_sort_threads_leave_the_connection_as_it_was(tmp_path: Path) -> None:
    """The build sorts with helper threads in a small page cache; the connection's own settings
    come back afterwards, and the dropped index is there again."""
    conn = open_db(tmp_path / "qa.db").conn
    conn.execute("PRAGMA cache_size = -65536")
    conn.execute("PRAGMA threads = 0")
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'predictions_item'").fetchone()[0]
    conn.execute("DROP INDEX predictions_item")
    conn.execute("INSERT INTO settings (key, value) VALUES (?, json_array(json_array('predictions_item', ?)))",
                 (bulk_indexes.DEFERRED_KEY, sql))
    conn.commit()
    assert bulk_indexes.restore_indexes(conn)
    assert conn.execute("SELECT sql FROM sqlite_master WHERE name = 'predictions_item'").fetchone() == (sql,)
    assert conn.execute("PRAGMA cache_size").fetchone() == (-65536,)
    assert conn.execute("PRAGMA threads").fetchone() == (0,)
    assert not bulk_indexes.restore_indexes(conn)  # the statements were forgotten


def test_a_bulk_load_leaves_its_log_to_the_checkpoint_beside_the_index_builds(tmp_path: Path) -> None:
    """Inside, the runs' commits append to the log without copying it (a large automatic
    checkpoint); leaving, the index build copies the log beside it and the setting comes back."""
    db = tmp_path / "qa.db"
    conn = open_db(db).conn
    conn.execute("PRAGMA wal_autocheckpoint = 1000")
    with bulk_indexes.deferred_indexes(conn, bulk_indexes.BULK_MIN) as dropped:
        assert dropped
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (bulk_indexes.BULK_WAL_PAGES,)
        conn.execute("INSERT INTO settings (key, value) VALUES ('filler', zeroblob(8000000))")
        conn.commit()
        left = sqlite3.connect(db).execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        assert left[1] > 1000  # the log kept its 2,000 pages: no commit copied them
        conn.execute("DELETE FROM settings WHERE key = 'filler'")
        conn.commit()
    assert conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (1000,)
    assert _indexes(db) and _deferred(db) is None
    busy, log, copied = sqlite3.connect(db).execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    assert (busy, copied) == (0, log)


def test_new_items_are_written_before_their_indexes_and_store_what_a_plain_load_stores(
        runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new dataset's items go in with the items' indexes dropped and built after them: the same
    items, golds and indexes as a load with them in place, nothing left deferred."""
    items = "SELECT key, question, context_id, question_type, gold_count, answerable FROM items ORDER BY dataset_id, key"
    index_sql = "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'items' ORDER BY name"
    plain = load_runs(runs, tmp_path / "plain.db")
    dropped: list[str] = []
    real = bulk_indexes._drop

    def spy(conn: sqlite3.Connection, incoming: int, table: str) -> bool:
        done = real(conn, incoming, table)
        dropped.extend([table] if done else [])
        return done

    monkeypatch.setattr(bulk_indexes, "ITEMS_BULK_MIN", 1)
    monkeypatch.setattr(bulk_indexes, "_drop", spy)
    bulk = load_runs(runs, tmp_path / "bulk.db")
    assert dropped == ["items"] and not plain.errors and not bulk.errors
    a, b = sqlite3.connect(tmp_path / "plain.db"), sqlite3.connect(tmp_path / "bulk.db")
    assert b.execute(items).fetchall() == a.execute(items).fetchall() != []
    assert b.execute(index_sql).fetchall() == a.execute(index_sql).fetchall()
    assert len(a.execute(index_sql).fetchall()) >= 15
    assert b.execute("SELECT COUNT(*) FROM settings WHERE key LIKE 'deferred_%'").fetchone() == (0,)
    assert _rows(tmp_path / "bulk.db") == _rows(tmp_path / "plain.db")


def test_items_indexes_a_killed_load_left_dropped_are_built_by_the_next(tmp_path: Path) -> None:
    conn = open_db(tmp_path / "qa.db").conn
    with pytest.raises(KeyboardInterrupt), bulk_indexes.deferred_indexes(conn, bulk_indexes.ITEMS_BULK_MIN, "items"):
        assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'items_split'").fetchone()
        raise KeyboardInterrupt  # restored on the way out, as a kill would not
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'items_split'").fetchone()
    assert bulk_indexes._drop(conn, bulk_indexes.ITEMS_BULK_MIN, "items")  # and killed here:
    conn.close()  # the statements stay in settings
    conn = open_db(tmp_path / "qa.db").conn
    assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'items_split'").fetchone()
    assert bulk_indexes.restore_indexes(conn)
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'items_split'").fetchone()


def test_each_index_is_committed_as_built_and_a_failure_leaves_the_rest_to_the_next_load(tmp_path: Path) -> None:
    """The indexes are built a transaction each (the log of one is copied while the next is
    built); the statements are forgotten with the last, so a build cut short after some keeps
    what it built and the next restore builds only the others."""
    conn = open_db(tmp_path / "qa.db").conn
    rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'predictions'"
                        " AND name IN ('predictions_item', 'predictions_run_em') ORDER BY name").fetchall()
    for name, _ in rows:
        conn.execute(f"DROP INDEX {name}")
    broken = [list(rows[0]), ["predictions_zz_broken", "CREATE INDEX predictions_zz_broken ON predictions(no_such_column)"]]
    conn.execute("INSERT INTO settings (key, value) VALUES (?, ?)", (bulk_indexes.DEFERRED_KEY, json.dumps(broken)))
    conn.commit()
    with pytest.raises(sqlite3.OperationalError):
        bulk_indexes.restore_indexes(conn)
    assert not conn.in_transaction
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'predictions_item'").fetchone()  # committed
    assert json.loads(_deferred(tmp_path / "qa.db") or "[]") == broken  # still to do
    conn.execute("UPDATE settings SET value = ? WHERE key = ?", (json.dumps([list(r) for r in rows]), bulk_indexes.DEFERRED_KEY))
    conn.commit()
    assert bulk_indexes.restore_indexes(conn)
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE name IN ('predictions_item',"
                                       " 'predictions_run_em') ORDER BY name")] == [r[0] for r in rows]
    assert _deferred(tmp_path / "qa.db") is None
