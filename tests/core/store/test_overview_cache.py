"""The overview's grouped rows (`core.store.overview_rows`) come from the cache until a load changes
what they sum."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from qa_inspect.core.load import load_runs
from qa_inspect.core.report import overview
from qa_inspect.core.store import data_stamp, open_db

RUN = Path("cmrc2018/runs/bert-base-chinese.json")


def _numbers(conn: sqlite3.Connection) -> list[tuple[str, str, float | None, float | None, int]]:
    return [(ds.name, r.name, r.overall.em, r.overall.f1, len(r.slices)) for ds in overview(conn) for r in ds.runs]


def test_rows_are_stored_then_reused(tmp_path: Path, sample_runs: Path) -> None:
    load_runs(sample_runs, tmp_path / "qa.db")
    conn = open_db(tmp_path / "qa.db").conn
    first = _numbers(conn)
    stored = conn.execute("SELECT COUNT(*) FROM overview_cache WHERE slices = 1").fetchone()[0]
    assert stored == len({ds for ds, *_ in first})  # (the load stored those without slices)
    conn.execute("UPDATE overview_cache SET payload = json_set(payload, '$.marker', 1)")  # a hit reads this row
    assert _numbers(conn) == first
    payloads = [json.loads(p) for (p,) in conn.execute("SELECT payload FROM overview_cache")]
    assert all(p.get("marker") == 1 for p in payloads)  # not recomputed


def test_a_changed_run_is_summed_again(tmp_path: Path, sample_runs: Path) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(sample_runs, runs)
    load_runs(runs, tmp_path / "qa.db")
    conn = open_db(tmp_path / "qa.db").conn
    before = _numbers(conn)
    preds = json.loads((runs / RUN).read_text(encoding="utf-8"))
    for key in list(preds)[:20]:
        preds[key] = "完全不同的答案"
    (runs / RUN).write_text(json.dumps(preds, ensure_ascii=False), encoding="utf-8")
    load_runs(runs, tmp_path / "qa.db")
    after = _numbers(conn)
    assert after != before
    conn.execute("DELETE FROM overview_cache")
    assert _numbers(conn) == after  # what an empty cache computes


def test_a_read_only_database_still_gives_numbers(tmp_path: Path, sample_runs: Path) -> None:
    load_runs(sample_runs, tmp_path / "qa.db")
    rw = open_db(tmp_path / "qa.db").conn
    expected = _numbers(rw)
    rw.execute("DELETE FROM overview_cache")
    rw.close()
    conn = sqlite3.connect(f"file:{tmp_path / 'qa.db'}?mode=ro", uri=True)
    assert _numbers(conn) == expected  # computed; nothing could be stored
    assert conn.execute("SELECT COUNT(*) FROM overview_cache").fetchone()[0] == 0


def test_a_rescore_is_another_stamp(tmp_path: Path, sample_runs: Path) -> None:
    load_runs(sample_runs, tmp_path / "qa.db")
    conn = open_db(tmp_path / "qa.db").conn
    before = data_stamp(conn, 1)
    conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES ('scoring_rules', '999')")
    assert data_stamp(conn, 1) != before
