"""Regenerate `docs/database-tables.md`: every table, column and index of a real database.

The hand-written page (`docs/database.md`) says what the tables mean; this one is read off a
database that `qa-inspect load` wrote from `sample_runs/`, so it cannot drift from the migrations.
Run `python docs/gen_schema.py` after adding a migration; `--check` reports a stale page and exits 1
(the docs test runs it).
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from pathlib import Path

from _generated import regenerate

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "database-tables.md"
SAMPLE = REPO / "sample_runs"

HEADER = """# Database tables (generated)

Every table, column and index of a database that `qa-inspect load sample_runs/` writes, read from
SQLite itself by `docs/gen_schema.py` (do not edit by hand; run that script after a migration);
the meanings come from `core/store/table_docs.py`, which `qa-inspect publish` hands to Datasette too.
What the tables mean is in [The database](database.md). Schema version (`PRAGMA user_version`): {version}.
FTS5's own shadow tables (`*_fts_data`, `*_fts_idx`, …) are left out.
"""


def _cell(value: object) -> str:
    """A Markdown table cell: empty for NULL, `|` escaped (DEFAULT expressions may hold one)."""
    return "" if value is None else str(value).replace("|", "\\|")


def describe(conn: sqlite3.Connection) -> str:
    """The page's Markdown for the database behind `conn`."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    virtual = {n for n in names if n.endswith("_fts")}
    shadow = {n for n in names for v in virtual if n.startswith(v + "_")}
    parts = [HEADER.format(version=version)]
    for name in names:
        if name in shadow:
            continue
        parts.append(_table(conn, name, virtual=name in virtual))
    return "\n".join(parts)


def _table(conn: sqlite3.Connection, name: str, *, virtual: bool) -> str:
    """One table's section: what a row is and its columns (the words from `core.store.TABLE_DOCS`,
    the one place they live), then its indexes."""
    from qa_inspect.core.store import TABLE_DOCS, TableDoc

    doc = TABLE_DOCS.get(name, TableDoc(""))
    lines = [f"## `{name}`", ""]
    if doc.row:
        lines += [f"One row per {doc.row}.", ""]
    if virtual:
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]
        lines += [f"Virtual table: `{' '.join(sql.split())}`", ""]
    lines += ["| column | type | not null | default | primary key | meaning |", "|---|---|---|---|---|---|"]
    for _cid, col, typ, notnull, default, pk in conn.execute(f'PRAGMA table_info("{name}")'):
        lines.append(f"| `{col}` | {_cell(typ)} | {'yes' if notnull else ''} | {_cell(default)} | {pk or ''}"
                     f" | {_cell(doc.columns.get(col))} |")
    indexes = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name",
        (name,)).fetchall()
    if indexes:
        lines += ["", "Indexes:", ""]
        lines += [f"- `{' '.join(sql.split())}`" for _n, sql in indexes]
    return "\n".join(lines) + "\n"


def generate() -> str:
    """Load `sample_runs/` into a temporary database and describe it."""
    from qa_inspect.core.load import load_runs

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "qa.db"
        load_runs(SAMPLE, db)
        conn = sqlite3.connect(db)
        try:
            return describe(conn)
        finally:
            conn.close()


def main(argv: list[str] | None = None) -> int:
    return regenerate(__file__, PAGE, generate, argv,
                      description="Regenerate docs/database-tables.md from a loaded database.")


if __name__ == "__main__":
    sys.exit(main())
