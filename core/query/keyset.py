"""Neighbours and positions in a filter's order by keyset on its sort key, not by ranking every item.

`n`/`p` and jump-to-item used to number every matching row with a window function (`LEAD`,
`ROW_NUMBER() OVER (ORDER BY …)`): seconds at a million items for one step. The order shown is
`order_clause`'s: the sort key's NULLs last, the key, then the item id (a bare id order has no
key). The row after an item with key `k` and id `d` is the first row with `(key, id) > (k, d)` in
that order (`<` where it is descending), then the rows without a key; before it, the same
conditions reversed. Such a query reads from where the item is and stops after the step, down
whatever index serves the sort; a position is one count of the rows before the item.

Every answer equals the window functions' on the same filter (tests compare them, hypothesis
over sorts, directions and filters).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .columns import column_def, is_column
from .delta_order import fresh_pair
from .filters import SORTS, Filter
from .page_sql import has_index
from .paging import _LABEL_SORTS as LABEL_SORTS
from .paging import _SCORE_INDEX as SCORE_INDEX
from .sql import DELTA_SQL, STALE_ITEMS_SQL, Built, build_parts

__all__ = ["keyset_neighbour", "keyset_position", "keyset_window"]

Key = Callable[[list[Any]], str]
"""The sort key's SQL expression, its parameters appended to the list given (once per use)."""


def sort_key(f: Filter) -> Key | None:
    """The expression `order_clause` sorts `f` by before the item id; None for the id order."""
    if f.sort not in SORTS and is_column(f.sort):
        return column_def(f.sort).value_sql
    order = SORTS.get(f.sort, "i.id")
    if order == "stale":
        order = f"i.id IN ({STALE_ITEMS_SQL})"
    elif order == "delta":
        order = DELTA_SQL if f.compare else "i.id"
    if order == "i.id":
        return None
    expr = f"({order})"
    return lambda params: expr


def _head(b: Built) -> tuple[str, list[Any]]:
    """The joins every query here starts from (those of `build`), with their parameters."""
    sql = "FROM items i LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?"
    params: list[Any] = [b.run]
    if b.compare is not None:
        sql += " LEFT JOIN predictions pb ON pb.item_id = i.id AND pb.run_id = ?"
        params.append(b.compare)
    return sql, params


def _anchor(conn: Any, b: Built, key: Key | None, item_id: int) -> tuple[bool, Any] | None:
    """(whether the item has a key value, that value) of the item, None when it does not exist."""
    head, params = _head(b)
    key_params: list[Any] = []
    expr = key(key_params) if key is not None else "NULL"
    row = conn.execute(f"SELECT {expr} {head} WHERE i.id = ?", [*key_params, *params, item_id]).fetchone()
    if row is None:
        return None
    return row[0] is not None, row[0]


Part = tuple[str, list[Any], str, list[Any], str, list[Any]]
"""A run of rows in the walked order: FROM (joins) and condition and ORDER BY, each with its
parameters (in text order: the joins', the filter's, the condition's, the order's)."""


def keyset_neighbour(conn: Any, f: Filter, item_id: int, step: int) -> int | None:
    """The item `step` rows after (`step` < 0: before) `item_id` in `f`'s order, None past either
    end or when the item does not exist. The item itself need not match `f` (a flag just moved
    it out): the row next to where it would stand."""
    if step == 0:
        return item_id if keyset_position(conn, f, item_id) is not None else None
    b = build_parts(conn, f)
    parts = _walk(conn, f, b, item_id, step > 0)
    if parts is None:
        return None
    return _nth(conn, b, parts, abs(step) - 1)


