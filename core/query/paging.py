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
        first = _by_score(b, f.sort, direction)
        rest = _items_sql(b, f"p.{f.sort} IS NULL", direction)
        return _two_parts(conn, first, rest, offset, limit)
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
               limit: int) -> list[int]:
    """Rows of `first` then of `rest` (each already in order), `offset … offset+limit` of them.
    The size of `first` is counted only when the page starts past its end."""
    ids = _ids(conn, *first, offset, limit)
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
