"""Writing one parsed dataset into the database, set-based, and the helpers every write shares.

Rows go in with `executemany` and ids assigned up front (no row-at-a-time `lastrowid`); the search
index is filled after the bulk insert (`search_index`). A dataset stored for the first time is
written in bounded steps (`Steps`: a commit every so many rows), so a killed load keeps what it
committed and the next load resumes it (`resume=True`: items already stored are skipped). A
dataset that replaces stored rows is written in one transaction: item ids survive the reload
(matched by key), so predictions and annotations stay attached, and either the old rows or the
new ones are there, never a mix (a big file, read by `stream`, is staged in steps instead and
applied set-based: `staging`). Scores are computed here, once, with the dataset's scorer; the
human estimate once per distinct gold tuple, and only for golds that changed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from qa_inspect.core.keys import question_key
from qa_inspect.core.metrics import human_score
from qa_inspect.core.model import Dataset, Item

from .completions import rescore_samples
from .features import FEATURE_COLUMNS, Beside, Context, FeatureMemo, gold_spans, item_contexts
from .items import dataset_scorer
from .score_pool import score_rows
from .search_index import next_id, reindex_items, unindex_items, unindex_predictions

__all__ = [
    "FileStamp",
    "HumanMemo",
    "Steps",
    "delete_path",
    "item_rows_db",
    "json_text",
    "parents_known",
    "record_file",
    "rescore_dataset",
    "scorable_golds",
    "superseded_golds",
    "transaction",
    "write_dataset",
]

T = TypeVar("T")
GoldKey = tuple[tuple[int, str], ...]
"""An item's scorable golds as (golds.idx, text) pairs: what its scores depend on."""


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction (IMMEDIATE: take the write lock up front, wait on busy_timeout)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:  # SQLite rolls back by itself after some errors
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def parents_known(conn: sqlite3.Connection, known: bool) -> Iterator[None]:
    """Inside, when `known`, SQLite's foreign-key checks are off (outside a transaction only: the
    setting cannot change inside one). A load writing a file that no stored row comes from inserts
    rows whose parents it has just written (the run) or read (the dataset's items) and deletes
    nothing, so the checks (a B-tree lookup per parent and row: a quarter of a prediction's insert,
    a sixth of a sample's) have nothing to refuse and no cascade to run."""
    was = conn.execute("PRAGMA foreign_keys").fetchone()[0]
    if not known or not was or conn.in_transaction:
        yield
        return
    conn.execute("PRAGMA foreign_keys = OFF")
    try:
        yield
    finally:
        conn.execute("PRAGMA foreign_keys = ON")


@dataclass(slots=True)
class Steps:
    """Commits a long write every `size` rows inside the caller's transaction (None: never), so
    a killed load loses at most the step in flight."""

    conn: sqlite3.Connection
    size: int | None = None

    def chunks(self, rows: Sequence[T]) -> Iterator[Sequence[T]]:
        """`rows` in slices of `size`, committing after each one (one slice when `size` is None)."""
        if self.size is None:
            yield rows
            return
        for start in range(0, len(rows), self.size):
            yield rows[start:start + self.size]
            self.commit()

    def commit(self) -> None:
        if self.size is not None:
            self.conn.execute("COMMIT")
            self.conn.execute("BEGIN IMMEDIATE")


