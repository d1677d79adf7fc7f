"""`store.passage_firsts`: which contexts share one text, stored once per loaded data. Equal to the
mapping computed from the texts (on the sample and on a copy where passages repeat), read back
from its row while the stamp holds, computed again after the data changes, computed without
storing on a read-only connection; migration 16 → 17 keeps every annotation."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from qa_inspect.core.store import passage_firsts, stored_passage_firsts
from qa_inspect.core.store.schema import MIGRATIONS

from tests.core.store.previous_version import previous_version, upgraded
from tests.helpers import loaded_sample

PASSAGES = next(n for n, script in enumerate(MIGRATIONS) if "CREATE TABLE IF NOT EXISTS passage_firsts" in script)


def _from_texts(conn: sqlite3.Connection, dataset_id: int) -> dict[int, int]:
    """Each context whose text an earlier context holds → the first one, in Python."""
    first: dict[str, int] = {}
    out = {}
    for cid, text in conn.execute("SELECT id, text FROM contexts WHERE dataset_id = ? ORDER BY id", (dataset_id,)):
        if text in first:
            out[cid] = first[text]
        else:
            first[text] = cid
    return out


@pytest.fixture()
def db(tmp_path: Path, sample_runs: Path) -> Iterator[Path]:
    conn = loaded_sample(tmp_path, sample_runs)
    path = Path(next(r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"))
    # passages that repeat: every third context of each dataset takes the text of the one before
    conn.execute("UPDATE contexts SET text = (SELECT c.text FROM contexts c WHERE c.id = contexts.id - 1"
                 " AND c.dataset_id = contexts.dataset_id) WHERE id % 3 = 0 AND EXISTS (SELECT 1 FROM contexts c"
                 " WHERE c.id = contexts.id - 1 AND c.dataset_id = contexts.dataset_id)")
    if conn.in_transaction:
        conn.commit()
    conn.close()
    yield path


def _datasets(conn: sqlite3.Connection) -> list[int]:
    return [r[0] for r in conn.execute("SELECT DISTINCT dataset_id FROM contexts")]


def test_equal_to_the_texts_and_stored(db: Path) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    datasets = _datasets(conn)
    assert datasets and any(_from_texts(conn, d) for d in datasets)
    for d in datasets:
        assert stored_passage_firsts(conn, d) is None
        assert passage_firsts(conn, d) == _from_texts(conn, d)
        assert stored_passage_firsts(conn, d) == _from_texts(conn, d)  # now one row's read
    conn.close()


def test_another_stamp_computes_again(db: Path) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    d = next(d for d in _datasets(conn) if _from_texts(conn, d))
    passage_firsts(conn, d)
    conn.execute("UPDATE contexts SET text = text || 'x' WHERE dataset_id = ?", (d,))
    conn.execute("UPDATE runs SET prediction_count = prediction_count + 1 WHERE dataset_id = ?", (d,))  # a load's mark
    assert stored_passage_firsts(conn, d) is None
    assert passage_firsts(conn, d) == _from_texts(conn, d)
    conn.close()


def test_read_only_computes_without_storing(db: Path) -> None:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    for d in _datasets(conn):
        assert passage_firsts(conn, d) == _from_texts(conn, d)
        assert stored_passage_firsts(conn, d) is None
    conn.close()


def test_the_previous_version_upgrades_keeping_every_annotation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "qa.db"
    before = previous_version(path, PASSAGES, monkeypatch)
    conn = upgraded(path, before)
    try:
        assert [r[1] for r in conn.execute("PRAGMA table_info(passage_firsts)")] == ["dataset_id", "stamp", "pairs"]
    finally:
        conn.close()
