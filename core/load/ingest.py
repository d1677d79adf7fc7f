"""Writing one parsed file into the database: a dataset or a run, each in one transaction.

A file either lands whole or not at all (`transaction` rolls back on any error), so a bad file leaves
the database exactly as it was for that file. Item ids survive a reload of their dataset (upsert on
`(dataset_id, key)`), and scores are computed here, once, with the dataset's scorer.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from qa_inspect.core.keys import question_key
from qa_inspect.core.metrics import human_score, score_prediction
from qa_inspect.core.model import Dataset, Run

from .items import dataset_scorer, lookups, resolve

__all__ = [
    "FileStamp",
    "RunCache",
    "RunWrite",
    "delete_path",
    "item_lookup",
    "item_rows_db",
    "record_file",
    "rescore_dataset",
    "scorable_golds",
    "transaction",
    "unindex_predictions",
    "write_dataset",
    "write_run",
]


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction (IMMEDIATE: take the write lock up front, wait on busy_timeout)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _json(value: Any) -> str | None:
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


def write_dataset(conn: sqlite3.Connection, ds: Dataset, rel_path: str) -> tuple[int, int, int]:
    """Upsert a dataset's rows; returns (items, golds, predictions rescored). Caller holds the transaction.

    Items keep their row ids across reloads (matched by key), so predictions and annotations
    stay attached; items gone from the file are deleted with their predictions."""
    gold_count = sum(len(it.golds) for it in ds.items)
    dataset_id = _upsert_dataset_row(conn, ds, rel_path, gold_count)
    context_ids = _write_contexts(conn, ds, dataset_id)
    old_ids = dict(conn.execute("SELECT key, id FROM items WHERE dataset_id = ?", (dataset_id,)).fetchall())
    if old_ids:
        conn.execute("DELETE FROM golds WHERE item_id IN (SELECT id FROM items WHERE dataset_id = ?)", (dataset_id,))
        conn.execute("DELETE FROM items_fts WHERE rowid IN (SELECT id FROM items WHERE dataset_id = ?)", (dataset_id,))
    _write_items(conn, ds, dataset_id, context_ids, old_ids)
    keys = {it.key for it in ds.items}
    _drop_gone_items(conn, dataset_id, [i for key, i in old_ids.items() if key not in keys])
    rescored = rescore_dataset(conn, dataset_id) if old_ids else 0
    return len(ds.items), gold_count, rescored


def _upsert_dataset_row(conn: sqlite3.Connection, ds: Dataset, rel_path: str, gold_count: int) -> int:
    row = conn.execute("SELECT id FROM datasets WHERE name = ?", (ds.name,)).fetchone()
    scorer = dataset_scorer(ds)
    values = (rel_path, ds.format, ds.family, scorer, ds.encoding, len(ds.items), gold_count, _json(ds.meta))
    if row:
        conn.execute(
            "UPDATE datasets SET path=?, format=?, family=?, scorer=?, encoding=?, item_count=?,"
            " gold_count=?, meta=? WHERE id=?",
            (*values, row[0]),
        )
        # Runs are scored with their dataset's scorer: a new choice re-scores them (rescore_dataset).
        conn.execute("UPDATE runs SET scorer = ? WHERE dataset_id = ?", (scorer, row[0]))
        return int(row[0])
    return int(conn.execute(
        "INSERT INTO datasets (name, path, format, family, scorer, encoding, item_count, gold_count, meta)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (ds.name, *values),
    ).lastrowid or 0)


def _write_contexts(conn: sqlite3.Connection, ds: Dataset, dataset_id: int) -> dict[str, int]:
    """Contexts are shared by many items (CMRC: ~4 questions a passage); each is stored once."""
    conn.execute("UPDATE items SET context_id = NULL WHERE dataset_id = ?", (dataset_id,))
    conn.execute("DELETE FROM contexts WHERE dataset_id = ?", (dataset_id,))
    context_ids: dict[str, int] = {}
    for it in ds.items:
        if it.context is None:
            continue
        ckey = it.context_id or f"item:{it.key}"
        if ckey not in context_ids:
            context_ids[ckey] = conn.execute(
                "INSERT OR IGNORE INTO contexts (dataset_id, context_key, title, text) VALUES (?, ?, ?, ?)",
                (dataset_id, ckey, it.title, it.context),
            ).lastrowid
    return context_ids


def _write_items(
    conn: sqlite3.Connection, ds: Dataset, dataset_id: int, context_ids: dict[str, int], old_ids: dict[str, int]
) -> None:
    """Insert new items, update kept ones in place, then their golds and full-text rows."""
    gold_rows: list[tuple[Any, ...]] = []
    fts_rows: list[tuple[Any, ...]] = []
    has_unanswerable = ds.has_unanswerable
    for it in ds.items:
        ctx = context_ids.get(it.context_id or f"item:{it.key}") if it.context is not None else None
        human = _human(ds.family, [g.text for g in it.golds if not g.superseded])
        cols = (
            question_key(it.question), it.question, ctx, it.split, it.tag, it.answer_type,
            ("unanswerable" if it.unanswerable else "answerable") if has_unanswerable else None, int(it.is_impossible), it.line, *human, _json(it.meta),
        )
        item_id = old_ids.get(it.key)
        if item_id is None:
            item_id = conn.execute(
                "INSERT INTO items (dataset_id, key, qkey, question, context_id, split, tag, answer_type,"
                " answerable, is_impossible, source_line, human_em, human_f1, meta)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (dataset_id, it.key, *cols),
            ).lastrowid
        else:
            conn.execute(
                "UPDATE items SET qkey=?, question=?, context_id=?, split=?, tag=?, answer_type=?,"
                " answerable=?, is_impossible=?, source_line=?, human_em=?, human_f1=?, meta=? WHERE id=?",
                (*cols, item_id),
            )
        gold_rows.extend(
            (item_id, idx, g.text, g.answer_start, g.span_start, g.span_end, int(g.superseded))
            for idx, g in enumerate(it.golds)
        )
        fts_rows.append((item_id, it.question, "\n".join(g.text for g in it.golds)))
    conn.executemany(
        "INSERT INTO golds (item_id, idx, text, answer_start, span_start, span_end, superseded)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        gold_rows,
    )
    conn.executemany("INSERT INTO items_fts (rowid, question, golds) VALUES (?, ?, ?)", fts_rows)


def _drop_gone_items(conn: sqlite3.Connection, dataset_id: int, gone: list[int]) -> None:
    """Delete items no longer in the file; their predictions go with them, so runs are recounted."""
    for item_id in gone:
        unindex_predictions(conn, "item_id = ?", (item_id,))
    conn.executemany("DELETE FROM items WHERE id = ?", [(i,) for i in gone])
    if gone:
        conn.execute(
            "UPDATE runs SET prediction_count = (SELECT COUNT(*) FROM predictions p WHERE p.run_id = runs.id)"
            " WHERE dataset_id = ?",
            (dataset_id,),
        )


def _human(family: str, golds: list[str]) -> tuple[float | None, float | None]:
    """Human estimate for span datasets with several golds; CDQA has one gold and no estimate."""
    if family == "cdqa" or len(golds) < 2:
        return None, None
    est = human_score(golds)
    return (None, None) if est is None else (float(est.em), est.f1)


def scorable_golds(conn: sqlite3.Connection, dataset_id: int) -> dict[int, tuple[list[str], list[int]]]:
    """item id → (gold texts that count, their `golds.idx`), superseded golds left out."""
    out: dict[int, tuple[list[str], list[int]]] = {}
    for item_id, idx, text in conn.execute(
        "SELECT g.item_id, g.idx, g.text FROM golds g JOIN items i ON i.id = g.item_id"
        " WHERE i.dataset_id = ? AND g.superseded = 0 ORDER BY g.item_id, g.idx",
        (dataset_id,),
    ):
        texts, idxs = out.setdefault(item_id, ([], []))
        texts.append(text)
        idxs.append(idx)
    return out


def _score(
    scorer: str, text: str, golds: tuple[list[str], list[int]] | None, memo: dict[Any, tuple[Any, ...]] | None = None
) -> tuple[Any, ...]:
    """Stored score columns; `memo` shares results between runs that gave the same answer."""
    texts, idxs = golds or ([], [])
    key = (scorer, text, tuple(texts), tuple(idxs)) if memo is not None else None
    if key is not None and key in memo:  # type: ignore[operator]
        return memo[key]  # type: ignore[index]
    row = score_prediction(scorer, text, texts)
    best = idxs[row.best_gold] if row.best_gold is not None and row.best_gold < len(idxs) else None
    refused = None if row.refused is None else int(row.refused)
    out = (scorer, row.em, row.f1, refused, row.f1_recall, best)
    if key is not None:
        memo[key] = out  # type: ignore[index]
    return out


def rescore_dataset(conn: sqlite3.Connection, dataset_id: int) -> int:
    """Golds changed: recompute stored scores of every run on this dataset from stored prediction text."""
    golds = scorable_golds(conn, dataset_id)
    rows = conn.execute(
        "SELECT p.id, p.item_id, p.text, COALESCE(r.scorer, d.scorer) FROM predictions p"
        " JOIN runs r ON r.id = p.run_id JOIN datasets d ON d.id = r.dataset_id WHERE r.dataset_id = ?",
        (dataset_id,),
    ).fetchall()
    conn.executemany(
        "UPDATE predictions SET scorer=?, em=?, f1=?, refused=?, f1_recall=?, best_gold=? WHERE id=?",
        [(*_score(scorer, text, golds.get(item_id)), pid) for pid, item_id, text, scorer in rows],
    )
    return len(rows)


@dataclass(slots=True)
class RunWrite:
    predictions: int = 0
    unmatched: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)


def item_lookup(conn: sqlite3.Connection, dataset_id: int) -> tuple[dict[str, int], dict[str, int]]:
    """(item key → id, question key → id) to resolve predictions named by id or by question text."""
    return lookups(item_rows_db(conn, dataset_id))


def item_rows_db(conn: sqlite3.Connection, dataset_id: int) -> list[tuple[str, str, str | None, int]]:
    """`(key, question, original question, item id)` rows, as `scoring.lookups` and linking want them."""
    return conn.execute(
        "SELECT key, question, json_extract(meta, '$.original_question'), id FROM items"
        " WHERE dataset_id = ? ORDER BY id",
        (dataset_id,),
    ).fetchall()


@dataclass(slots=True)
class RunCache:
    """Per-load lookups shared by the runs of one dataset (built once, not once per run)."""

    lookups: dict[int, tuple[dict[str, int], dict[str, int], dict[int, tuple[list[str], list[int]]]]] = field(
        default_factory=dict
    )
    memo: dict[Any, tuple[Any, ...]] = field(default_factory=dict)

    def for_dataset(
        self, conn: sqlite3.Connection, dataset_id: int
    ) -> tuple[dict[str, int], dict[str, int], dict[int, tuple[list[str], list[int]]]]:
        if dataset_id not in self.lookups:
            self.lookups[dataset_id] = (*item_lookup(conn, dataset_id), scorable_golds(conn, dataset_id))
        return self.lookups[dataset_id]


def write_run(
    conn: sqlite3.Connection,
    run: Run,
    rel_path: str,
    dataset_id: int | None,
    link_reason: str,
    cache: RunCache | None = None,
) -> RunWrite:
    """Replace this file's run rows; predictions naming unknown items are counted, the rest stored."""
    cache = cache or RunCache()
    result = RunWrite()
    old = conn.execute("SELECT id FROM runs WHERE path = ?", (rel_path,)).fetchone()
    if old:
        unindex_predictions(conn, "run_id = ?", old)
        conn.execute("DELETE FROM runs WHERE id = ?", old)
    scorer = None
    pred_rows: list[tuple[Any, ...]] = []
    if dataset_id is not None:
        scorer = conn.execute("SELECT scorer FROM datasets WHERE id = ?", (dataset_id,)).fetchone()[0]
        by_key, by_q, golds = cache.for_dataset(conn, dataset_id)
        seen: set[int] = set()
        for p in run.predictions:
            item_id = resolve(p, by_key, by_q)
            if item_id is None:
                result.unmatched.append(p.ref)
                continue
            if item_id in seen:
                result.duplicates.append(p.ref)
                continue
            seen.add(item_id)
            cands = [{"text": c.text, "probability": c.probability, "score": c.score} for c in p.candidates]
            pred_rows.append(
                (item_id, p.text, p.raw, _json(cands), p.line, _json(p.meta),
                 *_score(scorer, p.text, golds.get(item_id), cache.memo))
            )
    else:
        result.unmatched = [p.ref for p in run.predictions]
    meta = dict(run.meta)
    if result.unmatched:
        meta["unmatched_sample"] = result.unmatched[:20]
    if result.duplicates:
        meta["duplicate_refs"] = result.duplicates[:20]
    run_id = conn.execute(
        "INSERT INTO runs (name, path, format, dataset_id, model, scorer, encoding, prediction_count,"
        " unmatched_count, link_reason, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (run.name, rel_path, run.format, dataset_id, run.model, scorer, run.encoding, len(pred_rows),
         len(result.unmatched), link_reason, _json(meta)),
    ).lastrowid
    cur = conn.executemany(
        "INSERT INTO predictions (run_id, item_id, text, raw, candidates, source_line, meta, scorer, em, f1,"
        " refused, f1_recall, best_gold) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(run_id, *row) for row in pred_rows],
    )
    del cur
    conn.execute(
        "INSERT INTO predictions_fts (rowid, text) SELECT id, text FROM predictions WHERE run_id = ?", (run_id,)
    )
    result.predictions = len(pred_rows)
    return result