def json_text(value: Any) -> str | None:
    """A JSON column: NULL for an empty value, keys sorted, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True) if value else None


@dataclass(slots=True)
class FileStamp:
    """What the `files` table remembers of a source file to skip it next time."""

    path: str
    kind: str
    size: int
    mtime_ns: int
    sha256: str
    format: str | None = None
    encoding: str | None = None
    owner: str | None = None
    note: str | None = None


def record_file(conn: sqlite3.Connection, stamp: FileStamp) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO files (path, kind, size, mtime_ns, sha256, format, encoding, owner, note,"
        " loaded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))",
        (stamp.path, stamp.kind, stamp.size, stamp.mtime_ns, stamp.sha256, stamp.format, stamp.encoding,
         stamp.owner, stamp.note),
    )


# --- datasets ------------------------------------------------------------------------------------

_ITEM_COLUMNS = ("qkey, question, context_id, split, tag, answer_type, answerable, is_impossible, source_line,"
                 " human_em, human_f1, meta, " + ", ".join(FEATURE_COLUMNS))


def write_dataset(
    conn: sqlite3.Connection, ds: Dataset, rel_path: str, steps: Steps | None = None, *, resume: bool = False,
    pool: Beside | None = None,
) -> tuple[int, int, int]:
    """Store a dataset's rows; returns (items, golds, predictions rescored). The caller holds the
    transaction. Stored items of the same dataset are updated in place (one transaction: `steps`
    is not used then), those gone from the file deleted with their predictions; with `resume` the
    stored items are what an interrupted load of this very file committed, and are kept as they are.
    `pool`: new items' features are computed half there (`FeatureMemo.fill`)."""
    gold_count = sum(len(it.golds) for it in ds.items)
    dataset_id, old_scorer = _upsert_dataset_row(conn, ds, rel_path, gold_count)
    old = _stored_items(conn, dataset_id)
    if old and not resume:
        return len(ds.items), gold_count, _rewrite_items(conn, ds, dataset_id, old, old_scorer)
    steps = steps or Steps(conn)
    context_ids = _insert_contexts(conn, ds, dataset_id, steps, keep=bool(old))
    todo = [it for it in ds.items if it.key not in old] if old else ds.items
    features = FeatureMemo()
    if pool is not None:
        features.fill([(it.question, _scored(it), it.context, gold_spans(it.golds)) for it in todo], pool)
    _insert_items(conn, ds, dataset_id, todo, context_ids, steps, features=features)
    return len(ds.items), gold_count, 0


def _scored(it: Item) -> tuple[str, ...]:
    return tuple(g.text for g in it.golds if not g.superseded)


def _upsert_dataset_row(conn: sqlite3.Connection, ds: Dataset, rel_path: str, gold_count: int) -> tuple[int, str | None]:
    """(dataset id, the scorer it had: None when new)."""
    row = conn.execute("SELECT id, scorer FROM datasets WHERE name = ?", (ds.name,)).fetchone()
    scorer = dataset_scorer(ds)
    values = (rel_path, ds.format, ds.family, scorer, ds.encoding, len(ds.items), gold_count, json_text(ds.meta))
    if row:
        conn.execute(
            "UPDATE datasets SET path=?, format=?, family=?, scorer=?, encoding=?, item_count=?,"
            " gold_count=?, meta=? WHERE id=?",
            (*values, row[0]),
        )
        # Runs are scored with their dataset's scorer: a new choice re-scores them (rescore_dataset).
        conn.execute("UPDATE runs SET scorer = ? WHERE dataset_id = ?", (scorer, row[0]))
        return int(row[0]), row[1]
    cur = conn.execute(
        "INSERT INTO datasets (name, path, format, family, scorer, encoding, item_count, gold_count, meta)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (ds.name, *values),
    )
    return int(cur.lastrowid or 0), None


def _stored_items(conn: sqlite3.Connection, dataset_id: int) -> dict[str, int]:
    return dict(conn.execute("SELECT key, id FROM items WHERE dataset_id = ?", (dataset_id,)).fetchall())


def _context_key(it: Item) -> str:
    return it.context_id or f"item:{it.key}"


