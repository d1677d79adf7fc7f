"""Bad input gets one clear line and loses nothing.

Each case loads the good sample first, then overwrites one file with bad content and reloads
through the CLI: exit 1 (or 0 where the file is merely skipped or partly matched), one line naming
the file (and record/line), no traceback, another changed file still loads, and the database
rows of the bad file are exactly what they were.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core import store
from qa_inspect.core.errors import StoreError
from qa_inspect.core.load import load_runs, loader
from qa_inspect.tui.cli import app
from typer.testing import CliRunner

from tests.paths import SAMPLE_RUNS

CMRC = "cmrc2018/cmrc2018_dev_sample.json"
CDQA = "cdqa/cdqa_sample.json"
BERT = "cmrc2018/runs/bert-base-chinese.json"
BIDAF = "cmrc2018/runs/bidaf-baseline.json"
GLM = "cdqa/runs/glm-6b.jsonl"
QWEN = "cdqa/runs/qwen-7b-chat.jsonl"

runner = CliRunner()


@pytest.fixture
def runs(tmp_path: Path, sample_runs: Path) -> Path:
    dest = tmp_path / "runs"
    shutil.copytree(sample_runs, dest, ignore=shutil.ignore_patterns(".qa-inspect"))
    return dest


@pytest.fixture
def db(tmp_path: Path, runs: Path) -> Path:
    path = tmp_path / "db" / "qa.db"
    summary = load_runs(runs, path)
    assert not summary.errors
    return path


def invoke(*args: str, env: dict[str, str] | None = None):  # noqa: ANN201
    result = runner.invoke(app, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result


def snapshot(db: Path, rel: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row the database holds for the file `rel` (as a run or as a dataset)."""
    queries = {
        "runs": "SELECT * FROM runs WHERE path = ?",
        "predictions": "SELECT p.* FROM predictions p JOIN runs r ON r.id = p.run_id WHERE r.path = ? ORDER BY p.id",
        "datasets": "SELECT * FROM datasets WHERE path = ?",
        "items": "SELECT i.* FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.path = ? ORDER BY i.id",
        "golds": "SELECT g.* FROM golds g JOIN items i ON i.id = g.item_id JOIN datasets d ON d.id = i.dataset_id"
        " WHERE d.path = ? ORDER BY g.id",
        "contexts": "SELECT c.* FROM contexts c JOIN datasets d ON d.id = c.dataset_id WHERE d.path = ? ORDER BY c.id",
    }
    with sqlite3.connect(db) as conn:
        return {name: conn.execute(sql, (rel,)).fetchall() for name, sql in queries.items()}


