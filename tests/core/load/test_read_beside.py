"""Files read two at a time (`read_beside`): the second process's reads give the load the same
rows, errors and skips as reading every file here, in folder order."""

from __future__ import annotations

import copy
import pickle
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core.load import load_runs, loader, read_beside, score_pool
from qa_inspect.core.load.read_beside import read_in_turn, read_outcome, read_there
from qa_inspect.core.load.score_pool import ScorePool
from qa_inspect.core.model import Candidate, Prediction, Run

from tests.paths import SAMPLE_RUNS

_ROWS = ("SELECT r.path, r.name, i.key, p.text, p.em, p.f1, p.error_category FROM predictions p"
         " JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id ORDER BY r.path, i.key")


def _folder(root: Path) -> Path:
    """The shipped samples, a run that is not JSON, one that is not QA data and one nested too deep."""
    runs = root / "runs"
    shutil.copytree(SAMPLE_RUNS, runs, ignore=shutil.ignore_patterns(".qa-inspect"))
    (runs / "cmrc2018" / "runs" / "broken.json").write_text('{"DEV_0_QUERY_0": "x", ', encoding="utf-8")
    (runs / "cmrc2018" / "runs" / "notes.json").write_text('{"hello": [1, 2, 3]}', encoding="utf-8")
    (runs / "cmrc2018" / "runs" / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    return runs


def _load(runs: Path, db: Path) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    summary = load_runs(runs, db)
    with sqlite3.connect(db) as conn:
        rows = conn.execute(_ROWS).fetchall()
    return rows, summary.errors, summary.skipped, [(r.name, r.path) for r in summary.runs]


def test_files_read_by_the_second_process_load_as_read_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _folder(tmp_path)
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 1)
    alone = _load(runs, tmp_path / "alone.db")
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(loader, "BESIDE_BYTES", 0)  # every file is worth it
    monkeypatch.setattr(ScorePool, "ready", lambda self: True)  # and waited for: most files are read there
    sent: list[str] = []
    send = ScorePool.send

    def counted(pool: ScorePool, request: Any, **how: bool) -> bool:
        done: bool = send(pool, request, **how)
        if done and isinstance(request, tuple) and request[0] is read_there:
            sent.append(request[1][0].name)
        return done

    monkeypatch.setattr(ScorePool, "send", counted)
    beside = _load(runs, tmp_path / "beside.db")
    assert len(sent) >= 3 and {"broken.json", "notes.json", "deep.json"} & set(sent)
    assert beside == alone
    rows, errors, skipped, _ = alone
    assert len(rows) > 500 and len(errors) == 2 and len(skipped) >= 1


def test_read_outcome_gives_errors_as_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = _folder(tmp_path) / "cmrc2018" / "runs" / "broken.json"
    kind, message = read_outcome(broken, broken.parent, None)
    assert kind == "format" and "broken.json" in message
    assert read_outcome(tmp_path / "missing.json", tmp_path, None)[0] == "format"

    def fails(*_args: Any) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(read_beside, "read_in_folder", fails)
    assert read_outcome(broken, broken.parent, None) == ("failed", ("OSError", "disk gone"))
    monkeypatch.undo()
    assert read_outcome(SAMPLE_RUNS / "cmrc2018" / "runs" / "bidaf-baseline.json", SAMPLE_RUNS, None)[0] == "read"


