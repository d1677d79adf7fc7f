"""A read-only copy of the database for Datasette: the file, and the metadata that explains it.

`publish_metadata` is a pure function of the documented schema (`core.store.TABLE_DOCS`) and the
canned queries (`publish_queries`): titles, table and column descriptions, facets, the columns
that name a foreign row. `publish_database` writes `DIR/qa.db` (`VACUUM INTO`: a consistent,
compact copy while others may be writing) without this machine's settings and caches, and
`DIR/metadata.json` beside it. Nothing here serves anything: `datasette DIR/qa.db -m
DIR/metadata.json` does.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.store import TABLE_DOCS

from .publish_queries import CANNED_QUERIES

__all__ = ["DB_NAME", "METADATA_NAME", "Published", "datasette_command", "publish_database", "publish_metadata"]

DB_NAME = "qa.db"
METADATA_NAME = "metadata.json"

FACETS: dict[str, list[str]] = {
    "items": ["dataset_id", "split", "tag", "answer_type", "question_type"],
    "predictions": ["run_id", "error_category", "relation", "flaky"],
    "annotations": ["action", "author", "dataset"],
    "runs": ["dataset_id", "scorer"],
    "verdicts": ["run", "judge", "verdict"],
}
"""Facets Datasette shows first on a table: the slices and who-did-what a reviewer filters by."""

LABEL_COLUMNS: dict[str, str] = {"datasets": "name", "runs": "name", "items": "key", "contexts": "context_key"}
"""The column that names a row: foreign keys to these tables show it instead of a row id."""

PRIVATE_TABLES: tuple[str, ...] = ("settings", "overview_cache", "delta_order", "delta_pairs")
"""Emptied in the copy and hidden: this machine's annotator names and preferences, and caches."""


@dataclass(frozen=True, slots=True)
class Published:
    """What `publish_database` wrote."""

    db: Path
    metadata: Path

    def command(self) -> str:
        return datasette_command(self.db, self.metadata)

    def to_dict(self) -> dict[str, str]:
        return {"db": str(self.db), "metadata": str(self.metadata), "command": self.command()}


def datasette_command(db: Path, metadata: Path) -> str:
    """The shell line that browses the copy (quoted for a POSIX shell)."""
    import shlex

    return shlex.join(["datasette", str(db), "-m", str(metadata)])


def _table_metadata(name: str) -> dict[str, Any]:
    doc = TABLE_DOCS[name]
    out: dict[str, Any] = {"description": f"One row per {doc.row}.", "columns": dict(doc.columns)}
    if name in FACETS:
        out["facets"] = list(FACETS[name])
    if name in LABEL_COLUMNS:
        out["label_column"] = LABEL_COLUMNS[name]
    if name in PRIVATE_TABLES:
        out["hidden"] = True
    return out


def publish_metadata(title: str = "qa-inspect", *, database: str = Path(DB_NAME).stem) -> dict[str, Any]:
    """Datasette metadata for a published copy named `database` (the file's stem): every table
    and column described, facets, label columns, and the canned queries."""
    queries = {
        name: {"title": q.title, "description": q.description, "sql": q.sql.strip()}
        for name, q in CANNED_QUERIES.items()
    }
    return {
        "title": title,
        "description": "Question-answering model runs, their official scores, and the annotation journal "
                       "(stale flags, verifications, error labels), published read-only by qa-inspect.",
        "databases": {database: {
            "tables": {name: _table_metadata(name) for name in TABLE_DOCS},
            "queries": queries,
        }},
    }


def publish_database(conn: sqlite3.Connection, out_dir: Path, *, title: str = "qa-inspect") -> Published:
    """Copy the database behind `conn` to `out_dir/qa.db` and write `out_dir/metadata.json`.

    The copy is written beside its final name and moved over it only when complete, so a reader
    of an earlier copy never sees half a file. Raises `QAInspectError` (one line naming the path)
    when `out_dir` cannot be written."""
    if out_dir.exists() and not out_dir.is_dir():
        raise QAInspectError(f"{out_dir}: not a folder")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise QAInspectError(f"{out_dir}: cannot create the folder ({exc.strerror or exc})") from None
    db, partial = out_dir / DB_NAME, out_dir / f".{DB_NAME}.partial"
    partial.unlink(missing_ok=True)
    try:
        _vacuum_into(conn, partial)
        _strip_private(partial)
        os.replace(partial, db)
    except (sqlite3.Error, OSError) as exc:
        partial.unlink(missing_ok=True)
        raise QAInspectError(f"{db}: cannot write the copy ({exc})") from None
    metadata = out_dir / METADATA_NAME
    text = json.dumps(publish_metadata(title, database=db.stem), ensure_ascii=False, indent=2) + "\n"
    try:
        metadata.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise QAInspectError(f"{metadata}: cannot write ({exc.strerror or exc})") from None
    return Published(db, metadata)


def _vacuum_into(conn: sqlite3.Connection, path: Path) -> None:
    """`VACUUM INTO path`. A connection opened read-only (`core.store.open_read_only`: a full disk,
    a read-only folder) sets `query_only`, which refuses VACUUM INTO as well; the file itself stays
    read-only (`mode=ro`), so lifting the pragma for the copy writes nothing to it."""
    query_only = conn.execute("PRAGMA query_only").fetchone()[0]
    if query_only:
        conn.execute("PRAGMA query_only = OFF")
    try:
        conn.execute("VACUUM INTO ?", (str(path),))
    finally:
        if query_only:
            conn.execute("PRAGMA query_only = ON")


def _strip_private(path: Path) -> None:
    """Empty this machine's settings and the caches in the copy, and leave it in rollback-journal
    mode (a published file is read, often from a read-only place: no WAL beside it)."""
    copy = sqlite3.connect(path)
    try:
        with copy:
            for table in PRIVATE_TABLES:
                copy.execute(f'DELETE FROM "{table}"')  # fixed names
        copy.execute("PRAGMA journal_mode = DELETE")
        copy.execute("VACUUM")
    finally:
        copy.close()