def keyset_window(conn: Any, f: Filter, item_id: int, before: int, after: int) -> tuple[list[int], int] | None:
    """(ids around `item_id` in `f`'s order, index of the item among them) without its position:
    up to `before` rows before it and `after` rows after it, each side one keyset walk from its
    sort key (jump-to-item shows these at once; the position, a count, may follow). When `f`
    excludes the item, the index is that of the row after where it would stand (else the last);
    None when the item does not exist or nothing is left around it."""
    b = build_parts(conn, f)
    ahead, behind = _walk(conn, f, b, item_id, True), _walk(conn, f, b, item_id, False)
    if ahead is None or behind is None:
        return None
    head, params = _head(b)
    here = conn.execute(f"SELECT 1 {head}{b.where_sql('i.id = ?')}", [*params, *b.params, item_id]).fetchone()
    back = _take(conn, b, behind, before)[::-1]
    ids = [*back, *([item_id] if here else []), *_take(conn, b, ahead, after)]
    return (ids, min(len(back), len(ids) - 1)) if ids else None


def _walk(conn: Any, f: Filter, b: Built, item_id: int, forward: bool) -> list[Part] | None:
    """The parts holding the rows after (`forward`) or before `item_id` in `f`'s order, nearest
    first; None when the item does not exist."""
    key = sort_key(f)
    anchor = _anchor(conn, b, key, item_id)
    if anchor is None:
        return None
    qd = "DESC" if f.descending == forward else "ASC"  # the order walking away from the item
    gt = "<" if qd == "DESC" else ">"  # rows on the walked side compare so to the item
    head, head_p = _head(b)
    if key is None:
        return [(head, head_p, f"i.id {gt} ?", [item_id], f"i.id {qd}", [])]
    if anchor[0]:  # keyed rows past it, then (forward) every row without a key
        parts = _keyed(conn, f, b, key, qd, (gt, anchor[1], item_id))
        return parts + ([_nulls(b, key, qd, None)] if forward else [])
    # rows without a key past it, then (backward) every keyed row
    return [_nulls(b, key, qd, (gt, item_id))] + ([] if forward else _keyed(conn, f, b, key, qd, None))


def _keyed(conn: Any, f: Filter, b: Built, key: Key, qd: str, past: tuple[str, Any, int] | None) -> list[Part]:
    """Rows with a key, nearest first; `past`: only those beyond (comparison, key value, item id):
    the item's ties beyond it, then the keys beyond its key (two parts, each an index range even
    where the item id is only the index's rowid). Down the index that holds the key in order where
    there is one (run A's score, an item label, the pair's stored Δ order), so the walk starts at
    the item instead of sorting every row."""
    source = _indexed(conn, f, b)

    def part(extra: str, extra_p: list[Any], by_key: bool) -> Part:
        """The keyed rows meeting `extra` (over `{column}`, the key, and `{item}`, the item id)."""
        order_p: list[Any] = []
        if source is not None:
            head, head_p, column, item, cond, source_p = source
            cond_p = [*source_p]
            cond += extra.format(column=column, item=item)
            order_key = column
        else:  # the key's expression (it may take parameters: each use adds them)
            head, head_p = _head(b)
            cond_p, item = [], "i.id"
            cond = f"{key(cond_p)} IS NOT NULL"
            cond += extra.format(column=key(cond_p), item=item) if extra else ""
            order_key = key(order_p) if by_key else ""
        order = f"{order_key} {qd}, {item} {qd}" if by_key else f"{item} {qd}"
        return head, head_p, cond, [*cond_p, *extra_p], order, order_p

    if past is None:
        return [part("", [], True)]
    gt, value, item_id = past
    return [part(" AND {column} = ? AND {item} " + gt + " ?", [value, item_id], False),
            part(" AND {column} " + gt + " ?", [value], True)]


