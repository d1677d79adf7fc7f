"""Page ids in the filter's order without sorting every matching item (a million items must page fast).

`page` used to ask for `ORDER BY <sort> LIMIT … OFFSET …` over the whole join, which sorts every
item the filter matches (seconds at 1M) for each page. Here a page walks an index that is already
in the order shown and stops after `offset + limit` matching rows:

- by id: the items of the dataset in id order (`items_dataset`), run A's prediction looked up
  per item; when every condition is on run A's prediction alone and an item without one fails
  it (an error category, EM 1), run A's covering index `predictions_scores` in item order; when
  several values of a label hold few items, those items from the label's index, sorted;
- by a score of run A (EM, F1, F1-recall, refused): run A's score index `(run_id, score, item_id)`
  first, then the items without that score (no prediction) in id order, as `order_clause` puts
  NULLs last; under conditions on run A's prediction alone the walk has a budget, past which
  the matching scores are sorted from the covering index (a rare match never walks it all);
- by prediction text: run A's predictions sorted (no item walk), then the items without one;
- by stale: the flagged items (a short list) and the others, each part in id order;
- by an item label (split, tag, answer type) or the question text: its index `(dataset_id, column)`,
  values then NULLs;
- by Δ: the pair's stored Δ order when it is fresh (`core.query.delta_order`).
- by a registry column (labels, category, relation, a feature, a `meta` key, another run's score
  or answer): down that column's index (`core.query.column_order`).

A search starts from its trigram matches (`core.query.sql`); sorted by a score, few matches are
sorted rather than found by a walk. Other sorts (Δ without a fresh stored order) keep the one sorted query. Every
variant returns the ids `order_clause` would, in the same order: tests compare them on small
databases, each way forced.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from qa_inspect.core.store import pending_marks

from .column_order import column_parts
from .columns import ColumnDef, column_def, is_column
from .delta_order import delta_order_page
from .filters import SORTS, Filter
from .page_sql import chain, has_index
from .page_sql import ids as _ids
from .page_sql import items_sql as _items_sql
from .page_sql import joins_b as _joins_b
from .page_sql import unordered as _unordered
from .item_sql import NO_PREDICTION
from .sql import STALE_ITEMS_SQL, Built, _fts_phrase, build, build_parts, order_clause

__all__ = ["explain_page", "page_ids"]

_SCORE_INDEX = {"em": "predictions_run_em", "f1": "predictions_run_f1", "f1_recall": "predictions_run_f1r",
                "refused": "predictions_run_refused"}
"""Run A's score columns with an index `(run_id, column, item_id)` (schema 9)."""
FEW_HITS = 5_000
"""A search (or several values of an item label) matching fewer rows than this is sorted (its
matches alone) rather than found by a walk down an index (a rare phrase would walk all of it:
0.6 s at a million items; sorting 5,000 matches and walking to 100 of them take about 10 ms each)."""