def unindex_predictions(conn: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> None:
    """Take predictions out of the external-content FTS index before their rows go."""
    conn.execute(
        "INSERT INTO predictions_fts (predictions_fts, rowid, text)"
        f" SELECT 'delete', id, text FROM predictions WHERE {where}",
        params,
    )


def delete_path(conn: sqlite3.Connection, rel_path: str) -> None:
    """A source file disappeared: drop its rows (annotations are keyed by name and stay)."""
    for (run_id,) in conn.execute("SELECT id FROM runs WHERE path = ?", (rel_path,)).fetchall():
        unindex_predictions(conn, "run_id = ?", (run_id,))
        conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))
    for (ds_id,) in conn.execute("SELECT id FROM datasets WHERE path = ?", (rel_path,)).fetchall():
        unindex_predictions(conn, "item_id IN (SELECT id FROM items WHERE dataset_id = ?)", (ds_id,))
        conn.execute("DELETE FROM items_fts WHERE rowid IN (SELECT id FROM items WHERE dataset_id = ?)", (ds_id,))
        conn.execute("UPDATE runs SET prediction_count = 0 WHERE dataset_id = ?", (ds_id,))  # rows cascade away
        conn.execute("DELETE FROM datasets WHERE id = ?", (ds_id,))
    conn.execute("DELETE FROM files WHERE path = ?", (rel_path,))
