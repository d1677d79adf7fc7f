"""What the database holds, described from the file itself: tables, columns, indexes, foreign keys.

The SQLite file is a documented artefact other tools open (sqlite-utils, Datasette, polars), so
its description is read from a real database rather than kept by hand: `qa-inspect schema` prints
it, a schema page can be generated from it. sqlite-utils reads the catalogue (its `Table.columns`,
`.indexes`, `.foreign_keys` and `.virtual_table_using` are what users of the file see too); it is
imported here only, when a description is asked for, never at a command's start (it costs ~0.2 s).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .schema import SCHEMA_VERSION
from .transaction import sqlite_connection

__all__ = ["ColumnInfo", "IndexInfo", "SchemaInfo", "TableInfo", "describe_schema"]

_FTS_SHADOWS = ("data", "idx", "content", "docsize", "config")
"""Suffixes of the tables SQLite's FTS5 keeps behind a full-text table (its storage, not ours)."""


@dataclass(frozen=True, slots=True)
class ColumnInfo:
    name: str
    type: str  # as declared ("" for none: FTS columns)
    notnull: bool
    primary_key: bool
    default: str | None  # the SQL default expression as written, if any


@dataclass(frozen=True, slots=True)
class IndexInfo:
    name: str  # SQLite's own name (`sqlite_autoindex_…`) for a UNIQUE or PRIMARY KEY constraint
    columns: tuple[str, ...]
    unique: bool
    partial: bool  # a WHERE clause: only some rows are indexed


@dataclass(frozen=True, slots=True)
class TableInfo:
    name: str
    columns: tuple[ColumnInfo, ...]
    indexes: tuple[IndexInfo, ...]
    foreign_keys: tuple[tuple[str, str, str], ...]  # (column, other table, other column)
    virtual: str | None = None  # the module of a virtual table ("FTS5"), None for a plain table


@dataclass(frozen=True, slots=True)
class SchemaInfo:
    version: int  # `PRAGMA user_version`: the number of migrations applied
    tables: tuple[TableInfo, ...]
    views: tuple[str, ...]

    def table(self, name: str) -> TableInfo:
        return next(t for t in self.tables if t.name == name)

    def to_dict(self) -> dict[str, Any]:
        """As JSON writes it (lists, not tuples): what `qa-inspect schema --json` prints."""
        return {"version": self.version, "latest": SCHEMA_VERSION, "tables": [_lists(asdict(t)) for t in self.tables],
                "views": list(self.views)}


def _lists(value: Any) -> Any:
    """`value` with every tuple (at any depth) a list."""
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    return value


def describe_schema(conn: Any) -> SchemaInfo:
    """The database's tables in creation order, each with its columns, indexes (by name) and
    foreign keys; FTS5 tables as one virtual table each (their shadow tables left out). Reads the
    catalogue only: no row is counted, so it takes the same time on any size of database."""
    import sqlite_utils  # not at start-up: see the module doc

    raw = sqlite_connection(conn)
    db = sqlite_utils.Database(raw)
    tables = db.tables
    virtual = {t.name for t in tables if t.virtual_table_using}
    shadows = {f"{v}_{s}" for v in virtual for s in _FTS_SHADOWS}
    return SchemaInfo(
        version=int(raw.execute("PRAGMA user_version").fetchone()[0]),
        tables=tuple(_table(t) for t in tables if t.name not in shadows),
        views=tuple(db.view_names()),
    )


def _table(t: Any) -> TableInfo:
    return TableInfo(
        name=t.name,
        columns=tuple(ColumnInfo(c.name, c.type, bool(c.notnull), bool(c.is_pk), c.default_value) for c in t.columns),
        indexes=tuple(sorted((IndexInfo(i.name, tuple(i.columns), bool(i.unique), bool(i.partial)) for i in t.indexes),
                             key=lambda i: i.name)),
        foreign_keys=tuple(sorted((fk.column, fk.other_table, fk.other_column) for fk in t.foreign_keys)),
        virtual=t.virtual_table_using,
    )