def edit_map(path: Path, key: str, value: str) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    data[key] = value
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def write(path: Path, content: bytes | str) -> None:
    """Overwrite in place (size and mtime both move, so the change is seen at once)."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    st = path.stat()
    path.write_bytes(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def squad(qas: list[dict[str, Any]]) -> str:
    return json.dumps(
        {"version": "v1", "data": [{"title": "t", "paragraphs": [{"context": "甲乙丙丁戊己庚", "qas": qas}]}]},
        ensure_ascii=False,
    )


def jsonl_head(runs: Path, rel: str, n: int) -> list[str]:
    return (runs / rel).read_text(encoding="utf-8").splitlines()[:n]


# ------------------------------------------------------------------------------ the error cases


@dataclass
class Case:
    target: str
    content: Callable[[Path], bytes | str]
    expect: list[str]  # substrings of the one error line (after the file name)


CASES: dict[str, Case] = {
    "invalid-json": Case(BERT, lambda r: '{"DEV_4_QUERY_0": "巴西",, "x": 1}', ["invalid JSON at line 1, column"]),
    "invalid-json-dataset": Case(CMRC, lambda r: '{"version": "v1", "data": [', ["invalid JSON"]),
    "truncated-jsonl": Case(
        GLM,
        lambda r: "\n".join(jsonl_head(r, GLM, 3) + [jsonl_head(r, GLM, 4)[3][:25]]),
        ["line 4", "truncated JSON"],
    ),
    "not-utf8-nor-gb18030": Case(QWEN, lambda r: b'{"question": "\x81\x20\xff\xfe", "prediction": "x"}\n',
                                 ["not UTF-8 or GB18030"]),
    "empty": Case(BIDAF, lambda r: b"", ["empty file"]),
    "blank-lines-only": Case(BIDAF, lambda r: b"\n  \n", ["empty file"]),
    "wrong-shape-dataset": Case(CMRC, lambda r: json.dumps({"version": "v1", "data": [{"paragraphs": "oops"}]}),
                                ["data[0]", "paragraphs"]),
    "wrong-shape-record": Case(
        GLM, lambda r: "\n".join([jsonl_head(r, GLM, 1)[0], "[1, 2]", jsonl_head(r, GLM, 3)[2]]),
        ["line 2", "record is a list"],
    ),
    "record-without-id-or-question": Case(
        GLM, lambda r: "\n".join([jsonl_head(r, GLM, 1)[0], '{"prediction": "x"}']),
        ["line 2", "no id", "no question"],
    ),
    "dataset-record-without-question": Case(
        CMRC, lambda r: squad([{"id": "A1", "answers": [{"text": "甲", "answer_start": 0}]}]),
        ["qas[0]", "no question"],
    ),
    "duplicate-dataset-ids": Case(
        CMRC,
        lambda r: squad([
            {"id": "A1", "question": "一？", "answers": [{"text": "甲", "answer_start": 0}]},
            {"id": "A1", "question": "二？", "answers": [{"text": "乙", "answer_start": 1}]},
        ]),
        ["qas[1]", "duplicate id 'A1'", "qas[0]"],
    ),
    "duplicate-prediction-ids": Case(
        GLM, lambda r: '{"id": "x1", "prediction": "a"}\n{"id": "x2", "prediction": "b"}\n{"id": "x1", "prediction": "c"}\n',
        ["line 3", "duplicate id 'x1'", "line 1"],
    ),
    "matches-no-dataset": Case(BERT, lambda r: json.dumps({"NOPE_1": "a", "NOPE_2": "b"}),
                               ["no prediction matches any dataset"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_file_is_one_line_and_keeps_its_rows(name: str, runs: Path, db: Path) -> None:
    case = CASES[name]
    before = snapshot(db, case.target)
    assert before["runs"] or before["datasets"]
    companion = BERT if case.target != BERT else BIDAF
    companion_before = snapshot(db, companion)
    write(runs / case.target, case.content(runs))
    edit_map(runs / companion, "DEV_4_QUERY_0", "另一个答案")

    res = invoke("load", str(runs), "--db", str(db), "--json")
    assert res.exit_code == 1
    summary = json.loads(res.stdout)
    assert len(summary["errors"]) == 1, summary["errors"]
    error = summary["errors"][0]
    assert error["path"] == case.target
    message = error["message"]
    assert message.startswith(case.target) and "\n" not in message
    for part in case.expect:
        assert part in message, (part, message)
    # the other changed file still loaded
    statuses = {r["path"]: r["status"] for r in summary["runs"] + summary["datasets"]}
    assert statuses[companion] == "loaded"
    assert snapshot(db, companion) != companion_before
    # the bad file's rows are those of its last good version, reported as such
    assert snapshot(db, case.target) == before
    assert statuses[case.target] == "error"

    # again, plain output: the same one line, and the file is read again (not taken as unchanged)
    res = invoke("load", str(runs), "--db", str(db))
    assert res.exit_code == 1
    lines = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
    assert lines == [f"error: {message}"]
    assert snapshot(db, case.target) == before

    # fixed again: it loads
    shutil.copy(SAMPLE_RUNS / case.target, runs / case.target)
    res = invoke("load", str(runs), "--db", str(db), "--json")
    assert res.exit_code == 0, res.output
    assert {r["path"]: r["status"] for r in json.loads(res.stdout)["runs"] + json.loads(res.stdout)["datasets"]}[
        case.target
    ] == "loaded"


def test_new_bad_file_is_an_error_and_others_load(runs: Path, tmp_path: Path) -> None:
    (runs / "stray.json").write_text(json.dumps({"zzz_1": "a"}), encoding="utf-8")
    (runs / "broken.jsonl").write_text('{"id": "a", "prediction": "x"}\n{"id": ', encoding="utf-8")
    res = invoke("load", str(runs), "--db", str(tmp_path / "qa.db"), "--json")
    assert res.exit_code == 1
    summary = json.loads(res.stdout)
    assert {e["path"] for e in summary["errors"]} == {"stray.json", "broken.jsonl"}
    assert len(summary["runs"]) == 5 and len(summary["datasets"]) == 2
    assert all(r["status"] == "loaded" for r in summary["runs"])
    broken = next(e for e in summary["errors"] if e["path"] == "broken.jsonl")["message"]
    assert broken.startswith("broken.jsonl, line 2: truncated JSON")


# ---------------------------------------------------------------------------- not errors at all


def test_gb18030_file_loads_and_says_so(runs: Path, db: Path) -> None:
    for rel in (GLM, CDQA):
        write(runs / rel, (runs / rel).read_text(encoding="utf-8").encode("gb18030"))
    res = invoke("load", str(runs), "--db", str(db), "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    glm = next(r for r in summary["runs"] if r["path"] == GLM)
    cdqa = next(d for d in summary["datasets"] if d["path"] == CDQA)
    assert (glm["status"], glm["encoding"], glm["predictions"], glm["unmatched"]) == ("loaded", "gb18030", 38, 0)
    assert (cdqa["status"], cdqa["encoding"], cdqa["items"], cdqa["golds"]) == ("loaded", "gb18030", 38, 48)
    assert {r["encoding"] for r in summary["runs"] if r["path"] != GLM} == {"utf-8"}
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT encoding FROM runs WHERE path = ?", (GLM,)).fetchone() == ("gb18030",)
        assert conn.execute("SELECT encoding FROM datasets WHERE path = ?", (CDQA,)).fetchone() == ("gb18030",)
        assert conn.execute("SELECT encoding FROM files WHERE path = ?", (GLM,)).fetchone() == ("gb18030",)
        # decoded right: the Chinese text is intact (and matched the dataset by question above)
        first = json.loads((runs / GLM).read_text(encoding="gb18030").splitlines()[0])
        stored = conn.execute(
            "SELECT p.text FROM predictions p JOIN runs r ON r.id = p.run_id WHERE r.path = ? ORDER BY p.source_line"
            " LIMIT 1", (GLM,)
        ).fetchone()
        assert stored == (first["prediction"],)
    # the table shows the encoding too, also for an unchanged file
    res = invoke("load", str(runs), "--db", str(db))
    assert res.exit_code == 0
    assert "encoding" in res.output
    row = next(ln for ln in res.output.splitlines() if "glm-6b.jsonl" in ln)
    assert "gb18030" in row and "unchanged" in row


def test_utf8_only_table_has_no_encoding_column(runs: Path, db: Path) -> None:
    res = invoke("load", str(runs), "--db", str(db))
    assert res.exit_code == 0
    assert "encoding" not in res.output


def test_file_no_reader_claims_is_skipped_and_keeps_rows(runs: Path, db: Path) -> None:
    before = snapshot(db, BERT)
    write(runs / BERT, "[1, 2, 3]")
    (runs / "notes.json").write_text(json.dumps({"author": "me", "todo": ["x"]}), encoding="utf-8")
    res = invoke("load", str(runs), "--db", str(db), "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    skipped = {k["path"]: k["reason"] for k in summary["skipped"]}
    assert skipped[BERT] == "not QA data: a JSON list of numbers"
    assert "'author', 'todo'" in skipped["notes.json"]  # the reason shows what the file holds
    assert summary["errors"] == []
    assert snapshot(db, BERT) == before


def test_predictions_for_unknown_items_are_counted(runs: Path, db: Path) -> None:
    data = json.loads((runs / BERT).read_text(encoding="utf-8"))
    data.update({"NOPE_1": "甲", "NOPE_2": "乙", "NOPE_3": "丙"})
    write(runs / BERT, json.dumps(data, ensure_ascii=False))
    res = invoke("load", str(runs), "--db", str(db), "--json")
    assert res.exit_code == 0, res.output
    bert = next(r for r in json.loads(res.stdout)["runs"] if r["path"] == BERT)
    assert (bert["status"], bert["predictions"], bert["unmatched"]) == ("loaded", 150, 3)
    with sqlite3.connect(db) as conn:
        count, unmatched, meta = conn.execute(
            "SELECT prediction_count, unmatched_count, meta FROM runs WHERE path = ?", (BERT,)
        ).fetchone()
    assert (count, unmatched) == (150, 3)
    assert json.loads(meta)["unmatched_sample"] == ["NOPE_1", "NOPE_2", "NOPE_3"]
    # the plain table shows the count
    res = invoke("load", str(runs), "--db", str(db))
    row = next(ln for ln in res.output.splitlines() if "bert-base-chinese.json" in ln)
    assert " 150 " in row and " 3 " in row


# ---------------------------------------------------------------------------- unreadable files


def test_dangling_symlink_is_an_error_and_keeps_rows(runs: Path, db: Path) -> None:
    before = snapshot(db, BERT)
    (runs / BERT).unlink()
    (runs / BERT).symlink_to(runs / "gone" / "nowhere.json")
    res = invoke("load", str(runs), "--db", str(db), "--json")
    assert res.exit_code == 1
    summary = json.loads(res.stdout)
    assert summary["errors"] == [{"path": BERT, "message": f"{BERT}: cannot read (No such file or directory)"}]
    assert summary["removed"] == []  # unreadable is not gone
    assert snapshot(db, BERT) == before
    assert len(summary["runs"]) == 5


def _within(seconds: float, fn: Callable[[], Any], unblock: list[Path]) -> Any:
    """Run `fn` in a thread; if it hangs (reading a FIFO blocks until a writer comes), free it and fail."""
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(fn()), daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        for fifo in unblock:
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        thread.join(5)
        pytest.fail(f"load blocked on a FIFO for {seconds} s")
    assert result, "the load raised (see the thread's exception above)"
    return result[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_an_error_not_a_hang(runs: Path, db: Path) -> None:
    os.mkfifo(runs / "pipe.json")
    before = snapshot(db, BIDAF)
    (runs / BIDAF).unlink()
    os.mkfifo(runs / BIDAF)
    summary = _within(20, lambda: load_runs(runs, db), unblock=[runs / "pipe.json", runs / BIDAF])
    errors = {e["path"]: e["message"] for e in summary.errors}
    assert errors == {
        "pipe.json": "pipe.json: cannot read (not a regular file)",
        BIDAF: f"{BIDAF}: cannot read (not a regular file)",
    }
    assert snapshot(db, BIDAF) == before


def test_permission_denied_is_an_error_and_keeps_rows(runs: Path, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """chmod 000 does not stop root, so the refusal is simulated where the file is opened."""
    before = snapshot(db, QWEN)
    write(runs / QWEN, (runs / QWEN).read_bytes() + b"\n")
    target = (runs / QWEN).resolve()
    real_open = Path.open

    def guarded(self: Path, *args: Any, **kwargs: Any):  # noqa: ANN202
        if self.resolve() == target:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", guarded)
    summary = load_runs(runs, db)
    assert summary.errors == [{"path": QWEN, "message": f"{QWEN}: cannot read (Permission denied)"}]
    assert snapshot(db, QWEN) == before
    assert {r.path: r.status for r in summary.runs}[QWEN] == "error"


def test_read_error_inside_reader_is_one_line(runs: Path, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file readable when hashed but not when read (e.g. permissions changed in between)."""
    from qa_inspect.core.formats import textio

    before = snapshot(db, QWEN)
    write(runs / QWEN, (runs / QWEN).read_bytes() + b"\n")
    real = textio._read_bounded

    def refuse(path: Path, limits: object) -> bytes:
        if path.name == "qwen-7b-chat.jsonl":
            raise PermissionError(13, "Permission denied")
        return real(path, limits)  # type: ignore[arg-type]

    monkeypatch.setattr(textio, "_read_bounded", refuse)
    summary = load_runs(runs, db)
    assert summary.errors == [{"path": QWEN, "message": f"{QWEN}: cannot read: permission denied"}]
    assert snapshot(db, QWEN) == before


