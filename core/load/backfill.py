"""Item features and error categories for rows stored without them.

A database written before they existed (schema 7; schema 12 for `predictions.relation`) holds
NULL in `items.question_type`, `predictions.error_category` or `predictions.relation`; so do rows an interrupted backfill did not reach (ingest writes
every row with them). Each load ends by filling them (`fill_missing`), in steps that are
committed, so a killed backfill resumes; once nothing is missing, settings `analysis_filled` says
so and later loads look no further.
"""

from __future__ import annotations

import sqlite3

from qa_inspect.core.store import get_setting, set_setting

from .features import FEATURE_COLUMNS, feature_values, item_contexts
from .ingest import Steps, scorable_golds, superseded_golds, transaction
from .score_pool import score_rows

__all__ = ["FILLED", "STEP", "fill_missing"]

STEP = 20_000
"""Rows computed and written per committed step."""


def fill_missing(conn: sqlite3.Connection, step: int = STEP, *, force: bool = False) -> tuple[int, int]:
    """Compute what is missing; returns (items given features, predictions given a category).
    `force`: look even where settings say nothing is missing."""
    if not force and get_setting(conn, FILLED) == "1":
        return 0, 0
    items = predictions = 0
    for (dataset_id,) in conn.execute("SELECT id FROM datasets ORDER BY id").fetchall():
        if conn.execute(_ITEM_MISSING, (dataset_id,)).fetchone() is not None:
            items += _fill_features(conn, dataset_id, step)
    for run_id, dataset_id in conn.execute(
        "SELECT id, dataset_id FROM runs WHERE dataset_id IS NOT NULL ORDER BY id"
    ).fetchall():
        if conn.execute(_PREDICTION_MISSING, (run_id,)).fetchone() is not None:
            predictions += _fill_categories(conn, run_id, dataset_id, step)
    set_setting(conn, FILLED, "1")  # its own transaction
    return items, predictions


FILLED = "analysis_filled"
"""Settings key: "1" once no item lacks its features and no prediction its category."""
# Served by the (dataset_id, question_type) index, and by the (run_id, error_category, …) and
# (run_id, relation, …) ones: a seek each (one `OR` of the two walked every row of the run: 0.8 s of
# a 100-run load).
_ITEM_MISSING = "SELECT 1 FROM items WHERE dataset_id = ? AND question_type IS NULL LIMIT 1"
_PREDICTION_MISSING = ("SELECT 1 WHERE EXISTS (SELECT 1 FROM predictions WHERE run_id = ?1 AND error_category IS NULL)"
                       " OR EXISTS (SELECT 1 FROM predictions WHERE run_id = ?1 AND relation IS NULL)")


def _fill_features(conn: sqlite3.Connection, dataset_id: int, step: int) -> int:
    rows = conn.execute(
        "SELECT i.id, i.question FROM items i WHERE i.dataset_id = ? AND i.question_type IS NULL", (dataset_id,)
    ).fetchall()
    golds = scorable_golds(conn, dataset_id)
    contexts = item_contexts(conn, dataset_id)
    update = f"UPDATE items SET {', '.join(c + ' = ?' for c in FEATURE_COLUMNS)} WHERE id = ?"
    with transaction(conn):
        steps = Steps(conn, step)
        for chunk in steps.chunks(rows):
            values = []
            for item_id, question in chunk:
                texts = golds.get(item_id, ([], []))[0]
                passage, spans, _ = contexts.get(item_id, (None, (), False))
                values.append((*feature_values(question, texts, passage, spans), item_id))
            conn.executemany(update, values)
    return len(rows)


def _fill_categories(conn: sqlite3.Connection, run_id: int, dataset_id: int, step: int) -> int:
    """Re-score the run's predictions that lack a category or a relation (the scores come out as stored)."""
    rows = conn.execute(
        "SELECT p.id, p.item_id, p.text, COALESCE(r.scorer, d.scorer) FROM predictions p JOIN runs r ON r.id = p.run_id"
        " JOIN datasets d ON d.id = r.dataset_id WHERE p.run_id = ? AND (p.error_category IS NULL OR p.relation IS NULL)",
        (run_id,),
    ).fetchall()
    golds = scorable_golds(conn, dataset_id)
    contexts = item_contexts(conn, dataset_id)
    replaced = superseded_golds(conn, dataset_id)
    with transaction(conn):
        steps = Steps(conn, step)
        for chunk in steps.chunks(rows):
            scores = score_rows([(scorer, text, _golds(golds, item_id), contexts.get(item_id), replaced.get(item_id, ()))
                                 for _, item_id, text, scorer in chunk])
            conn.executemany(
                "UPDATE predictions SET scorer=?, em=?, f1=?, refused=?, f1_recall=?, best_gold=?, error_category=?,"
                " relation=? WHERE id=?",
                [(*score, row[0]) for score, row in zip(scores, chunk)],
            )
    return len(rows)


def _golds(golds: dict[int, tuple[list[str], list[int]]], item_id: int) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    found = golds.get(item_id)
    return None if found is None else (tuple(found[0]), tuple(found[1]))
