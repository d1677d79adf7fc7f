"""Pages sorted by a registry column (`core.query.columns`) without sorting every item.

`ORDER BY <column>` over a million items computes the value of each and sorts them all, for each
page (0.7–2.5 s). Here the sort is a few ordered parts, each walking an index in the order shown
and stopping after the page (`page_sql.chain`), as `order_clause` orders them: values first (ties
by item id in the sort's direction), then the items without a value by id.

- run A's labels: the stored label sets by `(run, dataset, labels, item_id)` (schema 18), then
  the items without a label (or without a prediction, whose labels the column leaves NULL);
- run A's error category and relation: its index `(run_id, value, item_id)` (schema 15); items
  without a prediction have the category `no prediction`, a part of their own in its place;
- an item feature: its index `(dataset_id, value)` (schema 15), entries ending in the item id;
- a `meta` key: its expression index (`core.store.meta_index`), when the load made one;
- another run's score: that run's score index (F1, or F1-recall for a run without F1);
- another run's answer: down the answers' index (`core.store.text_indexes`, made by the load of
  a large dataset); without it, and with no condition but the dataset, that run's answers sorted
  alone (no join per item; a few hundred ms at a million).

Anything else (no index, or a filter this cannot answer) returns None: the one sorted query.
Every part returns the ids `order_clause` would, in the same order; tests compare them.
"""

from __future__ import annotations

from typing import Any

from qa_inspect.core.store import ANSWER_INDEX, meta_index, meta_value_sql

from .columns import column_def
from .filters import Filter
from .item_sql import NO_PREDICTION
from .page_sql import Part, has_index, items_sql, joins_b
from .sql import Built

__all__ = ["FEATURE_INDEXES", "LABEL_INDEX", "RUN_INDEXES", "column_parts"]

RUN_INDEXES = {"error_category": "predictions_run_category", "relation": "predictions_run_relation"}
"""Run A's prediction columns with an index `(run_id, column, item_id)`."""
LABEL_INDEX = "label_sets_order"
"""The stored label sets by `(run, dataset, labels, item_id)` (schema 18, `core.store.label_state`)."""
FEATURE_INDEXES = {name: f"items_{name}" for name in (
    "question_type", "gold_length", "passage_length", "answer_position", "gold_count", "gold_agreement",
    "cross_sentence", "question_overlap")}
"""Item features with an index `(dataset_id, column)`; `cross_sentence` (1/0) shows as yes/no,
which sorts as 1/0 does."""


def column_parts(conn: Any, f: Filter, b: Built, direction: str) -> list[Part] | None:
    """The ordered parts of a page of `f` sorted by a registry column, or None (sort instead)."""
    if b.where[:1] != ("i.dataset_id = ?",):
        return None
    name = column_def(f.sort).name
    kind, _, arg = name.partition(":")
    if name in FEATURE_INDEXES:
        return _feature(b, name, direction) if has_index(conn, FEATURE_INDEXES[name]) else None
    if b.run <= 0:
        return None
    if name in RUN_INDEXES:
        return _run_column(b, name, direction) if has_index(conn, RUN_INDEXES[name]) else None
    if name == "label":
        return _labels(conn, b, direction) if has_index(conn, LABEL_INDEX) else None
    if kind == "meta":
        return _meta(conn, b, arg, direction)
    if kind == "score":
        return _other_score(conn, b, arg, direction)
    if kind == "answer":
        return _other_answer(conn, b, arg, direction)
    return None


def _feature(b: Built, column: str, direction: str) -> list[Part]:
    """The dataset's items down the feature's index: by value (ties by id), then NULL by id."""
    jb, pb = joins_b(b)
    head = (f"SELECT i.id FROM items i INDEXED BY {FEATURE_INDEXES[column]}"
            f" LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?{jb}")
    params = [b.run, *pb, *b.params]
    has = f"i.{column} IN (0, 1)" if column == "cross_sentence" else f"i.{column} IS NOT NULL"
    # The rest as `IS NULL` where it can be: an equality on the index, whose entries of one value
    # are in id order, so the walk stops at the page (a negated test read every item of the dataset).
    rest = f"({has}) IS NOT 1" if column == "cross_sentence" else f"i.{column} IS NULL"
    return [(f"{head}{b.where_sql(has)} ORDER BY i.{column} {direction}, i.id {direction}", params),
            (f"{head}{b.where_sql(rest)} ORDER BY i.id {direction}", params)]


def _walk(b: Built, alias: str, index: str, run: int, value: str, cond: str, direction: str) -> Part:
    """Predictions of `run` (as `alias`) down `index` by `value` (ties by item id), joined to the
    items and run A's prediction the filter's conditions read, those meeting `cond` too."""
    jb, pb = joins_b(b)
    if alias == "p":
        sql = f"SELECT i.id FROM predictions p INDEXED BY {index} CROSS JOIN items i ON i.id = p.item_id{jb}"
        params = [*pb, *b.params, run]
    else:
        sql = (f"SELECT i.id FROM predictions {alias} INDEXED BY {index} CROSS JOIN items i ON i.id = {alias}.item_id"
               f" LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?{jb}")
        params = [b.run, *pb, *b.params, run]
    sql += (f"{b.where_sql(f'{alias}.run_id = ?', cond)}"
            f" ORDER BY {value} {direction}, {alias}.item_id {direction}")
    return sql, params