def test_reads_in_turn_keep_order_and_free_the_pool_when_stopped_early(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    files = sorted((SAMPLE_RUNS / "cmrc2018" / "runs").glob("*.json"))
    with ScorePool() as pool:
        read_here: list[Path] = []

        def here(f: Path) -> Any:
            read_here.append(f)
            return read_outcome(f, f.parent, None)

        turns = list(read_in_turn(pool, files, lambda f: True, lambda f: (f, f.parent, None, None), here))
        assert [f for f, _ in turns] == files
        assert read_here == files[:1]  # the second read there
        assert turns[1][1] == read_outcome(files[1], files[1].parent, None)
        monkeypatch.setattr(ScorePool, "ready", lambda self: False)  # the answer not there yet at the first file
        reads = read_in_turn(pool, files, lambda f: True, lambda f: (f, f.parent, None, None), here)
        next(reads)
        assert pool.busy
        reads.close()
        assert not pool.busy


def test_this_process_reads_on_while_the_second_one_is_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files after the one sent are read here while the answer is not there yet; the outcomes
    still come in folder order, the sent file's from the second process."""
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(ScorePool, "ready", lambda self: False)
    files = sorted((SAMPLE_RUNS / "cmrc2018" / "runs").glob("*.json")) * 2
    read_here: list[int] = []

    def here(k: int) -> Any:
        read_here.append(k)
        return read_outcome(files[k], files[k].parent, None)

    with ScorePool() as pool:
        turns = list(read_in_turn(pool, list(range(4)), lambda k: k == 1, lambda k: (files[k], files[k].parent, None, None), here))
    assert [k for k, _ in turns] == [0, 1, 2, 3]
    assert read_here == [0, 2, 3]
    assert [outcome for _, outcome in turns] == [read_outcome(f, f.parent, None) for f in files]


def test_the_second_process_is_kept_two_files_ahead_while_many_are_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second process has the next file before it has written its answer (it starts on it
    at once), but never more files than are left here beside the next. The outcomes still come
    in folder order."""
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(ScorePool, "ready", lambda self: False)
    files = sorted((SAMPLE_RUNS / "cmrc2018" / "runs").glob("*.json")) * 3
    read_here: list[int] = []
    held: list[int] = []
    send = ScorePool.send

    def counted(pool: ScorePool, request: Any, **how: bool) -> bool:
        done: bool = send(pool, request, **how)
        held.append(pool._out)
        return done

    def here(k: int) -> Any:
        read_here.append(k)
        return read_outcome(files[k], files[k].parent, None)

    monkeypatch.setattr(ScorePool, "send", counted)
    with ScorePool() as pool:
        turns = list(read_in_turn(pool, list(range(6)), lambda k: True, lambda k: (files[k], files[k].parent, None, None), here))
        assert not pool.busy
    assert held == [1, 2]  # files 1 and 2 out at once; then three left here, too few to queue behind
    assert read_here == [0, 3, 4, 5]
    assert [k for k, _ in turns] == list(range(6))
    assert [outcome for _, outcome in turns] == [read_outcome(f, f.parent, None) for f in files[:6]]
    held.clear()
    read_here.clear()
    with ScorePool() as pool:
        turns = list(read_in_turn(pool, list(range(3)), lambda k: True, lambda k: (files[k], files[k].parent, None, None), here))
    assert held == [1] and read_here == [0, 2]  # two there against one here would leave this process waiting
    assert [k for k, _ in turns] == [0, 1, 2]


def _round_trip(run: Run) -> Run:
    return read_beside.unpack_run(pickle.loads(pickle.dumps(read_beside.pack_run(copy.deepcopy(run)))))


def test_runs_read_there_come_back_as_read_here(tmp_path: Path) -> None:
    """A run the second process read is sent as columns (`pack_run`) and built again here: every
    run of the samples (answer maps, n-best candidates, CDQA records with raw text)
    comes back equal to the run read here, and the outcome says "read" like one read here."""
    files = [f for f in sorted(SAMPLE_RUNS.rglob("*.json*")) if ".qa-inspect" not in f.parts]
    runs = [value for kind, value in (read_outcome(f, SAMPLE_RUNS, None) for f in files)
            if kind == "read" and isinstance(value, Run)]
    assert len(runs) >= 4 and any(p.candidates for r in runs for p in r.predictions)
    assert any(p.raw for r in runs for p in r.predictions)
    for run in runs:
        assert _round_trip(run) == run
    kind, packed = read_there(files[1], SAMPLE_RUNS, None, None)
    assert kind == "packed" and read_beside._unpacked((kind, packed)) == read_outcome(files[1], SAMPLE_RUNS, None)
    assert read_there(tmp_path / "missing.json", tmp_path, None, None)[0] == "format"  # errors pass as they are


def test_a_packed_run_keeps_every_field_and_fresh_containers() -> None:
    """Columns are left out only where every prediction has the empty value; the predictions built
    from an empty column get a list and a dict each, as a reader gives them (they are written to:
    null odds go into `meta`)."""
    preds = [Prediction("q1", "id", "甲", line=1), Prediction("q2", "question", "乙", raw="答：乙", line=2),
             Prediction("q3", "id", "", candidates=[Candidate("丙", 0.5, 1.0)], meta={"k": [1]}, samples=("丙", "丁"))]
    run = Run("r", "r.json", "prediction-map", preds, model="m", meta={"warnings": ["w"]}, extra_paths=["n.json"])
    assert _round_trip(run) == run
    plain = _round_trip(Run("r", "r.json", "prediction-map", preds[:1] * 3))
    assert plain == Run("r", "r.json", "prediction-map", preds[:1] * 3)
    plain.predictions[0].meta["null_odds"] = 1.0
    plain.predictions[0].candidates.append(Candidate("x"))
    assert plain.predictions[1].meta == {} and plain.predictions[1].candidates == []
    assert _round_trip(Run("r", "r.json", "prediction-map", [])).predictions == []
