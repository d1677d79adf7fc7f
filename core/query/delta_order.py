"""The Δ order of a compared pair of runs, stored so a page sorted by Δ need not sort every item.

At a million items `ORDER BY Δ` computes Δ (`DELTA_SQL`, run B's score − run A's) for every
matching item and sorts them, for each page (1–2 s). Δ is fixed once both runs are scored, so the
items of run A's dataset are kept in the database by (Δ, item id) for each ordered pair (A, B) the
user compares (`delta_pairs`, `delta_order`, schema 11): a page walks that index in the order
shown and stops after one page (`core.query.paging`), in either direction.

- Built on request (`build_delta_order`, a TUI worker when a compare run is chosen; a few
  seconds at 1M), never at load: ten runs would be ninety pairs.
- Stored under a stamp of what Δ is computed from (`pair_stamp`): both runs' rows, their
  dataset's row, the rows of the files they were loaded from, the scoring rules and the Δ
  definition itself. Another stamp → not used (the sorted query answers) and built again on the
  next request. Deleting either run deletes the pair (cascade).
- A page of the pair alone reads the order's index only (from the nearer end); a filtered page
  first gives the sorted query a small allowance (a filter matching few items sorts them in
  milliseconds), then walks the order joined to the filter, within an allowance of its own.
- (B, A) is a pair of its own: its ties go by item id in the sort's direction too, which a
  reversed walk of (A, B)'s index would not give.

Correctness never depends on it: without a fresh order the one sorted query answers, and tests
compare both on small databases.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from typing import Any

from qa_inspect.core.store import LARGE_DATASET, MANIFEST_NAME

from .filters import Filter
from .sql import DELTA_SQL, Built, build, order_clause, run_ids

__all__ = ["DELTA_ORDER_MIN_ITEMS", "build_delta_order", "delta_order_page", "fresh_pair", "pair_stamp"]

_FORMAT = 1
"""Bumped when the stored rows change meaning (the stamp also holds `DELTA_SQL` itself)."""
DELTA_ORDER_MIN_ITEMS = LARGE_DATASET
"""Smaller datasets get no stored order: sorting them by Δ takes about 0.1 s or less (1–2 s at 1M)."""


def _pair_runs(conn: Any, f: Filter) -> tuple[int, int] | None:
    """(run A id, run B id) of a filter that compares two different, known runs, else None."""
    if not f.run or not f.compare or f.run == f.compare:
        return None
    _, run, cmp_ = run_ids(conn, f)
    if run is None or cmp_ is None or cmp_ < 0:
        return None
    return run, cmp_


def pair_stamp(conn: Any, run_a: int, run_b: int) -> str | None:
    """A hash of everything the pair's Δ order is computed from; None when run A has no dataset."""
    runs = [conn.execute("SELECT id, name, path, dataset_id, scorer, prediction_count FROM runs WHERE id = ?",
                         (run,)).fetchone() for run in (run_a, run_b)]
    if runs[0] is None or runs[1] is None or runs[0][3] is None:
        return None
    dataset = conn.execute("SELECT id, path, scorer, item_count, gold_count, fingerprint FROM datasets WHERE id = ?",
                           (runs[0][3],)).fetchone()
    paths = [runs[0][2], runs[1][2], dataset[1] if dataset else None, MANIFEST_NAME]
    files = conn.execute(
        "SELECT path, size, mtime_ns, sha256, loaded_at FROM files WHERE path IN (?, ?, ?, ?) OR owner IN (?, ?)"
        " ORDER BY path", (*paths, runs[0][2], runs[1][2])).fetchall()
    rules = conn.execute("SELECT value FROM settings WHERE key = 'scoring_rules'").fetchone()
    parts = [_FORMAT, DELTA_SQL, [list(r) for r in runs], list(dataset) if dataset else None,
             [list(r) for r in files], rules[0] if rules else None]
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()


def fresh_pair(conn: Any, run_a: int, run_b: int) -> int | None:
    """The stored order's pair id when it is there and its stamp still holds, else None."""
    found = _fresh(conn, run_a, run_b)
    return None if found is None else found[0]