# ----------------------------------------------------------------------------------- the database


def _all_rows(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    with sqlite3.connect(db) as conn:
        return {
            t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()  # noqa: S608
            for t in ("files", "datasets", "items", "golds", "runs", "predictions", "annotations")
        }


def test_locked_database_is_one_line(runs: Path, db: Path) -> None:
    before = _all_rows(db)
    edit_map(runs / BERT, "DEV_4_QUERY_0", "锁住了")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        res = invoke("load", str(runs), "--db", str(db), env={store.TIMEOUT_ENV: "0.2"})
        assert res.exit_code == 1
        assert res.stderr.strip().splitlines()[-1] == f"qa-inspect: {db}: database is locked by another process; try again"
        with pytest.raises(StoreError, match="locked by another process"):
            load_runs(runs, db, timeout=0.1)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert _all_rows(db) == before
    assert load_runs(runs, db).runs  # free again: loads


def test_locked_database_json_mode(runs: Path, db: Path) -> None:
    edit_map(runs / BERT, "DEV_4_QUERY_0", "锁住了")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        res = invoke("load", str(runs), "--db", str(db), "--json", env={store.TIMEOUT_ENV: "0.2"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert res.exit_code == 1
    assert res.stdout == ""
    assert res.stderr.strip() == f"qa-inspect: {db}: database is locked by another process; try again"


def test_garbage_database_is_one_line(runs: Path, tmp_path: Path) -> None:
    bad = tmp_path / "garbage.db"
    bad.write_bytes(bytes(random.Random(1).randrange(256) for _ in range(8192)))
    res = invoke("load", str(runs), "--db", str(bad))
    assert res.exit_code == 1
    assert res.stdout == ""
    assert res.stderr.strip() == f"qa-inspect: {bad}: not a qa-inspect database or corrupt (file is not a database)"
    with pytest.raises(StoreError):
        load_runs(runs, bad)


def test_damaged_database_pages_are_one_line(runs: Path, db: Path) -> None:
    """A valid header with scrambled pages behind it: the damage shows only when reading tables."""
    data = bytearray(db.read_bytes())
    rnd = random.Random(2)
    for i in range(4096, len(data)):
        data[i] = rnd.randrange(256)
    db.write_bytes(bytes(data))
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    edit_map(runs / BERT, "DEV_4_QUERY_0", "x")
    res = invoke("load", str(runs), "--db", str(db))
    assert res.exit_code == 1
    lines = res.stderr.strip().splitlines()
    assert lines[-1].startswith(f"qa-inspect: {db}: ")
    assert "corrupt" in lines[-1] or "malformed" in lines[-1]


def test_database_error_while_writing_is_a_store_error(runs: Path, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Damage met only mid-load (not when opening) still ends as one StoreError line."""

    def malformed(*args: Any, **kwargs: Any) -> None:
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(loader, "write_run", malformed)
    edit_map(runs / BERT, "DEV_4_QUERY_0", "x")
    with pytest.raises(StoreError, match="corrupt"):
        load_runs(runs, db)
    res = invoke("load", str(runs), "--db", str(db))
    assert res.exit_code == 1
    assert res.stderr.strip().splitlines()[-1] == (
        f"qa-inspect: {db}: not a qa-inspect database or corrupt (database disk image is malformed)"
    )


def test_constraint_error_is_that_files_error(runs: Path, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An integrity error belongs to one file: reported for it, the others still load."""
    real = loader.write_run

    def picky(conn, run, rel, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if rel == BERT:
            raise sqlite3.IntegrityError("UNIQUE constraint failed: predictions.run_id, predictions.item_id")
        return real(conn, run, rel, *args, **kwargs)

    monkeypatch.setattr(loader, "write_run", picky)
    before = snapshot(db, BERT)
    edit_map(runs / BERT, "DEV_4_QUERY_0", "x")
    edit_map(runs / BIDAF, "DEV_4_QUERY_0", "y")
    summary = load_runs(runs, db)
    assert [e["path"] for e in summary.errors] == [BERT]
    assert summary.errors[0]["message"].startswith(f"{BERT}: database error (UNIQUE constraint failed")
    assert {r.path: r.status for r in summary.runs}[BIDAF] == "loaded"
    assert snapshot(db, BERT) == before


def test_missing_runs_folder_is_one_line(tmp_path: Path) -> None:
    res = invoke("load", str(tmp_path / "nope"), "--db", str(tmp_path / "qa.db"))
    assert res.exit_code == 1
    assert res.stderr.strip() == f"qa-inspect: {tmp_path / 'nope'}: no such folder"
