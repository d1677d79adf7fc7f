"""A changed big dataset over stored rows: staged in committed steps, then applied in one set-based
transaction.

Rewriting a million stored items in one transaction makes a WAL the size of the dataset, and a
kill loses all of it. Instead the new version's rows (as the reading process of `stream` makes
them) go to staging tables, `STEP_ROWS` at a time, each step committed; the stage is keyed by the
file's path and SHA-256 (setting `staging`), so the next load of the same content resumes it and
a load of other content starts it afresh. Readers meanwhile see the old rows: nothing of the
dataset changes until the apply.

The apply compares the stage with the stored rows in SQL and writes only what differs: contexts
and items updated in place (item ids survive, so predictions and annotations stay attached), golds
rewritten for the items whose golds changed, new items inserted, gone ones deleted with their
predictions; predictions rescored where an item's golds or passage changed (all of them when the
scorer changed). Its transaction is as big as the change, and a kill during it leaves the old rows
and the whole stage for the next load. Only the items' positions in the file (`source_line`),
which an added or removed question shifts for every later one, follow in committed steps.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from qa_inspect.core.formats import DatasetStream
from qa_inspect.core.metrics import default_scorer

from .features import FEATURE_COLUMNS
from .ingest import Steps, _drop_gone_items, json_text, rescore_dataset
from .search_index import next_id, reindex_items, unindex_items

__all__ = ["STAGE_SETTING", "StagedWriter", "drop_stage", "has_rows"]

STAGE_SETTING = "staging"
"""settings key: JSON {"path", "sha256"} of the file whose new version the staging tables hold."""

_COLUMNS = ("qkey", "question", "split", "tag", "answer_type", "is_impossible", "source_line", "human_em",
            "human_f1", "meta", *FEATURE_COLUMNS)
"""Item columns copied from the stage as they are (`context_id` and `answerable` are derived)."""
_GOLD_COLUMNS = "idx, text, answer_start, span_start, span_end, superseded"
_TABLES = (
    "CREATE TABLE IF NOT EXISTS staged_contexts (context_key TEXT PRIMARY KEY, title TEXT, text TEXT NOT NULL)",
    f"CREATE TABLE IF NOT EXISTS staged_items (seq INTEGER NOT NULL, key TEXT NOT NULL, context_key TEXT,"
    f" no_answer INTEGER NOT NULL, {', '.join(_COLUMNS)})",
    f"CREATE TABLE IF NOT EXISTS staged_golds (key TEXT NOT NULL, {_GOLD_COLUMNS})",
)
_TEMP = ("stage_golds_changed", "stage_rescore", "stage_reindex", "stage_new")


def has_rows(conn: sqlite3.Connection, name: str) -> bool:
    """Whether the dataset `name` has stored items (a new version of it then replaces them)."""
    return conn.execute("SELECT 1 FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = ? LIMIT 1",
                        (name,)).fetchone() is not None


def drop_stage(conn: sqlite3.Connection) -> None:
    """Forget any stage (dropping a table frees its pages without writing each row to the WAL)."""
    for table in ("staged_contexts", "staged_items", "staged_golds"):
        conn.execute(f"DROP TABLE IF EXISTS {table}")  # noqa: S608
    for table in _TEMP:
        conn.execute(f"DROP TABLE IF EXISTS temp.{table}")  # noqa: S608
    conn.execute("DELETE FROM settings WHERE key = ?", (STAGE_SETTING,))


def _open_stage(conn: sqlite3.Connection, rel_path: str, sha256: str) -> tuple[set[str], set[str], int]:
    """(item keys staged, context keys staged, next seq) of this file content's stage, created (and
    committed) when there is none; a stage of other content is dropped."""
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (STAGE_SETTING,)).fetchone()
    mine = json.dumps({"path": rel_path, "sha256": sha256}, sort_keys=True)
    if row is not None and row[0] == mine:
        keys = {k for (k,) in conn.execute("SELECT key FROM staged_items")}
        contexts = {k for (k,) in conn.execute("SELECT context_key FROM staged_contexts")}
        seq = conn.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM staged_items").fetchone()[0]
        return keys, contexts, seq
    drop_stage(conn)
    for statement in _TABLES:
        conn.execute(statement)
    conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (STAGE_SETTING, mine))
    conn.execute("COMMIT")
    conn.execute("BEGIN IMMEDIATE")
    return set(), set(), 0


class StagedWriter:
    """`stream._Writer`'s counterpart for a changed dataset: the batches go to the stage; `finish`
    applies it."""

    def __init__(self, conn: sqlite3.Connection, stream: DatasetStream, rel_path: str, sha256: str, steps: Steps) -> None:
        self.conn = conn
        self.steps = steps
        self.stream = stream
        self.rel_path = rel_path
        self.done, self.contexts, self.seq = _open_stage(conn, rel_path, sha256)
        self.items = 0
        self.pending = 0

    def add(self, items: list[tuple[Any, ...]], golds: list[tuple[Any, ...]], contexts: list[tuple[Any, ...]]) -> None:
        conn = self.conn
        new = [row for row in contexts if row[0] not in self.contexts]
        self.contexts.update(row[0] for row in new)
        conn.executemany("INSERT INTO staged_contexts (context_key, title, text) VALUES (?, ?, ?)", new)
        rows: list[tuple[Any, ...]] = []
        keys: list[str | None] = []
        for key, qkey, question, ckey, *columns, scored, _idxs, _spans, _original in items:
            if key in self.done:
                keys.append(None)
                continue
            keys.append(key)
            rows.append((self.seq, key, ckey, int(bool(columns[3]) or not scored), qkey, question, *columns))
            self.seq += 1
        conn.executemany(f"INSERT INTO staged_items (seq, key, context_key, no_answer, {', '.join(_COLUMNS)})"
                         f" VALUES ({', '.join('?' * (4 + len(_COLUMNS)))})", rows)
        conn.executemany(f"INSERT INTO staged_golds (key, {_GOLD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         [(keys[n], *rest) for n, *rest in golds if keys[n] is not None])
        self.items += len(items)
        self.pending += len(rows)

    def finish(self, family: str, meta: dict[str, Any], unanswerable: bool, golds: int) -> tuple[int, int, int]:
        """Apply the stage (in the caller's transaction); returns (items, golds, predictions rescored)."""
        conn = self.conn
        stream = self.stream
        scorer = str(stream.hints.get("scorer") or default_scorer(family, unanswerable=unanswerable))
        dataset_id, old_scorer = conn.execute("SELECT id, scorer FROM datasets WHERE name = ?", (stream.name,)).fetchone()
        changed = apply_stage(conn, dataset_id, unanswerable)
        conn.execute(
            "UPDATE datasets SET path=?, format=?, family=?, scorer=?, encoding=?, item_count=?, gold_count=?, meta=?"
            " WHERE id=?", (self.rel_path, stream.format, family, scorer, stream.encoding, self.items, golds,
                            json_text(meta), dataset_id))
        conn.execute("UPDATE runs SET scorer = ? WHERE dataset_id = ?", (scorer, dataset_id))
        rescored = rescore_dataset(conn, dataset_id, None if scorer != old_scorer else changed)
        self.steps.commit()  # the new version, whole
        _follow_lines(conn, dataset_id, self.steps)
        drop_stage(conn)
        return self.items, golds, rescored


def _follow_lines(conn: sqlite3.Connection, dataset_id: int, steps: Steps) -> None:
    """Positions in the file (`source_line`) of items that only moved, in committed steps: a
    question added or removed near the top moves every later one, and rewriting a million rows
    for that in one transaction is what staging avoids. They say where a question sits, not what
    it is; a load killed meanwhile keeps the stage (and the file's old stamp) and finishes them."""
    top = conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM staged_items").fetchone()[0]
    size = steps.size or max(top, 1)
    for low in range(0, top, size):
        conn.execute("UPDATE items SET source_line = s.source_line FROM staged_items s WHERE s.rowid > ? AND s.rowid <= ?"
                     " AND items.dataset_id = ? AND items.key = s.key AND items.source_line IS NOT s.source_line",
                     (low, low + size, dataset_id))
        steps.commit()


def apply_stage(conn: sqlite3.Connection, dataset_id: int, labelled: bool) -> list[int]:
    """Bring the dataset's stored rows to the stage, writing only what differs; returns the ids of
    kept items whose golds or passage changed (their predictions are to be rescored)."""
    d = {"d": dataset_id}
    _compare(conn, d)
    gone = [r[0] for r in conn.execute(
        "SELECT id FROM items WHERE dataset_id = :d AND key NOT IN (SELECT key FROM staged_items)", d)]
    unindex_items(conn, "id IN (SELECT id FROM temp.stage_reindex UNION ALL SELECT value FROM json_each(?))",
                  (json.dumps(gone),))
    _drop_gone_items(conn, dataset_id, gone)
    conn.execute("UPDATE contexts SET title = s.title, text = s.text FROM staged_contexts s WHERE contexts.dataset_id = :d"
                 " AND contexts.context_key = s.context_key AND (contexts.title IS NOT s.title OR contexts.text != s.text)", d)
    conn.execute("INSERT INTO contexts (dataset_id, context_key, title, text) SELECT :d, s.context_key, s.title, s.text"
                 " FROM staged_contexts s WHERE NOT EXISTS (SELECT 1 FROM contexts c WHERE c.dataset_id = :d"
                 " AND c.context_key = s.context_key)", d)
    answerable = ("CASE WHEN s.no_answer THEN 'unanswerable' ELSE 'answerable' END" if labelled else "NULL")
    differs = " OR ".join(f"items.{c} IS NOT s.{c}" for c in _COLUMNS if c != "source_line")  # see `_follow_lines`
    conn.execute(
        f"UPDATE items SET {', '.join(f'{c} = s.{c}' for c in _COLUMNS)}, context_id = c.id, answerable = {answerable}"
        " FROM staged_items s LEFT JOIN contexts c ON c.dataset_id = :d AND c.context_key = s.context_key"
        f" WHERE items.dataset_id = :d AND items.key = s.key AND ({differs} OR items.context_id IS NOT c.id"
        f" OR items.answerable IS NOT {answerable})", d)
    conn.execute("DELETE FROM golds WHERE item_id IN (SELECT i.id FROM temp.stage_golds_changed k JOIN items i"
                 " ON i.dataset_id = :d AND i.key = k.key)", d)
    _insert_golds(conn, "temp.stage_golds_changed", d)
    first = next_id(conn, "items")
    conn.execute(
        f"INSERT INTO items (id, dataset_id, key, context_id, answerable, {', '.join(_COLUMNS)})"
        f" SELECT :first + (row_number() OVER (ORDER BY s.seq)) - 1, :d, s.key, c.id, {answerable},"
        f" {', '.join(f's.{c}' for c in _COLUMNS)} FROM staged_items s JOIN temp.stage_new n ON n.key = s.key"
        " LEFT JOIN contexts c ON c.dataset_id = :d AND c.context_key = s.context_key ORDER BY s.seq",
        {**d, "first": first})
    _insert_golds(conn, "temp.stage_new", d)
    conn.execute("DELETE FROM contexts WHERE dataset_id = :d AND context_key NOT IN"
                 " (SELECT context_key FROM staged_contexts)", d)
    reindex_items(conn, "id IN (SELECT id FROM temp.stage_reindex)", ())
    return [r[0] for r in conn.execute("SELECT id FROM temp.stage_rescore")]


def _insert_golds(conn: sqlite3.Connection, keys: str, d: dict[str, int]) -> None:
    """The staged golds of the items whose keys `keys` (a temp table) holds (none stored)."""
    conn.execute(
        f"INSERT INTO golds (item_id, {_GOLD_COLUMNS}) SELECT i.id, {', '.join(f'g.{c.strip()}' for c in _GOLD_COLUMNS.split(','))}"
        f" FROM staged_golds g JOIN {keys} k ON k.key = g.key JOIN items i ON i.dataset_id = :d AND i.key = g.key"
        " ORDER BY i.id, g.idx", d)


def _compare(conn: sqlite3.Connection, d: dict[str, int]) -> None:
    """Temp tables of what differs, read before anything is written: keys whose golds changed (any
    column, superseded ones too), kept items to rescore (golds or passage changed) and to index
    again (question or golds changed), and the keys of new items."""
    gold = f"key, {_GOLD_COLUMNS}"
    stored = f"SELECT i.key, {', '.join(f'g.{c.strip()}' for c in _GOLD_COLUMNS.split(','))} FROM golds g" \
             " JOIN items i ON i.id = g.item_id WHERE i.dataset_id = :d"
    for table in _TEMP:
        conn.execute(f"DROP TABLE IF EXISTS temp.{table}")  # noqa: S608
    conn.execute("CREATE TEMP TABLE stage_golds_changed (key TEXT PRIMARY KEY)")
    conn.execute(f"INSERT OR IGNORE INTO temp.stage_golds_changed SELECT key FROM (SELECT {gold} FROM staged_golds"
                 f" EXCEPT {stored}) UNION SELECT key FROM ({stored} EXCEPT SELECT {gold} FROM staged_golds)", d)
    kept = ("FROM staged_items s JOIN items i ON i.dataset_id = :d AND i.key = s.key"
            " LEFT JOIN contexts oc ON oc.id = i.context_id LEFT JOIN staged_contexts sc ON sc.context_key = s.context_key")
    conn.execute(f"CREATE TEMP TABLE stage_rescore AS SELECT i.id AS id {kept} WHERE oc.text IS NOT sc.text"
                 " OR s.key IN (SELECT key FROM temp.stage_golds_changed)", d)
    conn.execute(f"CREATE TEMP TABLE stage_reindex AS SELECT i.id AS id {kept} WHERE i.question IS NOT s.question"
                 " OR s.key IN (SELECT key FROM temp.stage_golds_changed)", d)
    conn.execute("CREATE TEMP TABLE stage_new (key TEXT PRIMARY KEY)")
    conn.execute("INSERT INTO temp.stage_new SELECT s.key FROM staged_items s WHERE NOT EXISTS"
                 " (SELECT 1 FROM items i WHERE i.dataset_id = :d AND i.key = s.key)", d)
