"""`qa-inspect schema RUNS_DIR`: the database's description (`core.store.describe_schema`) as text
and as JSON, sqlite-utils imported by this command alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qa_inspect.core.store import describe_schema, open_db
from tests.cli.helpers import copy_sample_runs, invoke


@pytest.fixture
def runs(tmp_path: Path, sample_runs: Path) -> Path:
    return copy_sample_runs(sample_runs, tmp_path)


def test_json_is_the_core_description(runs: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    res = invoke("schema", str(runs), "--db", str(db), "--json")
    assert res.exit_code == 0, res.output
    conn = open_db(db).conn
    assert json.loads(res.stdout) == describe_schema(conn).to_dict()
    conn.close()


def test_text_names_every_table_column_and_index(runs: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    res = invoke("schema", str(runs), "--db", str(db))
    assert res.exit_code == 0, res.output
    conn = open_db(db).conn
    info = describe_schema(conn)
    conn.close()
    lines = res.stdout.splitlines()
    assert lines[0].startswith(f"schema version {info.version}: {len(info.tables)} tables")
    for t in info.tables:
        assert any(line.startswith(t.name) for line in lines), t.name
        for c in t.columns:
            assert any(line.split()[:1] == [c.name] for line in lines), (t.name, c.name)
        for i in t.indexes:
            assert any(f" {i.name} (" in line for line in lines), i.name
    assert "  dataset_id   INTEGER NOT NULL → datasets.id" in lines  # contexts: a foreign key shown


def test_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    res = invoke("schema", str(tmp_path / "nope"))
    assert res.exit_code == 1
    assert "no such folder" in res.output and len(res.output.strip().splitlines()) == 1
