"""`qa-inspect load` stores every big run's facet frame after a load that changed something
(`core.query.store_frames`), so the first facet panel of any run reads blobs; an unchanged
re-load stores nothing, and a small dataset's frames are never stored (read in well under a second)."""

from __future__ import annotations

import importlib
import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core.query import Filter, kept_frame
from qa_inspect.core.store import open_db

from tests.cli.helpers import copy_sample_runs, invoke


def _stored_parts(db: Path) -> set[int]:
    with sqlite3.connect(db) as conn:
        return {r[0] for r in conn.execute("SELECT DISTINCT run_id FROM frame_columns")}


def test_a_load_stores_every_big_runs_frame(sample_runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    frames = importlib.import_module("qa_inspect.core.query.facet_frame")
    monkeypatch.setattr(importlib.import_module("qa_inspect.core.store"), "LARGE_DATASET", 0)  # every sample dataset counts as big
    runs, db = copy_sample_runs(sample_runs, tmp_path), tmp_path / "qa.db"
    assert invoke("load", str(runs), "--db", str(db)).exit_code == 0
    conn = open_db(db).conn
    try:
        ids, names = zip(*conn.execute("SELECT id, name FROM runs WHERE dataset_id IS NOT NULL").fetchall(), strict=True)
        assert _stored_parts(db) == {0, *ids}  # each dataset's item part, each run's part
        frames._FRAMES.clear()  # nothing kept in this process: the frame comes from its blobs
        for name in names:
            assert kept_frame(conn, Filter(run=name)) is not None
    finally:
        conn.close()
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM frame_columns")
    assert invoke("load", str(runs), "--db", str(db)).exit_code == 0
    assert _stored_parts(db) == set()  # nothing changed: no frame read or stored


def test_a_small_datasets_frames_are_not_stored(sample_runs: Path, tmp_path: Path) -> None:
    runs, db = copy_sample_runs(sample_runs, tmp_path), tmp_path / "qa.db"
    assert invoke("load", str(runs), "--db", str(db)).exit_code == 0
    assert _stored_parts(db) == set()
