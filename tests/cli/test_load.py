"""`qa-inspect load`, `open` and the bare `qa-inspect RUNS_DIR`."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from qa_inspect.tui import cli
from tests.cli.helpers import copy_sample_runs, invoke

DATASET_KEYS = {"name", "path", "format", "items", "golds", "status"}
RUN_KEYS = {"name", "path", "format", "dataset", "predictions", "unmatched", "status"}
# Beyond the first summary's shape, it documents which encoding each file was read with, and
# which files disappeared since the last load.
EXTRA_ENTRY_KEYS = {"encoding"}
EXTRA_TOP_KEYS = {"removed", "warnings", "verdicts"}
# How each run was linked: coverage of the dataset and of the run (%), the method, warnings.
EXTRA_RUN_KEYS = {"coverage", "run_coverage", "method", "warnings"}


@pytest.fixture
def runs(tmp_path: Path, sample_runs: Path) -> Path:
    return copy_sample_runs(sample_runs, tmp_path)


# ------------------------------------------------------------------------------------------ load


def test_load_json_shape(runs: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    res = invoke("load", str(runs), "--db", str(db), "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert set(summary) == {"db", "datasets", "runs", "skipped", "errors"} | EXTRA_TOP_KEYS
    assert summary["db"] == str(db)
    assert len(summary["datasets"]) == 2 and len(summary["runs"]) == 5
    for d in summary["datasets"]:
        assert set(d) == DATASET_KEYS | EXTRA_ENTRY_KEYS | {"scorer"}
        assert isinstance(d["items"], int) and isinstance(d["golds"], int)
        assert all(isinstance(d[k], str) for k in ("name", "path", "format"))
        assert d["status"] == "loaded"
    for r in summary["runs"]:
        assert set(r) == RUN_KEYS | EXTRA_ENTRY_KEYS | EXTRA_RUN_KEYS
        assert isinstance(r["predictions"], int) and isinstance(r["unmatched"], int)
        assert r["dataset"] in {d["name"] for d in summary["datasets"]}
        assert r["status"] == "loaded"
    for k in summary["skipped"]:
        assert set(k) == {"path", "reason"}
    assert summary["errors"] == [] and summary["removed"] == []
    # the paths are relative to the runs folder, '/'-separated
    assert {d["path"] for d in summary["datasets"]} == {"cdqa/cdqa_sample.json", "cmrc2018/cmrc2018_dev_sample.json"}

    again = json.loads(invoke("load", str(runs), "--db", str(db), "--json").stdout)
    assert {x["status"] for x in again["datasets"] + again["runs"]} == {"unchanged"}


def test_load_leaves_the_overview_summed(runs: Path, tmp_path: Path) -> None:
    """The overview's grouped rows are stored by the load, so the app's first open reads them."""
    import sqlite3

    from qa_inspect.core.store import stored_rows

    db = tmp_path / "qa.db"
    assert invoke("load", str(runs), "--db", str(db)).exit_code == 0
    with sqlite3.connect(db) as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM datasets")]
        assert len(ids) == 2 and all(stored_rows(conn, i, False) is not None for i in ids)  # the first paint's


def _contents(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, sorted, but for what differs between two loads of one folder: when a
    file was loaded, the last load's time and database path, and so the overview cache's stamp
    (replaced by whether it is its database's current stamp)."""
    import sqlite3

    from qa_inspect.core.load import LOG_SETTING
    from qa_inspect.core.store import data_stamp

    conn = sqlite3.connect(db)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    out: dict[str, list[tuple[Any, ...]]] = {}
    for table in tables:
        cursor = conn.execute(f'SELECT * FROM "{table}"')
        cols = [c[0] for c in cursor.description]
        rows = []
        for row in cursor.fetchall():
            rec = dict(zip(cols, row))
            if table == "files":
                rec["loaded_at"] = None
            if table == "settings" and rec["key"] == "journal:dir":
                rec["value"] = None  # beside each database (`--db` elsewhere): named after it
            if table == "settings" and rec["key"] == LOG_SETTING:
                log = json.loads(rec["value"])
                rec["value"] = {k: v for k, v in log["summary"].items() if k != "db"}
            if table == "overview_cache":
                rec["stamp"] = rec["stamp"] == data_stamp(conn, rec["dataset_id"])
            rows.append(tuple(repr(v) for v in rec.values()))
        out[table] = sorted(rows)
    conn.close()
    return out


