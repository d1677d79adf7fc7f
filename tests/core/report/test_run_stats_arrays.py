"""`dataset_items` fills its arrays chunk by chunk (a million items once took 0.9 GB as tuples): the
arrays must be those a plain read of every row gives, on the sample runs (shared passages, human
estimates, CDQA) and on a dataset where a run lacks predictions and an item lacks a human estimate."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from qa_inspect.core.load import load_runs
from qa_inspect.core.report import run_stats
from qa_inspect.core.report.run_stats import dataset_items, passage_ids
from qa_inspect.core.store import open_db


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Iterator[sqlite3.Connection]:
    root = tmp_path_factory.mktemp("arrays") / "runs"
    shutil.copytree(sample_runs, root, ignore=shutil.ignore_patterns(".qa-inspect"))
    assert not load_runs(root).errors
    c = open_db(root / ".qa-inspect" / "qa.db").conn
    yield c
    c.close()


def _plain(conn: sqlite3.Connection, name: str) -> dict[str, object]:
    """Every row read at once, as the arrays were built before."""
    ds = conn.execute("SELECT id FROM datasets WHERE name = ?", (name,)).fetchone()[0]
    items = conn.execute(
        "SELECT id, COALESCE(context_id, -1), COALESCE(answerable, ''), human_em, human_f1 FROM items"
        " WHERE dataset_id = ? ORDER BY id", (ds,)).fetchall()
    same = passage_ids(conn, ds)
    runs = {}
    for run_id, run in conn.execute("SELECT id, name FROM runs WHERE dataset_id = ? ORDER BY name", (ds,)).fetchall():
        rows = [conn.execute(
            "SELECT p.id IS NOT NULL, COALESCE(p.em, 0), COALESCE(p.f1, 0), COALESCE(p.refused, 0),"
            " COALESCE(p.f1_recall, 0) FROM predictions p WHERE p.run_id = ? AND p.item_id = ?",
            (run_id, i[0])).fetchone() or (0, 0, 0, 0, 0) for i in items]
        runs[run] = np.array(rows, dtype=np.float64)
    return {"ids": [i[0] for i in items], "contexts": [same.get(i[1], i[1]) for i in items],
            "answerable": [i[2] for i in items], "human_f1": [i[4] for i in items], "runs": runs}


@pytest.mark.parametrize("name", ["cmrc2018_dev_sample", "cdqa_sample"])
def test_arrays_match_a_plain_read(conn, name, monkeypatch) -> None:
    monkeypatch.setattr(run_stats, "_CHUNK", 7)  # many chunks, the last one short
    data, plain = dataset_items(conn, name), _plain(conn, name)
    assert data.item_ids.tolist() == plain["ids"]
    assert data.contexts.tolist() == plain["contexts"]
    assert data.answerable.tolist() == plain["answerable"]
    assert list(data.runs) == list(plain["runs"])
    for run, values in plain["runs"].items():
        got = np.column_stack([data.runs[run][c] for c in ("predicted", "em", "f1", "refused", "f1_recall")])
        assert np.array_equal(got, values), run
    if data.human is not None:
        assert data.human["predicted"].tolist() == [float(h is not None) for h in plain["human_f1"]]
        assert data.human["f1"].tolist() == [h or 0.0 for h in plain["human_f1"]]


def test_missing_predictions_and_human_estimates(conn) -> None:
    """A run without some predictions counts them unpredicted; an item without a human estimate is
    not among the human's; the read leaves no transaction open."""
    name = "cmrc2018_dev_sample"
    ds = conn.execute("SELECT id FROM datasets WHERE name = ?", (name,)).fetchone()[0]
    first = conn.execute("SELECT MIN(id) FROM items WHERE dataset_id = ?", (ds,)).fetchone()[0]
    run_id, run = conn.execute("SELECT id, name FROM runs WHERE dataset_id = ? ORDER BY name", (ds,)).fetchone()
    conn.execute("BEGIN")
    try:
        conn.execute("DELETE FROM predictions WHERE run_id = ? AND item_id = ?", (run_id, first))
        conn.execute("UPDATE items SET human_em = NULL, human_f1 = NULL WHERE id = ?", (first,))
        data = dataset_items(conn, name)  # inside the caller's transaction: it opens none of its own
        assert conn.in_transaction
    finally:
        conn.execute("ROLLBACK")
    assert data.runs[run]["predicted"][0] == 0 and data.runs[run]["f1"][0] == 0
    assert data.human is None or data.human["predicted"][0] == 0
    dataset_items(conn, name)
    assert not conn.in_transaction
