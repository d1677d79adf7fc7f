"""`core.store.describe_schema`: the database described from its own catalogue (what users of the
file see through sqlite-utils), every table the migrations create, none of SQLite's FTS storage."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from qa_inspect.core.store import SCHEMA_VERSION, describe_schema, open_db


def _created_tables(conn: sqlite3.Connection) -> set[str]:
    """Tables and virtual tables as sqlite_master lists them, FTS5's shadow tables left out."""
    rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    virtual = {name for name, sql in rows if sql and sql.upper().startswith("CREATE VIRTUAL TABLE")}
    return {name for name, _ in rows
            if not any(name.startswith(f"{v}_") for v in virtual) and not name.startswith("sqlite_")}


def test_every_table_of_a_migrated_database(tmp_path: Path) -> None:
    conn = open_db(tmp_path / "qa.db").conn
    info = describe_schema(conn)
    assert info.version == SCHEMA_VERSION
    assert {t.name for t in info.tables} == _created_tables(conn)
    for t in info.tables:
        declared = [r[1] for r in conn.execute(f'PRAGMA table_info("{t.name}")')]
        assert [c.name for c in t.columns] == declared


def test_columns_indexes_and_keys(tmp_path: Path) -> None:
    info = describe_schema(open_db(tmp_path / "qa.db"))  # an OpenDb works as well as its connection
    cache = info.table("overview_cache")
    assert [(c.name, c.type, c.notnull) for c in cache.columns] == [
        ("dataset_id", "INTEGER", True), ("slices", "INTEGER", True), ("stamp", "TEXT", True), ("payload", "TEXT", True)]
    assert [c.name for c in cache.columns if c.primary_key] == ["dataset_id", "slices"]
    assert any(i.unique and i.columns == ("dataset_id", "slices") for i in cache.indexes)
    assert ("dataset_id", "datasets", "id") in cache.foreign_keys
    assert ("item_id", "items", "id") in info.table("predictions").foreign_keys
    assert info.table("items_fts").virtual == "FTS5"
    assert info.table("items").virtual is None
    partial = [i for t in info.tables for i in t.indexes if i.partial]
    assert partial and all(i.columns for i in partial)


def test_to_dict_is_plain_data(tmp_path: Path) -> None:
    data = describe_schema(open_db(tmp_path / "qa.db").conn).to_dict()
    assert data["version"] == data["latest"] == SCHEMA_VERSION
    files = next(t for t in data["tables"] if t["name"] == "files")
    assert files["columns"][0] == {"name": "path", "type": "TEXT", "notnull": False, "primary_key": True,
                                   "default": None}
