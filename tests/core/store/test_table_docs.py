"""`core.store.TABLE_DOCS`: every table and column a migrated database holds is described in words,
and nothing is described that the migrations do not create (the docs page and a published copy
read these)."""

from __future__ import annotations

from pathlib import Path

from qa_inspect.core.store import TABLE_DOCS, describe_schema, open_db


def test_every_table_and_column_is_described(tmp_path: Path) -> None:
    info = describe_schema(open_db(tmp_path / "qa.db").conn)
    assert sorted(TABLE_DOCS) == sorted(t.name for t in info.tables)
    for t in info.tables:
        doc = TABLE_DOCS[t.name]
        assert doc.row.strip(), t.name
        assert list(doc.columns) == [c.name for c in t.columns], f"{t.name}: columns in migration order"
        assert all(text.strip() for text in doc.columns.values()), t.name