def page_ids(conn: Any, f: Filter, offset: int = 0, limit: int = 100) -> list[int]:
    """Ids of rows `offset … offset+limit` of the filter, in `order_clause` order."""
    order = SORTS.get(f.sort, "i.id")
    direction = "DESC" if f.descending else "ASC"
    b = build_parts(conn, f)
    if _wants_no_prediction(f) and _run_covers_dataset(conn, b):  # nothing to find: no pass over the items
        return []
    if f.sort not in SORTS and is_column(f.sort):  # a registry column: the one sorted query below
        order = "column"
        registry = column_def(f.sort)
        parts = None if _few_search_hits(conn, f) else column_parts(conn, f, b, direction)
        if parts is not None:  # down the column's index (`core.query.column_order`)
            return chain(conn, parts, offset, limit)
        if registry.sparse and f.run:  # few items have a value: those sorted, then the others by id
            first, rest = _sparse_parts(b, registry, f.run, direction)
            return _two_parts(conn, first, rest, offset, limit)
    if order == "i.id":
        conds = _run_only(b)
        if conds and conds[0] and not _holds_without_prediction(conn, conds):  # run A's predictions alone
            return _ids(conn, *_run_sorted(b, conds, "item_id", direction), offset, limit)
        if 0 < len(f.search.strip()) < 3 and b.where[:1] == ("i.dataset_id = ?",):
            return _short_search_ids(conn, f, b, direction, offset, limit)
        return _ids(conn, *_items_sql(b, direction, index=_few_items_index(conn, f, b)), offset, limit)
    stored = delta_order_page(conn, f, b, offset, limit)  # None unless a Δ sort with a fresh stored order
    if stored is not None:
        return stored
    if f.sort in _SCORE_INDEX and not _few_search_hits(conn, f):
        conds = _run_only(b)
        rest = _run_rest(conn, b, conds, f.sort, direction)
        if conds and conds[0]:  # conditions on run A's scores alone: walk the index a while, else sort them
            walk, sort = _run_walk(b, conds, f.sort, direction), _run_sorted(b, conds, f.sort, direction)
            return _two_parts(conn, sort, rest, offset, limit, first_ids=_walk_or_sort(walk, sort))
        return _two_parts(conn, _by_score(b, f.sort, direction), rest, offset, limit)
    if (f.sort in _LABEL_SORTS and b.where[:1] == ("i.dataset_id = ?",) and not _few_search_hits(conn, f)
            and has_index(conn, _LABEL_SORTS[f.sort][1])):
        column, index = _LABEL_SORTS[f.sort]  # the label's index (dataset_id, label, id): values, then NULL by id
        return _two_parts(conn, _by_label(b, column, index, direction, f"i.{column} IS NOT NULL"),
                          _by_label(b, column, index, direction, f"i.{column} IS NULL"), offset, limit)
    if order == "p.text" and (conds := _run_only(b)) is not None:  # run A's predictions by text, then the rest
        return _two_parts(conn, _run_sorted(b, conds, "text", direction), _run_rest(conn, b, conds, "text", direction),
                          offset, limit)
    if order == "stale":
        stale = f"i.id IN ({STALE_ITEMS_SQL})"
        # ascending: not stale (0) first; descending: stale (1) first; each part by id
        first_cond, rest_cond = (stale, f"NOT {stale}") if f.descending else (f"NOT {stale}", stale)
        return _two_parts(conn, _items_sql(b, direction, first_cond), _items_sql(b, direction, rest_cond),
                          offset, limit)
    sql, params = build(conn, f)
    order_params: list[Any] = []  # a registry column's sort (`core.query.columns`): its parameters
    order_sql = order_clause(f, order_params)
    return _ids(conn, f"SELECT i.id {sql} ORDER BY {order_sql}", [*params, *order_params], offset, limit)


def _sparse_parts(b: Built, column: ColumnDef, run: str,
                  direction: str) -> tuple[tuple[str, list[Any]], tuple[str, list[Any]]]:
    """A sparse column's sort as two parts (see `ColumnDef.sparse`): the items with a value, by it
    (ties by id), then the others by id, as `order_clause` puts NULLs last either way."""
    jb, pb = _joins_b(b)
    head = f"SELECT i.id FROM items i LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?{jb}"
    value: list[Any] = []
    expr = column.value_sql(value)
    has = f"({column.sparse} AND {expr} IS NOT NULL)"
    has_params = [run, *column.sparse_params, *value]
    first = (f"{head}{b.where_sql(has)} ORDER BY {expr} {direction}, i.id {direction}",
             [b.run, *pb, *b.params, *has_params, *value])
    rest = (f"{head}{b.where_sql(f'NOT {has}')} ORDER BY i.id {direction}", [b.run, *pb, *b.params, *has_params])
    return first, rest


