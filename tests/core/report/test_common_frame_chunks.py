"""The common-item frame the statistics resample is read in chunks; any chunk size gives the frame
one read gives (the same rows, in item order, with the same types)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core.report import diff
from qa_inspect.core.store import require_run


@pytest.mark.parametrize("texts", [True, False])
def test_chunks_make_the_frame_one_read_makes(loaded_db: Path, monkeypatch: pytest.MonkeyPatch, texts: bool) -> None:
    conn = sqlite3.connect(f"file:{loaded_db}?mode=ro", uri=True)
    pairs = conn.execute("SELECT a.name, b.name FROM runs a JOIN runs b ON b.dataset_id = a.dataset_id"
                         " AND b.id > a.id ORDER BY a.id, b.id").fetchall()
    assert pairs
    for a, b in pairs:
        ra, rb = require_run(conn, a), require_run(conn, b)
        assert ra.dataset_id is not None
        whole = diff.common_frame(conn, ra.id, rb.id, ra.dataset_id, texts=texts)
        monkeypatch.setattr(diff, "_CHUNK", 3)
        chunked = diff.common_frame(conn, ra.id, rb.id, ra.dataset_id, texts=texts)
        monkeypatch.undo()
        assert whole.height > 3 and chunked.equals(whole)
        assert chunked.schema == whole.schema
    conn.close()