def _insert_contexts(
    conn: sqlite3.Connection, ds: Dataset, dataset_id: int, steps: Steps, *, keep: bool
) -> dict[str, int]:
    """Contexts are shared by many items (CMRC: ~4 questions a passage); each is stored once.
    `keep`: contexts already stored for this dataset are reused (a resumed load)."""
    ids: dict[str, int] = {}
    if keep:
        ids.update(conn.execute("SELECT context_key, id FROM contexts WHERE dataset_id = ?", (dataset_id,)))
    next_ctx = conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM contexts").fetchone()[0]
    rows: list[tuple[Any, ...]] = []
    for it in ds.items:
        if it.context is None:
            continue
        ckey = _context_key(it)
        if ckey not in ids:
            ids[ckey] = next_ctx
            rows.append((next_ctx, dataset_id, ckey, it.title, it.context))
            next_ctx += 1
    for chunk in steps.chunks(rows):
        conn.executemany("INSERT INTO contexts (id, dataset_id, context_key, title, text) VALUES (?, ?, ?, ?, ?)", chunk)
    return ids


class HumanMemo:
    """The human estimate of a gold tuple, computed once per distinct tuple (replicated or
    templated datasets repeat them) and seeded from the stored values on a reload."""

    __slots__ = ("family", "known")

    def __init__(self, family: str) -> None:
        self.family = family
        self.known: dict[tuple[str, ...], tuple[float | None, float | None]] = {}

    def of(self, texts: tuple[str, ...]) -> tuple[float | None, float | None]:
        """Human estimate for span datasets with several golds; CDQA has one gold and no estimate."""
        if self.family == "cdqa" or len(texts) < 2:
            return None, None
        found = self.known.get(texts)
        if found is None:
            est = human_score(texts)
            found = self.known[texts] = (None, None) if est is None else (float(est.em), est.f1)
        return found