def _short_search_ids(conn: Any, f: Filter, b: Built, direction: str, offset: int, limit: int) -> list[int]:
    """A search too short for the trigram index, by id: the first `WALK_BUDGET` items past the page
    tested one by one (a common text fills the page there), else every table read once for the
    matching items (a rare text: 0.7 s at a million items instead of 2 s of tests per item)."""
    row = conn.execute(f"SELECT id FROM items WHERE dataset_id = ? ORDER BY id {direction} LIMIT 1 OFFSET ?",
                       (b.params[0], offset + limit + WALK_BUDGET)).fetchone()
    if row is not None:  # the walk stops at that item (else it reaches the last item within the budget)
        bound = f"i.id {'<' if direction == 'ASC' else '>'} {int(row[0])}"
        ids = _ids(conn, *_items_sql(b, direction, bound), offset, limit)
        if len(ids) == limit:
            return ids
        b = build_parts(conn, f, scan_short_search=True)
    return _ids(conn, *_items_sql(b, direction), offset, limit)


def _few_search_hits(conn: Any, f: Filter) -> bool:
    """Whether `f` searches the trigram index and it holds under `FEW_HITS` matches (items and
    predictions of every run: a bound). Not while rows wait to be indexed (those match by LIKE)."""
    text = f.search.strip()
    if len(text) < 3 or pending_marks(conn) is not None:
        return False
    phrase = _fts_phrase(text)
    n = 0
    for table in ("items_fts", "predictions_fts"):
        n += conn.execute(f"SELECT COUNT(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)",
                          (phrase, FEW_HITS)).fetchone()[0]
    return n < FEW_HITS


_ITEM_COLUMN = re.compile(r"(?<![\w.])i\.")
"""A reference to an item column (alias `i`) in a condition of `Built.where`."""
WALK_BUDGET = 20_000
"""Index entries a page walks (about 10 ms), beyond those before it, before it sorts run A's
matching predictions instead (about 90 ms at a million, from the covering index `predictions_scores`)."""


def _run_only(b: Built) -> tuple[tuple[str, ...], tuple[Any, ...]] | None:
    """The filter's conditions and parameters besides its dataset when none reads an item column
    nor run B: run A's predictions alone answer them (each is an item of the run's dataset)."""
    if b.run == -1 or b.compare is not None or b.where[:1] != ("i.dataset_id = ?",):
        return None
    if any(_ITEM_COLUMN.search(c) for c in b.where[1:]):
        return None
    return b.where[1:], b.params[1:]


def _wants_no_prediction(f: Filter) -> bool:
    """Whether the filter selects only run A's items without a prediction (the error category
    facet's `no prediction` alone)."""
    values = {value for name, value in f.facets if name == "error_category"}
    return values == {NO_PREDICTION}


def _run_covers_dataset(conn: Any, b: Built) -> bool:
    """Whether run A answers every item of the dataset (one prediction per item and run), so no
    item is without a prediction: two counts down indexes instead of testing every item (0.45 s
    at a million items, for an empty page)."""
    if b.run <= 0 or b.where[:1] != ("i.dataset_id = ?",):
        return False
    sql = ("SELECT (SELECT COUNT(*) FROM predictions WHERE run_id = ?)"
           " = (SELECT COUNT(*) FROM items WHERE dataset_id = ?)")
    return bool(conn.execute(sql, (b.run, b.params[0])).fetchone()[0])


def _holds_without_prediction(conn: Any, conds: tuple[tuple[str, ...], tuple[Any, ...]]) -> bool:
    """Whether conditions on run A's prediction alone hold for an item without one (em = 0 does:
    such items are pages too, so the items are walked)."""
    sql = ("SELECT EXISTS (SELECT 1 FROM (SELECT 1) LEFT JOIN predictions p ON p.id = NULL"
           f" WHERE {' AND '.join(conds[0])})")
    return bool(conn.execute(sql, conds[1]).fetchone()[0])


_LABEL_SORTS = {"split": ("split", "items_split"), "tag": ("tag", "items_tag"),
                "answer_type": ("answer_type", "items_answer_type"), "question": ("question", "items_question")}
