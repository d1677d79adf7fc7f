"""Page ids in the filter's order without sorting every matching item (issue 16: a million items).

`page` used to ask for `ORDER BY <sort> LIMIT … OFFSET …` over the whole join, which sorts every
item the filter matches (seconds at 1M) for each page. Here a page walks an index that is already
in the order shown and stops after `offset + limit` matching rows:

- by id: the items of the dataset in id order (`items_dataset`), run A's prediction looked up
  per item;
- by a score of run A (EM, F1, F1-recall, refused): run A's score index `(run_id, score, item_id)`
  first, then the items without that score (no prediction) in id order, as `order_clause` puts
  NULLs last;
- by stale: the flagged items (a short list) and the others, each part in id order.

Other sorts (text columns, Δ) keep the one sorted query. Every variant returns the ids
`order_clause` would, in the same order: tests compare them on small databases.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .filters import SORTS, Filter
from qa_inspect.core.load import pending_marks

from .sql import STALE_ITEMS_SQL, Built, _fts_phrase, build, build_parts, order_clause

__all__ = ["explain_page", "page_ids"]

_SCORE_INDEX = {"em": "predictions_run_em", "f1": "predictions_run_f1", "f1_recall": "predictions_run_f1r",
                "refused": "predictions_run_refused"}
"""Run A's score columns with an index `(run_id, column, item_id)` (schema 9)."""
FEW_HITS = 5_000
"""A search matching fewer rows than this is sorted (its matches alone) rather than found by a walk
down a score index (a rare phrase would walk all of it: 0.6 s at a million items; sorting 5,000
matches and walking the index to 100 of them take about 10 ms each)."""


def page_ids(conn: Any, f: Filter, offset: int = 0, limit: int = 100) -> list[int]:
    """Ids of rows `offset … offset+limit` of the filter, in `order_clause` order."""
    order = SORTS.get(f.sort, "i.id")
    direction = "DESC" if f.descending else "ASC"
    if order == "i.id":
        sql, params = build(conn, f)
        return _ids(conn, f"SELECT i.id {sql} ORDER BY i.id {direction}", params, offset, limit)
    b = build_parts(conn, f)
    if f.sort in _SCORE_INDEX and not _few_search_hits(conn, f):
        rest = _items_sql(b, f"p.{f.sort} IS NULL", direction)
        conds = _run_only(b)
        if conds and conds[0]:  # conditions on run A's scores alone: walk the index a while, else sort them
            walk, sort = _run_walk(b, conds, f.sort, direction), _run_sorted(b, conds, f.sort, direction)
            return _two_parts(conn, sort, rest, offset, limit, first_ids=_walk_or_sort(walk, sort))
        return _two_parts(conn, _by_score(b, f.sort, direction), rest, offset, limit)
    if order == "p.text" and (conds := _run_only(b)) is not None:  # run A's predictions by text, then the rest
        return _two_parts(conn, _run_sorted(b, conds, "text", direction), _items_sql(b, "p.id IS NULL", direction),
                          offset, limit)
    if order == "stale":
        stale = f"i.id IN ({STALE_ITEMS_SQL})"
        # ascending: not stale (0) first; descending: stale (1) first; each part by id
        first_cond, rest_cond = (stale, f"NOT {stale}") if f.descending else (f"NOT {stale}", stale)
        return _two_parts(conn, _items_sql(b, first_cond, direction), _items_sql(b, rest_cond, direction),
                          offset, limit)
    sql, params = build(conn, f)
    return _ids(conn, f"SELECT i.id {sql} ORDER BY {order_clause(f)}", params, offset, limit)


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


def _run_sorted(b: Built, conds: tuple[tuple[str, ...], tuple[Any, ...]], column: str,
                direction: str) -> tuple[str, list[Any]]:
    """Run A's predictions meeting `conds`, sorted by `column` (ties by item id): scores read from
    the covering index `predictions_scores` when `column` is one (no prediction row read)."""
    index = " INDEXED BY predictions_scores" if column in _SCORE_INDEX else ""
    where = " AND ".join((f"p.{column} IS NOT NULL", *conds[0]))
    sql = (f"SELECT p.item_id FROM predictions p{index} WHERE p.run_id = ? AND {where}"
           f" ORDER BY p.{column} {direction}, p.item_id {direction}")
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


def _joins_b(b: Built) -> tuple[str, list[Any]]:
    if b.compare is None:
        return "", []
    return " LEFT JOIN predictions pb ON pb.item_id = i.id AND pb.run_id = ?", [b.compare]


def _items_sql(b: Built, cond: str, direction: str) -> tuple[str, list[Any]]:
    """Items-first walk in id order (the dataset's items by `items_dataset`), with `cond`."""
    jb, pb = _joins_b(b)
    sql = (f"SELECT i.id FROM items i LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?{jb}"
           f"{b.where_sql(cond)} ORDER BY i.id {direction}")
    return sql, [b.run, *pb, *b.params]


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


def _ids(conn: Any, sql: str, params: list[Any], offset: int, limit: int) -> list[int]:
    return [r[0] for r in conn.execute(f"{sql} LIMIT ? OFFSET ?", [*params, limit, offset])]


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
        n_first = conn.execute(f"SELECT COUNT(*) FROM ({first[0]})", first[1]).fetchone()[0]
    return ids + _ids(conn, *rest, max(0, offset - n_first), limit - len(ids))


def explain_page(conn: Any, f: Filter) -> str:
    """`EXPLAIN QUERY PLAN` of the first query of a page of `f` (tests, benchmarks: no sort of
    every matching item means no "USE TEMP B-TREE FOR ORDER BY")."""
    seen: list[tuple[str, list[Any]]] = []

    class _Recorder:
        """Runs the lookups `build` makes; records the page query instead of running it."""

        def execute(self, sql: str, params: Any = ()) -> Any:
            if "LIMIT ? OFFSET ?" in sql:
                seen.append((sql, list(params)))
                return iter([(0,)])  # one row: a full page of one, so no second part is asked for
            return conn.execute(sql, params)

    page_ids(_Recorder(), f, 0, 1)
    sql, params = seen[0]
    return "\n".join(str(r[3]) for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))
