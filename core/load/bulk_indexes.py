"""A bulk load of predictions with their secondary indexes built once at the end.

Inserting two million predictions into eight secondary indexes is two million random B-tree
inserts into each (score, category and relation orders within the run); building an index over
the stored rows is one sort. When a load brings at least as many predictions as the table holds
(and `BULK_MIN` or more), the indexes on `predictions` are dropped before the runs are written
and created again after them: a 100-run load of 20,000 questions spends 21 s of CPU on the insert
and the sorts instead of 31 s, and writes far fewer pages (every commit rewrote the indexes'
touched pages).

The statements of the dropped indexes are kept in `settings` (`DEFERRED_KEY`) in the transaction
that drops them, so a load killed before it built them again leaves the database able to: the
next load creates them first (`restore_indexes`). The rows are the same either way; only where
an index's entries come from changes. The `UNIQUE (run_id, item_id)` index stays: it is part of
the table (and what a load's deletes and resumes walk).

A new dataset's items are written the same way (`ITEMS_BULK_MIN`): the items table has fifteen
indexes, one per facet, and their inserts beside the label trigger cost more than the rest of
the dataset's write.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

from qa_inspect.core.store import database_file

from .ingest import transaction

__all__ = ["BULK_MIN", "BULK_WAL_PAGES", "DEFERRED_KEY", "ITEMS_BULK_MIN", "TABLES", "deferred_indexes", "restore_indexes"]

BULK_MIN = 200_000
"""Predictions a load must bring for its indexes to be built after it (below, the sorts' fixed
cost and the rows already stored outweigh the inserts saved)."""
ITEMS_BULK_MIN = 5_000
"""New dataset items from which the items' indexes are built after them: fifteen indexes (a
facet each) with the label trigger made a new item's insert 45 µs; without them 7 µs, and the
fifteen sorts of 20,000 items take 70 ms."""
TABLES = ("predictions", "items")
"""The tables a bulk write may build the indexes of afterwards."""
BULK_WAL_PAGES = 131_072
"""The write-ahead log's pages (512 MB) before a bulk load's runs are copied into the database
file: the runs of one load commit a transaction each, and with SQLite's 1,000 pages nearly every
commit copied the pages and waited for the disk (3 s of a 100-run load). The log the runs leave
is copied beside the index builds (`restore_indexes`)."""
DEFERRED_KEY = "deferred_prediction_indexes"
"""`settings` key: a JSON list of [name, CREATE statement] of the indexes a bulk load dropped."""

_NAME = re.compile(r"^\w+$")
SORT_THREADS = 2
SORT_CACHE_KIB = 2_000
"""Helper threads SQLite's sorter may use while the indexes are built (`PRAGMA threads`), and the
page cache it sorts in meanwhile (SQLite's default size, not the load's 256 MB): at the end of a
load the second scoring process is done, and a sort that spills from a small cache is merged over
both cores, where one that fits a big cache is sorted on one. The eight indexes of 2M predictions:
8.8 s with the load's cache, 8.3 s with threads, 6.0 s with threads and the small cache. SQLite
uses no threads where it was built without them."""


@contextmanager
def deferred_indexes(conn: sqlite3.Connection, incoming: int, table: str = "predictions") -> Iterator[bool]:
    """Inside, `table` (`predictions`, or `items`: `TABLES`) has no secondary index when a bulk
    write is worth it (yields whether it dropped them); on leaving, even by an error, they are
    created again. A kill inside leaves them to the next load's `restore_indexes`."""
    dropped = _drop(conn, incoming, table)
    runs = dropped and table == "predictions"  # many commits to come: the log is copied at the end
    pages = conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    if runs:
        conn.execute(f"PRAGMA wal_autocheckpoint = {max(int(pages), BULK_WAL_PAGES)}")
    try:
        yield dropped
    finally:
        try:
            if dropped:  # the log stays uncopied meanwhile: a thread copies it beside the builds
                restore_indexes(conn, checkpoint_beside=runs)
        finally:
            if runs:
                conn.execute(f"PRAGMA wal_autocheckpoint = {int(pages)}")