"""Item columns with an index `(dataset_id, column)`, its entries ending in the item id (sort name:
column, index): the labels, and the question text (schema 16), so a question-sorted page, `n`/`p`
and a jump walk from where they are instead of sorting every item."""
_LABEL_INDEXES = {"splits": _LABEL_SORTS["split"], "tags": _LABEL_SORTS["tag"],
                  "answer_types": _LABEL_SORTS["answer_type"]}
"""The same labels by the `Filter` field that selects their values."""


def _by_label(b: Built, column: str, index: str, direction: str, cond: str) -> tuple[str, list[Any]]:
    """The dataset's items meeting `cond` down the label's index: by value, ties by id (NULLs: by id)."""
    jb, pb = _joins_b(b)
    order = "" if cond.endswith("IS NULL") else f"i.{column} {direction}, "
    sql = (f"SELECT i.id FROM items i INDEXED BY {index} LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?"
           f"{jb}{b.where_sql(cond)} ORDER BY {order}i.id {direction}")
    return sql, [b.run, *pb, *b.params]


def _few_items_index(conn: Any, f: Filter, b: Built) -> str | None:
    """The label index to start from when the filter selects several values of a label (one value
    is in id order in its index already; several would be sorted) and they hold under `FEW_HITS`
    items: else every item is walked, and values with no item walk all of them."""
    if b.where[:1] != ("i.dataset_id = ?",):
        return None
    best: tuple[int, str] | None = None
    for field, (column, index) in _LABEL_INDEXES.items():
        values: tuple[str, ...] = getattr(f, field)
        if len(values) < 2:
            continue
        n = conn.execute(f"SELECT COUNT(*) FROM (SELECT 1 FROM items INDEXED BY {index} WHERE dataset_id = ?"
                         f" AND {column} IN ({', '.join('?' * len(values))}) LIMIT ?)",
                         [b.params[0], *values, FEW_HITS]).fetchone()[0]
        if n < FEW_HITS and (best is None or n < best[0]):
            best = (n, index)
    return best[1] if best else None


def _run_rest(conn: Any, b: Built, conds: tuple[tuple[str, ...], tuple[Any, ...]] | None, column: str,
              direction: str) -> tuple[str, list[Any]]:
    """The rows after run A's predictions with a `column` value, by id: the items walked (those
    without a prediction or without the value), unless the conditions are on run A's prediction
    alone and an item without one fails them: then run A's predictions without the value, from
    the score's index (none for the text), so a filter that ends early never walks every item."""
    if conds is None or not conds[0] or _holds_without_prediction(conn, conds):
        return _items_sql(b, direction, f"p.{column} IS NULL")
    if column not in _SCORE_INDEX:
        return "SELECT 1 WHERE 0", []
    where = " AND ".join((f"p.{column} IS NULL", *conds[0]))
    sql = (f"SELECT p.item_id FROM predictions p INDEXED BY {_SCORE_INDEX[column]} WHERE p.run_id = ? AND {where}"
           f" ORDER BY p.item_id {direction}")
    return sql, [b.run, *conds[1]]


def _run_sorted(b: Built, conds: tuple[tuple[str, ...], tuple[Any, ...]], column: str,
                direction: str) -> tuple[str, list[Any]]:
    """Run A's predictions meeting `conds`, by `column` (ties by item id): read from the covering
    index `predictions_scores` `(run_id, item_id, scores, category)` for a score or the item id
    (no prediction row read; by item id a walk in order that stops after the page); for the text,
    rows in item order (not down another index of the run, in another order), then sorted."""
    index = " INDEXED BY predictions_scores"  # text: rows read in item order, then sorted
    where = " AND ".join((f"p.{column} IS NOT NULL", *conds[0]))
    order = f"p.{column} {direction}, " if column != "item_id" else ""
    sql = (f"SELECT p.item_id FROM predictions p{index} WHERE p.run_id = ? AND {where}"
           f" ORDER BY {order}p.item_id {direction}")
    return sql, [b.run, *conds[1]]


