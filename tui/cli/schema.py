"""`schema`: the database's tables, columns, indexes and foreign keys, read from the file itself
(`core.store.describe_schema`), for those who open it with sqlite-utils, Datasette or polars."""

from __future__ import annotations

from qa_inspect.core.store import SchemaInfo, TableInfo, describe_schema

from .common import DbOpt, JsonOpt, RunsDir, app, line, loaded_db, print_json

__all__ = ["schema_cmd"]


@app.command("schema")
def schema_cmd(runs_dir: RunsDir, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """The database's tables: columns (type, NOT NULL, primary key), indexes and foreign keys."""
    with loaded_db(runs_dir, db) as conn:
        info = describe_schema(conn)
    if as_json:
        print_json(info.to_dict())
        return
    for text in schema_lines(info):
        line(text)


def schema_lines(info: SchemaInfo) -> list[str]:
    """The description as plain text lines: a heading per table, then its columns and indexes."""
    lines = [f"schema version {info.version}: {len(info.tables)} tables"
             + (f", views {', '.join(info.views)}" if info.views else "")]
    for t in info.tables:
        lines += ["", *_table_lines(t)]
    return lines


def _table_lines(t: TableInfo) -> list[str]:
    kind = f" ({t.virtual} virtual table)" if t.virtual else ""
    out = [f"{t.name}{kind}"]
    width = max((len(c.name) for c in t.columns), default=0)
    refs = {col: f"→ {other}.{other_col}" for col, other, other_col in t.foreign_keys}
    for c in t.columns:
        marks = [c.type or "-", *(["NOT NULL"] if c.notnull else []), *(["PRIMARY KEY"] if c.primary_key else []),
                 *([f"DEFAULT {c.default}"] if c.default is not None else []), *([refs[c.name]] if c.name in refs else [])]
        out.append(f"  {c.name.ljust(width)}  {' '.join(marks)}")
    for i in t.indexes:
        how = "unique" if i.unique else "index"
        out.append(f"  {how} {i.name} ({', '.join(i.columns)}){' partial' if i.partial else ''}")
    return out