def _drop(conn: sqlite3.Connection, incoming: int, table: str) -> bool:
    """Drop the secondary indexes of `table` (statements kept) when `incoming` new rows are many
    and at least as many as the rows stored (`MAX(id)`: an upper bound read from the end of the
    table, not a count of it)."""
    if incoming < (BULK_MIN if table == "predictions" else ITEMS_BULK_MIN):
        return False
    stored = conn.execute(f"SELECT MAX(id) FROM {table}").fetchone()[0] or 0
    if stored > incoming:
        return False
    restore_indexes(conn)  # a killed bulk load's first
    indexes = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?"
                           " AND sql IS NOT NULL ORDER BY name", (table,)).fetchall()
    if not indexes:
        return False
    with transaction(conn):
        conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                     (_key(table), json.dumps([list(row) for row in indexes])))
        for name, _ in indexes:
            if _NAME.match(name):
                conn.execute(f"DROP INDEX IF EXISTS {name}")
    return True


def _key(table: str) -> str:
    return DEFERRED_KEY if table == "predictions" else f"deferred_{table}_indexes"


def restore_indexes(conn: sqlite3.Connection, *, checkpoint_beside: bool = False) -> bool:
    """Create the indexes a bulk write dropped (of every table in `TABLES`) and forget their
    statements (one transaction a table); True when there were any. Each gets planner statistics
    when the database has them, as a migration's new index does (`core.store.schema`).
    `checkpoint_beside`: meanwhile a thread copies the log the load's runs left into the
    database file (`deferred_indexes`)."""
    found = False
    for table in TABLES:
        row = conn.execute("SELECT value FROM settings WHERE key = ?", (_key(table),)).fetchone()
        if row is not None:
            with _checkpointing(conn) if checkpoint_beside else nullcontext():
                _create(conn, json.loads(row[0]), _key(table))
            found = True
    return found


def _create(conn: sqlite3.Connection, indexes: list[list[str]], key: str) -> None:
    analysed = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone() is not None
    threads = conn.execute("PRAGMA threads").fetchone()[0]
    cache = conn.execute("PRAGMA cache_size").fetchone()[0]
    conn.execute(f"PRAGMA threads = {max(threads, SORT_THREADS)}")
    conn.execute(f"PRAGMA cache_size = -{SORT_CACHE_KIB}")
    try:
        for name, sql in indexes[:-1]:  # a transaction each: see `_checkpointing`
            with transaction(conn):
                _build(conn, name, sql, analysed)
        with transaction(conn):  # the statements forgotten with the last: a kill before leaves the rest to the next load
            for name, sql in indexes[-1:]:
                _build(conn, name, sql, analysed)
            conn.execute("DELETE FROM settings WHERE key = ?", (key,))
    finally:
        conn.execute(f"PRAGMA threads = {int(threads)}")
        conn.execute(f"PRAGMA cache_size = {int(cache)}")


def _build(conn: sqlite3.Connection, name: str, sql: str, analysed: bool) -> None:
    there = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (name,)).fetchone()
    if there is None and _NAME.match(name):
        conn.execute(sql)
        if analysed:
            conn.execute(f"ANALYZE {name}")


CHECKPOINT_EVERY = 0.2
"""Seconds between the passive checkpoints beside the index builds."""


@contextmanager
def _checkpointing(conn: sqlite3.Connection) -> Iterator[None]:
    """Passive checkpoints of `conn`'s database on a thread of its own while the caller works,
    and one more once it is done (SQLite copies committed pages while a writer appends, and
    without the GIL); nothing for a database without a file. The caller commits an index at a
    time, so each is copied while the next is built: one transaction for all eight left 2 s of
    copying to its commit, with the second core idle."""
    path = database_file(conn)
    if not path:
        yield
        return
    done = threading.Event()
    thread = threading.Thread(target=_checkpoint_file, args=(path, done), name="bulk-checkpoint", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _checkpoint_file(path: str, done: threading.Event) -> None:
    try:
        other = sqlite3.connect(path, timeout=0)
    except sqlite3.Error:
        return
    try:
        while True:
            finished = done.is_set()  # one more after the caller is done: its last commit
            try:
                other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            except sqlite3.Error:
                pass  # busy, or not a WAL file: the log is copied by the load's own checkpoints later
            if finished:
                return
            done.wait(CHECKPOINT_EVERY)
    finally:
        other.close()
