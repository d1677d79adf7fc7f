"""The pieces a page query is made of when it walks an index in the order shown
(`core.query.paging`, `core.query.column_order`): the items walked in id order, run B's join,
a page of ids from one ordered part, and a page across several ordered parts."""

from __future__ import annotations

from typing import Any

from .sql import Built

__all__ = ["Part", "chain", "has_index", "ids", "items_sql", "joins_b", "unordered"]

Part = tuple[str, list[Any]]
"""One ordered query (ids in the order shown) and its parameters."""


def joins_b(b: Built) -> tuple[str, list[Any]]:
    """Run B's join (and its parameter) when the filter compares, else nothing."""
    if b.compare is None:
        return "", []
    return " LEFT JOIN predictions pb ON pb.item_id = i.id AND pb.run_id = ?", [b.compare]


def items_sql(b: Built, direction: str, *conds: str, index: str | None = None) -> Part:
    """Items-first walk in id order (the dataset's items by `items_dataset`, or the few an item
    label's `index` finds, sorted), with `conds` (their parameters, if any, go last)."""
    jb, pb = joins_b(b)
    hint = f" INDEXED BY {index}" if index else ""
    sql = (f"SELECT i.id FROM items i{hint} LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?{jb}"
           f"{b.where_sql(*conds)} ORDER BY i.id {direction}")
    return sql, [b.run, *pb, *b.params]


def ids(conn: Any, sql: str, params: list[Any], offset: int, limit: int) -> list[int]:
    """Rows `offset … offset+limit` of an ordered query."""
    return [r[0] for r in conn.execute(f"{sql} LIMIT ? OFFSET ?", [*params, limit, offset])]


def chain(conn: Any, parts: list[Part], offset: int, limit: int) -> list[int]:
    """Rows of the parts one after another (each already in order), `offset … offset+limit` of
    them. A part's size is counted only when the page starts past its end."""
    out: list[int] = []
    for sql, params in parts:
        found = ids(conn, sql, params, offset, limit - len(out))
        out += found
        if len(out) == limit:
            break
        if found or offset == 0:
            offset = 0
        else:
            offset = max(0, offset - conn.execute(f"SELECT COUNT(*) FROM ({unordered(sql)})", params).fetchone()[0])
    return out


def unordered(sql: str) -> str:
    """`sql` without its final top-level ORDER BY: a count needs no order (SQLite would sort)."""
    head, sep, tail = sql.rpartition(" ORDER BY ")
    return head if sep and ")" not in tail and "?" not in tail else sql


def has_index(conn: Any, name: str) -> bool:
    """Whether the index is there: a walk names it (`INDEXED BY`), and some are made only for
    large datasets or by later schemas (a database opened read-only keeps what it has)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (name,)).fetchone() is not None