def _fresh(conn: Any, run_a: int, run_b: int) -> tuple[int, int] | None:
    """(pair id, item count) of a fresh stored order, else None."""
    try:
        row = conn.execute("SELECT id, stamp, items FROM delta_pairs WHERE run_a = ? AND run_b = ?",
                           (run_a, run_b)).fetchone()
    except sqlite3.OperationalError:  # a database of before schema 11, opened read-only
        return None
    if row is None or row[1] != pair_stamp(conn, run_a, run_b):
        return None
    return int(row[0]), int(row[2])


def build_delta_order(conn: sqlite3.Connection, f: Filter, min_items: int | None = None) -> bool:
    """Store the Δ order of the filter's pair (run, compare) unless a fresh one is there, or run
    A's dataset has fewer than `min_items` items (default `DELTA_ORDER_MIN_ITEMS`).

    Δ is computed and sorted into a TEMP table first (seconds at 1M; no lock held, other
    writers go on), then copied in key order inside one IMMEDIATE transaction (under half a
    second) that drops a stale order's rows and writes the stamp row saying the new ones are
    complete; a kill or an interrupt leaves the old state. Data changed meanwhile (another
    stamp) → nothing is written. Returns whether a fresh order is there afterwards; a database
    that cannot be written (read-only, busy past the timeout) is not an error, only slower Δ pages."""
    pair = _pair_runs(conn, f)
    if pair is None:
        return False
    if fresh_pair(conn, *pair) is not None:
        return True
    size = conn.execute("SELECT d.item_count FROM runs r JOIN datasets d ON d.id = r.dataset_id WHERE r.id = ?",
                        (pair[0],)).fetchone()
    if size is None or size[0] < (DELTA_ORDER_MIN_ITEMS if min_items is None else min_items):
        return False
    stamp = pair_stamp(conn, *pair)
    if stamp is None:
        return False
    try:
        _sort_into_temp(conn, *pair)
        return _store(conn, *pair, stamp)
    finally:
        conn.execute("DROP TABLE IF EXISTS temp.delta_build")


def _sort_into_temp(conn: sqlite3.Connection, run_a: int, run_b: int) -> None:
    """Δ of every item of run A's dataset, sorted by (Δ, item id), as `temp.delta_build` rows."""
    dataset = conn.execute("SELECT dataset_id FROM runs WHERE id = ?", (run_a,)).fetchone()[0]
    conn.execute("DROP TABLE IF EXISTS temp.delta_build")
    conn.execute(
        f"CREATE TEMP TABLE delta_build AS SELECT {DELTA_SQL} AS delta, i.id AS item_id FROM items i"
        " LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?"
        " LEFT JOIN predictions pb ON pb.item_id = i.id AND pb.run_id = ?"
        " WHERE i.dataset_id = ? ORDER BY delta, i.id", (run_a, run_b, dataset))