def _run_column(b: Built, column: str, direction: str) -> list[Part]:
    """Run A's category or relation by its index; the category's `no prediction` items (no
    prediction row) where that value sorts; then the predictions without a value."""
    index, value = RUN_INDEXES[column], f"p.{column}"
    if column != "error_category":
        return [_walk(b, "p", index, b.run, value, f"{value} IS NOT NULL", direction),
                items_sql(b, direction, f"{value} IS NULL")]
    rest = items_sql(b, direction, f"p.id IS NOT NULL AND {value} IS NULL")
    none = f"'{NO_PREDICTION}'"
    below = _walk(b, "p", index, b.run, value, f"{value} < {none}", direction)
    above = _walk(b, "p", index, b.run, value, f"{value} > {none}", direction)
    missing = items_sql(b, direction, f"(p.id IS NULL OR {value} = {none})")
    return [below, missing, above, rest] if direction == "ASC" else [above, missing, below, rest]


def _labels(conn: Any, b: Built, direction: str) -> list[Part] | None:
    """Run A's labels down the stored label sets in the sort's order (labels, then item id: the
    tie-break), its items with a prediction; then the others by id (no prediction, no label)."""
    names = conn.execute("SELECT r.name, d.name FROM runs r, datasets d WHERE r.id = ? AND d.id = ?",
                         (b.run, b.params[0])).fetchone()
    if names is None:
        return None
    jb, pb = joins_b(b)
    walk = (f"SELECT i.id FROM label_sets s INDEXED BY {LABEL_INDEX} CROSS JOIN items i ON i.id = s.item_id"
            f" LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?{jb}"
            f"{b.where_sql('s.run = ?', 's.dataset = ?', 'p.id IS NOT NULL')}"
            f" ORDER BY s.labels {direction}, s.item_id {direction}")
    labelled = "i.id IN (SELECT s.item_id FROM label_sets s WHERE s.run = ? AND s.dataset = ?)"
    rest, params = items_sql(b, direction, f"NOT (p.id IS NOT NULL AND {labelled})")
    return [(walk, [b.run, *pb, *b.params, *names]), (rest, [*params, *names])]


def _meta(conn: Any, b: Built, key: str, direction: str) -> list[Part] | None:
    """A `meta` key of run A down its expression index, then the items without a value."""
    value = meta_value_sql(key)
    index = meta_index(conn, key) if value else None
    if value is None or index is None:
        return None
    return [_walk(b, "p", index, b.run, value, f"p.meta IS NOT NULL AND {value} IS NOT NULL", direction),
            items_sql(b, direction, f"{value} IS NULL")]


def _other_run(conn: Any, name: str) -> int | None:
    row = conn.execute("SELECT id FROM runs WHERE name = ?", (name,)).fetchone()
    return int(row[0]) if row else None


def _missing(b: Built, direction: str, sql: str, run: int) -> Part:
    """The items whose value (a lookup in `run`'s predictions, as `x`) is NULL, by id."""
    part, params = items_sql(b, direction, f"({sql}) IS NULL")
    return part, [*params, run]


def _other_score(conn: Any, b: Built, run_name: str, direction: str) -> list[Part] | None:
    """Another run's score (`COALESCE(f1, f1_recall)`) down its F1 index when none of its
    predictions has only an F1-recall, down its F1-recall index when none has an F1."""
    run = _other_run(conn, run_name)
    if run is None:
        return None
    only_recall = "SELECT EXISTS (SELECT 1 FROM predictions WHERE run_id = ? AND f1 IS NULL AND f1_recall IS NOT NULL)"
    any_f1 = "SELECT EXISTS (SELECT 1 FROM predictions WHERE run_id = ? AND f1 IS NOT NULL)"
    if not conn.execute(only_recall, (run,)).fetchone()[0]:
        column, index = "f1", "predictions_run_f1"
    elif not conn.execute(any_f1, (run,)).fetchone()[0]:
        column, index = "f1_recall", "predictions_run_f1r"
    else:
        return None
    value = f"x.{column}"
    lookup = "SELECT COALESCE(x.f1, x.f1_recall) FROM predictions x WHERE x.item_id = i.id AND x.run_id = ?"
    return [_walk(b, "x", index, run, value, f"{value} IS NOT NULL", direction), _missing(b, direction, lookup, run)]


def _other_answer(conn: Any, b: Built, run_name: str, direction: str) -> list[Part] | None:
    """Another run's answers down their index, or sorted alone (no item joined) when the filter is
    its dataset alone."""
    run = _other_run(conn, run_name)
    lookup = "SELECT x.text FROM predictions x WHERE x.item_id = i.id AND x.run_id = ?"
    if run is not None and has_index(conn, ANSWER_INDEX):
        walk = _walk(b, "x", ANSWER_INDEX, run, "x.text", "x.text IS NOT NULL", direction)
        return [walk, _missing(b, direction, lookup, run)]
    if run is None or len(b.where) != 1 or b.compare is not None:
        return None
    same = conn.execute("SELECT dataset_id FROM runs WHERE id = ?", (run,)).fetchone()
    if same is None or same[0] != b.params[0]:
        return None
    sql = (f"SELECT x.item_id FROM predictions x INDEXED BY predictions_scores WHERE x.run_id = ?"
           f" AND x.text IS NOT NULL ORDER BY x.text {direction}, x.item_id {direction}")
    first: Part = (sql, [run])
    return [first, _missing(b, direction, lookup, run)]