def test_python_and_cli_loads_leave_equal_databases(runs: Path, tmp_path: Path) -> None:
    """`core.load.load_runs` does everything `qa-inspect load` does: the same tables, rows and
    stored overview sums."""
    from qa_inspect.core.load import load_runs

    load_runs(runs, tmp_path / "python.db")
    assert invoke("load", str(runs), "--db", str(tmp_path / "cli.db")).exit_code == 0
    python, cli = _contents(tmp_path / "python.db"), _contents(tmp_path / "cli.db")
    assert python["overview_cache"] and all(r[2] == "True" for r in python["overview_cache"])
    assert python == cli


def test_load_json_errors_shape_and_exit_code(runs: Path, tmp_path: Path) -> None:
    (runs / "broken.json").write_text("{", encoding="utf-8")
    res = invoke("load", str(runs), "--db", str(tmp_path / "qa.db"), "--json")
    assert res.exit_code == 1
    summary = json.loads(res.stdout)  # the JSON is still printed, whole
    assert summary["errors"] == [
        {"path": "broken.json", "message": "broken.json: invalid JSON at line 1, column 2: Expecting property name enclosed in double quotes"}
    ]
    assert len(summary["runs"]) == 5


def test_load_plain_output_has_the_summary_table(runs: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    res = invoke("load", str(runs), "--db", str(db))
    assert res.exit_code == 0
    out = res.stdout
    for word in ("Datasets", "Runs", "Skipped", "cmrc2018_dev_sample", "cdqa_sample", "roberta-wwm-large",
                 "glm-6b", "README.md", "loaded"):
        assert word in out, word
    assert "\x1b[" not in out  # no colour codes when not a terminal
    assert "2 datasets, 5 runs, 191 items, 526 predictions. Database: " + str(db) in out
    row = next(ln for ln in out.splitlines() if "bidaf-baseline.json" in ln)
    assert "148" in row and "cmrc2018_dev_sample" in row
    # progress on stderr, as plain lines
    assert "checking …" in res.stderr
    # every progress message leads with its verb, the phase: a clean load never logs a line "error …"
    assert "categorising …" in res.stderr
    assert "error …" not in res.stderr.splitlines(), res.stderr
    res = invoke("load", str(runs), "--db", str(db))
    assert "nothing changed" in res.stdout and "unchanged" in res.stdout


def test_load_exit_codes(runs: Path, tmp_path: Path) -> None:
    assert invoke("load", str(runs), "--db", str(tmp_path / "a.db")).exit_code == 0
    res = invoke("load", str(tmp_path / "missing"), "--db", str(tmp_path / "b.db"))
    assert res.exit_code == 1
    assert res.stderr.strip() == f"qa-inspect: {tmp_path / 'missing'}: no such folder"
    not_a_dir = tmp_path / "file.json"
    not_a_dir.write_text("{}", encoding="utf-8")
    assert invoke("load", str(not_a_dir), "--db", str(tmp_path / "c.db")).exit_code == 1


def test_default_db_lives_in_the_runs_folder(runs: Path) -> None:
    res = invoke("load", str(runs), "--json")
    assert res.exit_code == 0
    db = Path(json.loads(res.stdout)["db"])
    assert db == runs.resolve() / ".qa-inspect" / "qa.db" and db.is_file()
    # and the state folder is never taken for data
    res = invoke("load", str(runs), "--json")
    summary = json.loads(res.stdout)
    assert not any(".qa-inspect" in x["path"] for x in summary["skipped"] + summary["errors"])


def test_console_script_runs_without_traceback(runs: Path, tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("qa-inspect")
    if not exe.exists():
        pytest.skip(f"console script not installed beside {sys.executable}")
    (runs / "broken.jsonl").write_text('{"id": 1, "prediction": "x"}\n{"id": 2, "predic', encoding="utf-8")
    proc = subprocess.run([str(exe), "load", str(runs), "--db", str(tmp_path / "qa.db")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    errors = [ln for ln in proc.stdout.splitlines() if ln.startswith("error:")]
    assert errors == ["error: broken.jsonl, line 2: truncated JSON: Unterminated string starting at column 11"]


# ------------------------------------------------------------------------------------ bare command


def test_bare_runs_dir_opens_the_ui(runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[dict[str, Any]] = []

    class FakeApp:
        def __init__(self, **kwargs: Any) -> None:
            self.kwargs = kwargs

        def run(self) -> None:
            opened.append(self.kwargs)

    monkeypatch.setitem(sys.modules, "qa_inspect.tui.app", types.SimpleNamespace(QAInspectApp=FakeApp))
    db = tmp_path / "qa.db"
    monkeypatch.setattr(sys, "argv", ["qa-inspect", str(runs), "--db", str(db)])
    with pytest.raises(SystemExit) as info:
        cli.main()
    assert info.value.code in (0, None)
    assert opened == [{"db_path": db, "runs_dir": runs.resolve(), "load_notices": [], "start": None}]  # a clean load: nothing to show
    assert db.is_file()  # it loaded first

    # a sub-command name is not taken for a folder
    monkeypatch.setattr(sys, "argv", ["qa-inspect", "load", str(runs), "--db", str(db)])
    with pytest.raises(SystemExit) as info:
        cli.main()
    assert info.value.code in (0, None)
    assert len(opened) == 1


def test_open_with_bad_files_still_opens(runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[Any] = []
    fake = types.SimpleNamespace(QAInspectApp=lambda **kw: types.SimpleNamespace(run=lambda: opened.append(kw)))
    monkeypatch.setitem(sys.modules, "qa_inspect.tui.app", fake)
    (runs / "broken.json").write_text("[", encoding="utf-8")
    res = invoke("open", str(runs), "--db", str(tmp_path / "qa.db"))
    assert res.exit_code == 0
    assert len(opened) == 1
    assert "qa-inspect: broken.json: invalid JSON" in res.stderr
    assert [s for s, m in opened[0]["load_notices"] if m.startswith("broken.json: invalid JSON")] == ["error"]  # and in the app


def test_a_runs_frame_is_stored_by_the_load_else_by_its_first_read(runs: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A load that changed something stores every big run's facet frame; one missing (a database
    a Python caller loaded, or a store that failed) is stored by the run's first frame read, so a
    new process reads blobs; a load that changed nothing leaves the stored frames as they are."""
    import importlib
    import sqlite3

    from qa_inspect.core.query import FACETS, Filter, facet_frame, kept_frame

    frame_module = importlib.import_module("qa_inspect.core.query.facet_frame")
    monkeypatch.setattr(importlib.import_module("qa_inspect.core.store"), "LARGE_DATASET", 0)  # every dataset counts as big
    db = tmp_path / "qa.db"
    assert invoke("load", str(runs), "--db", str(db)).exit_code == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM frame_columns").fetchone()[0] > 0
        conn.execute("DELETE FROM frame_columns")
        conn.commit()
        dataset, run = conn.execute("SELECT d.name, r.name FROM runs r JOIN datasets d ON d.id = r.dataset_id"
                                    " ORDER BY r.id LIMIT 1").fetchone()
        f = Filter(dataset=dataset, run=run)
        assert facet_frame(conn, f, list(FACETS.values())) is not None
        before = conn.execute("SELECT dataset_id, run_id, name, stamp FROM frame_columns ORDER BY 1, 2, 3").fetchall()
        assert any(r[1] > 0 for r in before)  # the run's own columns beside the dataset's
    frame_module._FRAMES.clear()  # as a new process: nothing kept
    with sqlite3.connect(db) as conn:
        assert kept_frame(conn, f) is not None  # read from the stored blobs, no pass over the rows
    assert invoke("load", str(runs), "--db", str(db)).exit_code == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT dataset_id, run_id, name, stamp FROM frame_columns ORDER BY 1, 2, 3").fetchall() == before