def _store(conn: sqlite3.Connection, run_a: int, run_b: int, stamp: str) -> bool:
    """Copy `temp.delta_build` into the pair's order in one transaction, if `stamp` still holds."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError:
        return False
    try:
        if pair_stamp(conn, run_a, run_b) != stamp:  # a load wrote between the sort and now
            conn.execute("ROLLBACK")
            return False
        conn.execute("DELETE FROM delta_pairs WHERE run_a = ? AND run_b = ?", (run_a, run_b))  # its rows cascade
        pair_id = conn.execute(
            "INSERT INTO delta_pairs (run_a, run_b, stamp, items, built_at)"
            " VALUES (?, ?, ?, 0, strftime('%Y-%m-%dT%H:%M:%fZ','now'))", (run_a, run_b, stamp)).lastrowid
        # rows a tool without foreign keys left behind (a pair deleted by hand) would collide
        conn.execute("DELETE FROM delta_order WHERE pair_id = ?", (pair_id,))
        n = conn.execute("INSERT INTO delta_order (pair_id, delta, item_id)"
                         " SELECT ?, delta, item_id FROM temp.delta_build ORDER BY rowid", (pair_id,)).rowcount
        conn.execute("UPDATE delta_pairs SET items = ? WHERE id = ?", (n, pair_id))
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        if conn.in_transaction:  # an interrupted INSERT has rolled the transaction back already
            conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.OperationalError) and "interrupted" not in str(exc):
            return False  # read-only, busy past the timeout, disk full: Δ pages stay the sorted query's
        raise
    return True


def delta_order_page(conn: Any, f: Filter, b: Built, offset: int, limit: int) -> list[int] | None:
    """Ids of rows `offset … offset+limit` of a Δ sort by the stored order (as `order_clause`
    puts them), or None when there is no fresh one or the filter is better served by sorting its
    few matches (a search, a list of keys: an index walk would pass every item to find them).

    A filter on the pair alone reads the order's index without joining a table, and pages past
    the middle from the other end (the item count is stored), so the last page is as quick as
    the first."""
    if f.sort != "delta" or b.compare is None or f.search.strip() or f.keys is not None:
        return None
    pair = _pair_runs(conn, f)
    if pair is None or pair != (b.run, b.compare):
        return None
    found = _fresh(conn, *pair)
    if found is None:
        return None
    pair_id, n = found
    if f == Filter(dataset=f.dataset, run=f.run, compare=f.compare, sort=f.sort, descending=f.descending):
        return _plain_page(conn, pair_id, n, f.descending, offset, limit)
    direction = "DESC" if f.descending else "ASC"
    sql = ("SELECT o.item_id FROM delta_order o CROSS JOIN items i ON i.id = o.item_id"
           " LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?"
           " LEFT JOIN predictions pb ON pb.item_id = i.id AND pb.run_id = ?"
           f"{b.where_sql('o.pair_id = ?')} ORDER BY o.delta {direction}, o.item_id {direction}")
    few = _sorted_if_few(conn, f, offset + limit)
    if few is not None:  # a filter that matches few items: sorting them beat passing a million
        return few[offset:]
    ids = _bounded(conn, sql, [b.run, b.compare, *b.params, pair_id], offset + limit, _slow_walk)
    return None if ids is None else ids[offset:]


_TICK = 1000
"""SQLite instructions between two looks at a query's progress."""
_SORT_FIRST = 300_000
"""The sorted query's allowance (about 10 ms here): within it, the filter matched few items."""
_MOST_STEPS = 3_000_000
"""The walk's allowance (about 0.4 s here); past it the sorted query answers. Its pace is no
guide: the items a filter matches cluster along Δ (run A's errors have Δ ≥ 0, so an ascending
walk meets none of them for its first half million items), so only the total is bounded."""


def _slow_walk(steps: int, _want: int, _found: int) -> bool:
    return steps > _MOST_STEPS


def _sorted_if_few(conn: Any, f: Filter, want: int) -> list[int] | None:
    """The first `want` ids by the one sorted query, if it finishes within `_SORT_FIRST` (not
    tried where instructions cannot be counted: `explain_page` shows the walk's plan)."""
    if getattr(conn, "set_progress_handler", None) is None:
        return None
    sql, params = build(conn, f)
    return _bounded(conn, f"SELECT i.id {sql} ORDER BY {order_clause(f)}", params, want,
                    lambda steps, _want, _found: steps > _SORT_FIRST)


def _bounded(conn: Any, sql: str, params: list[Any], want: int, stop: Callable[[int, int, int], bool]) -> list[int] | None:
    """The first `want` ids of `sql`, or None when `stop(instructions, want, rows found)` says
    to give up (checked every `_TICK` instructions)."""
    found: list[int] = []
    steps = 0
    gave_up = False

    def pace() -> bool:
        nonlocal steps, gave_up
        steps += _TICK
        gave_up = stop(steps, want, len(found))
        return gave_up

    watch = getattr(conn, "set_progress_handler", None)  # absent on `explain_page`'s recorder
    if watch is not None:
        watch(pace, _TICK)
    try:
        for row in conn.execute(f"{sql} LIMIT ? OFFSET ?", [*params, want, 0]):
            found.append(row[0])
    except sqlite3.OperationalError:
        if not gave_up:
            raise
        return None
    finally:
        if watch is not None:
            watch(None, 0)
    return found


def _plain_page(conn: Any, pair_id: int, n: int, descending: bool, offset: int, limit: int) -> list[int]:
    """A page of every item of the dataset: the order's own index, from the nearer end."""
    if offset >= n or limit <= 0:
        return []
    reverse = offset > n // 2
    if reverse:  # the same rows, counted from the other end, then turned around
        descending = not descending
        offset, limit = max(0, n - offset - limit), min(limit, n - offset)
    direction = "DESC" if descending else "ASC"
    ids = [r[0] for r in conn.execute(
        f"SELECT item_id FROM delta_order WHERE pair_id = ? ORDER BY delta {direction}, item_id {direction}"
        " LIMIT ? OFFSET ?", (pair_id, limit, offset))]
    return ids[::-1] if reverse else ids