def _item_rows(
    items: Sequence[Item], ids: Sequence[int], context_ids: dict[str, int], human: HumanMemo, labelled: bool,
    features: FeatureMemo | None = None,
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(item column values, gold rows) for `items`, whose ids are `ids`. Item values follow
    `_ITEM_COLUMNS` and end with the item id; `labelled`: the dataset has unanswerable items."""
    item_rows: list[tuple[Any, ...]] = []
    gold_rows: list[tuple[Any, ...]] = []
    features = features or FeatureMemo()
    for it, item_id in zip(items, ids):
        golds = it.golds
        scored = _scored(it)
        unanswerable = it.is_impossible or not scored
        ctx = context_ids.get(_context_key(it)) if it.context is not None else None
        item_rows.append((
            question_key(it.question), it.question, ctx, it.split, it.tag, it.answer_type,
            ("unanswerable" if unanswerable else "answerable") if labelled else None, int(it.is_impossible),
            it.line, *human.of(scored), json_text(it.meta),
            *features.of(it.question, scored, it.context, gold_spans(golds)), item_id,
        ))
        gold_rows.extend(
            (item_id, idx, g.text, g.answer_start, g.span_start, g.span_end, int(g.superseded))
            for idx, g in enumerate(golds)
        )
    return item_rows, gold_rows


_INSERT_ITEM = (f"INSERT INTO items ({_ITEM_COLUMNS}, id, dataset_id, key)"
                f" VALUES ({', '.join('?' * (15 + len(FEATURE_COLUMNS)))})")
_INSERT_GOLD = ("INSERT INTO golds (item_id, idx, text, answer_start, span_start, span_end, superseded)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)")


def _insert_items(
    conn: sqlite3.Connection, ds: Dataset, dataset_id: int, items: Sequence[Item], context_ids: dict[str, int],
    steps: Steps, human: HumanMemo | None = None, features: FeatureMemo | None = None,
) -> None:
    """New items (ids from `next_id`, so none counts as indexed for search) with their golds."""
    first = next_id(conn, "items")
    human = human or HumanMemo(ds.family)
    features = features or FeatureMemo()
    labelled = ds.has_unanswerable
    for start, chunk in _slices(items, steps.size):
        ids = range(first + start, first + start + len(chunk))
        rows, gold_rows = _item_rows(chunk, ids, context_ids, human, labelled, features)
        conn.executemany(_INSERT_ITEM, [(*row, dataset_id, it.key) for row, it in zip(rows, chunk)])
        conn.executemany(_INSERT_GOLD, gold_rows)
        steps.commit()


def _slices(rows: Sequence[T], size: int | None) -> Iterator[tuple[int, Sequence[T]]]:
    size = size or max(1, len(rows))
    for start in range(0, len(rows), size):
        yield start, rows[start:start + size]


def _rewrite_items(
    conn: sqlite3.Connection, ds: Dataset, dataset_id: int, old: dict[str, int], old_scorer: str | None
) -> int:
    """A changed dataset over stored rows, in the caller's one transaction: contexts and golds
    written anew, kept items updated in place (same ids), new ones inserted, gone ones deleted;
    predictions rescored where an item's golds (or the dataset's scorer) changed. Returns how
    many predictions were rescored."""
    stored = scorable_golds(conn, dataset_id)
    before = _gold_keys(stored)
    passages = _passage_hashes(conn, dataset_id)
    human = HumanMemo(ds.family)
    human.known.update(_stored_human(conn, dataset_id, stored))
    where = "dataset_id = ?", (dataset_id,)
    unindex_items(conn, *where)
    conn.execute("UPDATE items SET context_id = NULL WHERE dataset_id = ?", (dataset_id,))
    conn.execute("DELETE FROM contexts WHERE dataset_id = ?", (dataset_id,))
    conn.execute("DELETE FROM golds WHERE item_id IN (SELECT id FROM items WHERE dataset_id = ?)", (dataset_id,))
    context_ids = _insert_contexts(conn, ds, dataset_id, Steps(conn), keep=False)
    kept = [it for it in ds.items if it.key in old]
    rows, gold_rows = _item_rows(kept, [old[it.key] for it in kept], context_ids, human, ds.has_unanswerable)
    conn.executemany(f"UPDATE items SET {', '.join(c.strip() + '=?' for c in _ITEM_COLUMNS.split(','))} WHERE id=?",
                     rows)
    conn.executemany(_INSERT_GOLD, gold_rows)
    keys = {it.key for it in ds.items}
    _drop_gone_items(conn, dataset_id, [i for key, i in old.items() if key not in keys])
    reindex_items(conn, *where)
    _insert_items(conn, ds, dataset_id, [it for it in ds.items if it.key not in old], context_ids, Steps(conn), human)
    if old_scorer != dataset_scorer(ds):
        return rescore_dataset(conn, dataset_id)
    after = _gold_keys(scorable_golds(conn, dataset_id))
    moved = _passage_hashes(conn, dataset_id)  # a new passage: the same answer may be another kind of error
    changed = [item_id for item_id, golds in after.items()
               if before.get(item_id) != golds or passages.get(item_id) != moved.get(item_id)]
    return rescore_dataset(conn, dataset_id, changed)


def _passage_hashes(conn: sqlite3.Connection, dataset_id: int) -> dict[int, int]:
    """item id → a hash of its passage and gold spans (what an error category depends on besides the golds)."""
    return {item_id: hash((text, spans)) for item_id, text, spans in conn.execute(
        "SELECT i.id, c.text, (SELECT group_concat(COALESCE(g.span_start, '') || ':' || COALESCE(g.span_end, ''))"
        " FROM golds g WHERE g.item_id = i.id AND g.superseded = 0) FROM items i LEFT JOIN contexts c"
        " ON c.id = i.context_id WHERE i.dataset_id = ?", (dataset_id,))}


def _gold_keys(golds: dict[int, tuple[list[str], list[int]]]) -> dict[int, GoldKey]:
    return {item_id: tuple(zip(idxs, texts)) for item_id, (texts, idxs) in golds.items()}


def _stored_human(
    conn: sqlite3.Connection, dataset_id: int, golds: dict[int, tuple[list[str], list[int]]]
) -> Iterator[tuple[tuple[str, ...], tuple[float, float]]]:
    """(gold texts → human estimate) as stored: a reload computes it only for golds that changed."""
    rows = conn.execute("SELECT id, human_em, human_f1 FROM items WHERE dataset_id = ? AND human_f1 IS NOT NULL",
                        (dataset_id,)).fetchall()
    for item_id, em, f1 in rows:
        texts = golds.get(item_id)
        if texts is not None:
            yield tuple(texts[0]), (em, f1)


def _drop_gone_items(conn: sqlite3.Connection, dataset_id: int, gone: list[int]) -> None:
    """Delete items no longer in the file (the caller took them out of the search index); their
    predictions go with them, so runs are recounted: a prediction of a gone item counts as
    unmatched, as a fresh load of the run would count it."""
    if not gone:
        return
    ids = json.dumps(gone)
    unindex_predictions(conn, "item_id IN (SELECT value FROM json_each(?))", (ids,))
    conn.execute("DELETE FROM items WHERE id IN (SELECT value FROM json_each(?))", (ids,))
    conn.execute(
        "UPDATE runs SET unmatched_count = unmatched_count + prediction_count - (SELECT COUNT(*) FROM predictions p"
        " WHERE p.run_id = runs.id), prediction_count = (SELECT COUNT(*) FROM predictions p WHERE p.run_id = runs.id)"
        " WHERE dataset_id = ?",
        (dataset_id,),
    )


def superseded_golds(conn: sqlite3.Connection, dataset_id: int) -> dict[int, tuple[str, ...]]:
    """item id → its superseded gold texts (the answers the dataset replaced), for the stored
    relation (`score_pool`); read through the partial index `golds_superseded`."""
    out: dict[int, tuple[str, ...]] = {}
    for item_id, text in conn.execute(
        "SELECT g.item_id, g.text FROM golds g INDEXED BY golds_superseded JOIN items i ON i.id = g.item_id"
        " WHERE g.superseded = 1 AND i.dataset_id = ? ORDER BY g.item_id, g.idx", (dataset_id,)
    ):
        out[item_id] = (*out.get(item_id, ()), text)
    return out


def scorable_golds(conn: sqlite3.Connection, dataset_id: int) -> dict[int, tuple[list[str], list[int]]]:
    """item id → (gold texts that count, their `golds.idx`), superseded golds left out.

    Read in table order (a sequential scan: following the (item_id, idx) index would visit the
    golds of a million items at random); an item's golds are inserted together in idx order, and
    are put in that order should they not be."""
    out: dict[int, tuple[list[str], list[int]]] = {}
    unordered: set[int] = set()
    for item_id, idx, text in conn.execute(
        "SELECT g.item_id, g.idx, g.text FROM golds g NOT INDEXED JOIN items i ON i.id = g.item_id"
        " WHERE +i.dataset_id = ? AND g.superseded = 0",
        (dataset_id,),
    ):
        entry = out.get(item_id)
        if entry is None:
            entry = out[item_id] = ([], [])
        elif idx < entry[1][-1]:
            unordered.add(item_id)
        entry[0].append(text)
        entry[1].append(idx)
    for item_id in unordered:
        pairs = sorted(zip(out[item_id][1], out[item_id][0]))
        out[item_id] = ([t for _, t in pairs], [i for i, _ in pairs])
    return out


def rescore_dataset(conn: sqlite3.Connection, dataset_id: int, only: list[int] | None = None) -> int:
    """Golds changed: recompute stored scores and error categories of every run on this dataset
    (of the items `only`, when given) from stored prediction text. Returns how many predictions
    were rescored."""
    if only is None:
        golds, contexts = scorable_golds(conn, dataset_id), item_contexts(conn, dataset_id)
    else:
        golds, contexts = _golds_and_contexts(conn, json.dumps(only))
    superseded = superseded_golds(conn, dataset_id)
    where, params = ("", ()) if only is None else (" AND p.item_id IN (SELECT value FROM json_each(?))",
                                                   (json.dumps(only),))
    rows = conn.execute(
        "SELECT p.id, p.item_id, p.text, COALESCE(r.scorer, d.scorer) FROM predictions p"
        " JOIN runs r ON r.id = p.run_id JOIN datasets d ON d.id = r.dataset_id WHERE r.dataset_id = ?" + where,
        (dataset_id, *params),
    ).fetchall()
    scores = score_rows([(scorer, text, golds.get(item_id), contexts.get(item_id), superseded.get(item_id, ()))
                         for _, item_id, text, scorer in rows])
    conn.executemany(
        "UPDATE predictions SET scorer=?, em=?, f1=?, refused=?, f1_recall=?, best_gold=?, error_category=?, relation=?"
        " WHERE id=?",
        [(*score, row[0]) for score, row in zip(scores, rows)],
    )
    rescore_samples(conn, dataset_id, golds, where, params)  # and every sample of runs that sampled
    return len(rows)


def _golds_and_contexts(
    conn: sqlite3.Connection, ids: str
) -> tuple[dict[int, tuple[list[str], list[int]]], dict[int, Context]]:
    """`scorable_golds` and `features.item_contexts` of the items `ids` (a JSON list) only: a few
    changed items of a million-item dataset need not hold every passage in memory."""
    golds: dict[int, tuple[list[str], list[int]]] = {}
    spans: dict[int, list[Any]] = {}
    for item_id, idx, text, start, end in conn.execute(
        "SELECT item_id, idx, text, span_start, span_end FROM golds WHERE item_id IN (SELECT value FROM json_each(?))"
        " AND superseded = 0 ORDER BY item_id, idx", (ids,)
    ):
        entry = golds.setdefault(item_id, ([], []))
        entry[0].append(text)
        entry[1].append(idx)
        spans.setdefault(item_id, []).append(None if start is None or end is None else (start, end))
    contexts: dict[int, Context] = {
        item_id: (passage, tuple(spans.get(item_id, ())), bool(impossible))
        for item_id, passage, impossible in conn.execute(
            "SELECT i.id, c.text, i.is_impossible FROM items i LEFT JOIN contexts c ON c.id = i.context_id"
            " WHERE i.id IN (SELECT value FROM json_each(?))", (ids,))
    }
    return golds, contexts


def item_rows_db(conn: sqlite3.Connection, dataset_id: int) -> list[tuple[str, str, str | None, int]]:
    """`(key, question, original question, item id)` rows, as `scoring.lookups` and linking want them."""
    return conn.execute(
        "SELECT key, question, json_extract(meta, '$.original_question'), id FROM items"
        " WHERE +dataset_id = ? ORDER BY id",  # a scan in id order, not an index walk and a sort
        (dataset_id,),
    ).fetchall()


def delete_path(conn: sqlite3.Connection, rel_path: str) -> None:
    """A source file disappeared: drop its rows (annotations are keyed by name and stay)."""
    for (run_id,) in conn.execute("SELECT id FROM runs WHERE path = ?", (rel_path,)).fetchall():
        unindex_predictions(conn, "run_id = ?", (run_id,))
        conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))
    for (ds_id,) in conn.execute("SELECT id FROM datasets WHERE path = ?", (rel_path,)).fetchall():
        unindex_predictions(conn, "item_id IN (SELECT id FROM items WHERE dataset_id = ?)", (ds_id,))
        unindex_items(conn, "dataset_id = ?", (ds_id,))
        conn.execute("UPDATE runs SET prediction_count = 0 WHERE dataset_id = ?", (ds_id,))  # rows cascade away
        conn.execute("DELETE FROM datasets WHERE id = ?", (ds_id,))
    conn.execute("DELETE FROM verdicts WHERE source = ?", (rel_path,))  # judge verdicts read from it
    conn.execute("DELETE FROM files WHERE path = ?", (rel_path,))
