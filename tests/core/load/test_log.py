"""The load log: the last load's summary kept in the database, read back as rows."""

from __future__ import annotations

import shutil
from pathlib import Path

from qa_inspect.core.load import LOG_SETTING, last_load, load_runs
from qa_inspect.core.store import get_setting, open_db


def test_the_last_load_is_kept_and_read_back_as_rows(sample_runs: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(sample_runs, runs, ignore=shutil.ignore_patterns(".qa-inspect"))
    (runs / "broken.json").write_text('{"data": [', encoding="utf-8")
    (runs / "orphan.json").write_text('{"zz-1": "x", "zz-2": "y"}', encoding="utf-8")
    db = tmp_path / "qa.db"
    summary = load_runs(runs, db)
    conn = open_db(db).conn
    log = last_load(conn)
    assert log is not None and log.at.endswith("Z")
    assert log.summary.to_dict() == summary.to_dict()
    assert log.problems == len(summary.errors) + len(summary.warnings) >= 2
    entries = log.entries()
    kinds = [e.severity for e in entries]
    assert kinds.index("error") < kinds.index("run") < kinds.index("dataset")
    paths = {e.path for e in entries if e.severity == "error"}
    assert {"broken.json", "orphan.json"} <= paths
    run_lines = [e.message for e in entries if e.severity == "run"]
    assert any("linked to cmrc2018_dev_sample by id" in m and "% of its items" in m for m in run_lines), run_lines
    # an unchanged folder's summary (statuses "unchanged") is recorded once, then left alone
    load_runs(runs, db)
    stored = get_setting(conn, LOG_SETTING)
    load_runs(runs, db)
    assert get_setting(conn, LOG_SETTING) == stored
    assert all(r.status == "unchanged" for r in last_load(conn).summary.runs)


def test_no_log_and_a_damaged_log_read_as_none(tmp_path: Path) -> None:
    conn = open_db(tmp_path / "qa.db").conn
    assert last_load(conn) is None
    conn.execute("INSERT INTO settings (key, value) VALUES (?, ?)", (LOG_SETTING, "{not json"))
    assert last_load(conn) is None