def _indexed(conn: Any, f: Filter, b: Built) -> tuple[str, list[Any], str, str, str, list[Any]] | None:
    """(joins, their parameters, key column, item column, condition, its parameters) of an
    index in the sort's order, or None: run A's score index `(run_id, score, item_id)`, an item
    label's `(dataset_id, label, id)`, or the stored Δ order of a compared pair when it is fresh (`core.query.delta_order`)."""
    jb = " LEFT JOIN predictions pb ON pb.item_id = i.id AND pb.run_id = ?" if b.compare is not None else ""
    pb = [b.compare] if b.compare is not None else []
    if f.sort in SCORE_INDEX and f.sort in SORTS and b.run != -1:
        head = f"FROM predictions p INDEXED BY {SCORE_INDEX[f.sort]} CROSS JOIN items i ON i.id = p.item_id{jb}"
        return head, pb, f"p.{f.sort}", "p.item_id", f"p.run_id = ? AND p.{f.sort} IS NOT NULL", [b.run]
    if f.sort in LABEL_SORTS and b.where[:1] == ("i.dataset_id = ?",) and has_index(conn, LABEL_SORTS[f.sort][1]):
        column, index = LABEL_SORTS[f.sort]
        head = f"FROM items i INDEXED BY {index} LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?{jb}"
        return head, [b.run, *pb], f"i.{column}", "i.id", f"i.{column} IS NOT NULL", []
    if f.sort == "delta" and b.compare is not None and b.run != -1 and b.compare != -1:
        pair = fresh_pair(conn, b.run, b.compare)
        if pair is not None:
            head = ("FROM delta_order o CROSS JOIN items i ON i.id = o.item_id"
                    f" LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?{jb}")
            return head, [b.run, *pb], "o.delta", "o.item_id", "o.pair_id = ?", [pair]
    return None


def _nulls(b: Built, key: Key, qd: str, past: tuple[str, int] | None) -> Part:
    """Rows without a key, by id; `past`: only those beyond (comparison, item id)."""
    head, head_p = _head(b)
    cond_p: list[Any] = []
    cond = f"{key(cond_p)} IS NULL"
    if past is not None:
        cond += f" AND i.id {past[0]} ?"
        cond_p.append(past[1])
    return head, head_p, cond, cond_p, f"i.id {qd}", []


def _nth(conn: Any, b: Built, parts: list[Part], n: int) -> int | None:
    """Row `n` (0-based) of the parts read one after another; a part is counted only when the
    row lies past it."""
    for head, head_p, cond, cond_p, order, order_p in parts:
        where = [*head_p, *b.params, *cond_p]
        row = conn.execute(f"SELECT i.id {head}{b.where_sql(cond)} ORDER BY {order} LIMIT 1 OFFSET ?",
                           [*where, *order_p, n]).fetchone()
        if row is not None:
            return int(row[0])
        if n:
            n -= conn.execute(f"SELECT COUNT(*) {head}{b.where_sql(cond)}", where).fetchone()[0]
    return None


def _take(conn: Any, b: Built, parts: list[Part], n: int) -> list[int]:
    """The first `n` rows of the parts read one after another (a part is read only while rows lack)."""
    out: list[int] = []
    for head, head_p, cond, cond_p, order, order_p in parts:
        if len(out) >= n:
            break
        rows = conn.execute(f"SELECT i.id {head}{b.where_sql(cond)} ORDER BY {order} LIMIT ?",
                            [*head_p, *b.params, *cond_p, *order_p, n - len(out)]).fetchall()
        out += [int(r[0]) for r in rows]
    return out


def keyset_position(conn: Any, f: Filter, item_id: int) -> int | None:
    """0-based row of `item_id` in `f`'s order: the rows before it counted; None when `f` excludes it."""
    b = build_parts(conn, f)
    head, params = _head(b)
    if conn.execute(f"SELECT 1 {head}{b.where_sql('i.id = ?')}", [*params, *b.params, item_id]).fetchone() is None:
        return None
    key = sort_key(f)
    anchor = _anchor(conn, b, key, item_id)
    assert anchor is not None  # it matched the filter just now
    lt = ">" if f.descending else "<"
    cond_p: list[Any] = []
    if key is None:
        cond = f"i.id {lt} ?"
        cond_p.append(item_id)
    elif anchor[0]:
        cond = f"{key(cond_p)} IS NOT NULL AND ({key(cond_p)}, i.id) {lt} (?, ?)"
        cond_p += [anchor[1], item_id]
    else:
        cond = f"({key(cond_p)} IS NOT NULL OR i.id {lt} ?)"
        cond_p.append(item_id)
    return int(conn.execute(f"SELECT COUNT(*) {head}{b.where_sql(cond)}", [*params, *b.params, *cond_p]).fetchone()[0])