def _run_walk(b: Built, conds: tuple[tuple[str, ...], tuple[Any, ...]], column: str,
              direction: str) -> tuple[str, list[Any]]:
    """The first `WALK_BUDGET` entries of run A's `column` index in order, those meeting `conds`."""
    sql = (f"SELECT w.item_id FROM (SELECT p.item_id, ({' AND '.join(conds[0])}) AS ok"
           f" FROM predictions p INDEXED BY {_SCORE_INDEX[column]} WHERE p.run_id = ? AND p.{column} IS NOT NULL"
           f" ORDER BY p.{column} {direction}, p.item_id {direction} LIMIT ?) w WHERE w.ok")
    return sql, [*conds[1], b.run]


def _walk_or_sort(walk: tuple[str, list[Any]], sort: tuple[str, list[Any]]) -> Callable[[Any, int, int], list[int]]:
    """A full page within the walk's budget is the page (every match before it lies in the walk);
    a short one may have run out of budget: the sorted query says."""

    def ids(conn: Any, offset: int, limit: int) -> list[int]:
        found = _ids(conn, walk[0], [*walk[1], WALK_BUDGET + 2 * (offset + limit)], offset, limit)
        return found if len(found) == limit else _ids(conn, *sort, offset, limit)

    return ids


def _by_score(b: Built, column: str, direction: str) -> tuple[str, list[Any]]:
    """Run A's predictions with a `column` value, walked down its index (ties by item id)."""
    jb, pb = _joins_b(b)
    col = {"em": "em", "f1": "f1", "f1_recall": "f1_recall", "refused": "refused"}[column]
    sql = (f"SELECT i.id FROM predictions p INDEXED BY {_SCORE_INDEX[col]}"
           f" CROSS JOIN items i ON i.id = p.item_id{jb}"
           f"{b.where_sql('p.run_id = ?', f'p.{col} IS NOT NULL')}"
           f" ORDER BY p.{col} {direction}, p.item_id {direction}")
    # parameters in text order: run B's join, the filter's conditions, then run A (added last)
    return sql, [*pb, *b.params, b.run]


def _two_parts(conn: Any, first: tuple[str, list[Any]], rest: tuple[str, list[Any]], offset: int,
               limit: int, first_ids: Callable[[Any, int, int], list[int]] | None = None) -> list[int]:
    """Rows of `first` then of `rest` (each already in order), `offset … offset+limit` of them.
    The size of `first` is counted only when the page starts past its end. `first_ids`: another
    way to the rows of `first` (same rows, same order)."""
    ids = first_ids(conn, offset, limit) if first_ids else _ids(conn, *first, offset, limit)
    if len(ids) == limit:
        return ids
    if ids or offset == 0:
        n_first = offset + len(ids)
    else:
        n_first = conn.execute(f"SELECT COUNT(*) FROM ({_unordered(first[0])})", first[1]).fetchone()[0]
    return ids + _ids(conn, *rest, max(0, offset - n_first), limit - len(ids))


def explain_page(conn: Any, f: Filter) -> str:
    """`EXPLAIN QUERY PLAN` of the first query of a page of `f` (tests, benchmarks: no sort of
    every matching item means no "USE TEMP B-TREE FOR ORDER BY"); "" when the page needs no
    query (a filter known to match nothing)."""
    seen: list[tuple[str, list[Any]]] = []

    class _Recorder:
        """Runs the lookups `build` makes; records the page query instead of running it."""

        def execute(self, sql: str, params: Any = ()) -> Any:
            if "LIMIT ? OFFSET ?" in sql:
                seen.append((sql, list(params)))
                return iter([(0,)])  # one row: a full page of one, so no second part is asked for
            return conn.execute(sql, params)

    page_ids(_Recorder(), f, 0, 1)
    if not seen:
        return ""
    sql, params = seen[0]
    return "\n".join(str(r[3]) for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))
