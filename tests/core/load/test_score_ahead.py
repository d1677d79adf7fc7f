"""The next run scored while this one is written (`ScoreAhead`): the same stored rows as scoring
each run alone, a failed second process's part scored when its run is written, and a share that
moves toward the process with time to spare."""

from __future__ import annotations

import io
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core.load import ingest_runs, load_runs, loader, score_ahead, score_pool
from qa_inspect.core.load.score_ahead import SHARE_LIMITS, balanced_share
from qa_inspect.core.load.score_pool import ScorePool

from tests.paths import SAMPLE_RUNS

_ROWS = ("SELECT r.path, i.key, p.text, p.em, p.f1, p.refused, p.f1_recall, p.best_gold, p.error_category, p.relation"
         " FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id ORDER BY r.path, i.key")


def _folder(root: Path) -> Path:
    """The shipped CMRC and CDQA samples with their runs, each run copied under three more names, so
    that every run has a next one to be scored ahead (and the copies hit the memo)."""
    runs = root / "runs"
    shutil.copytree(SAMPLE_RUNS, runs, ignore=shutil.ignore_patterns(".qa-inspect"))
    for family in ("cmrc2018", "cdqa"):
        for run in sorted(p for p in (runs / family / "runs").iterdir() if p.is_file()):
            for n in range(3):
                shutil.copy(run, run.with_name(f"copy{n}-{run.name}"))
    return runs


def _load(runs: Path, db: Path) -> list[Any]:
    summary = load_runs(runs, db)
    assert not summary.errors, summary.errors
    with sqlite3.connect(db) as conn:
        return conn.execute(_ROWS).fetchall()


def test_runs_scored_ahead_store_what_one_process_stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _folder(tmp_path)
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 1)
    alone = _load(runs, tmp_path / "alone.db")
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(score_pool, "SPLIT_MIN", 2)  # these runs' few new pairs are worth sending
    sent: list[str] = []
    send = ScorePool.send

    def counted(pool: ScorePool, request: Any, **how: bool) -> bool:
        done: bool = send(pool, request, **how)
        sent.extend([request[0].__name__] if done and isinstance(request, tuple) else [])
        return done

    monkeypatch.setattr(ScorePool, "send", counted)
    ahead = _load(runs, tmp_path / "ahead.db")
    assert sent.count("scored_there") >= 4  # every run after the first of each dataset's was scored ahead
    assert len(alone) > 500 and ahead == alone


def test_a_failed_second_process_leaves_its_part_to_the_run_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second process dies with a run out: that run's pairs are scored when it is written,
    the rest of the load scores alone, and every row is what one process stores."""
    runs = _folder(tmp_path)
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 1)
    alone = _load(runs, tmp_path / "alone.db")
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(score_pool, "SPLIT_MIN", 2)
    receive = ScorePool.receive
    answers: list[bool] = []

    def dies_second(pool: ScorePool) -> Any:
        worker = pool._worker
        if len(answers) == 1 and worker is not None and worker.stdout is not None:
            worker.kill()  # dead before its answer was read: what it wrote is lost with it
            worker.wait()
            worker.stdout.close()
            worker.stdout = io.BytesIO()  # type: ignore[assignment]
        answer = receive(pool)
        answers.append(answer is not None)
        return answer

    monkeypatch.setattr(ScorePool, "receive", dies_second)
    assert _load(runs, tmp_path / "killed.db") == alone
    assert answers[:2] == [True, False] and not any(answers[2:])


def test_a_small_run_is_scored_here_without_a_second_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs of a few hundred answers are not worth a second process: none is started."""
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    started: list[bool] = []
    real = ScorePool._started

    def counted(pool: ScorePool) -> Any:
        started.append(True)
        return real(pool)

    monkeypatch.setattr(ScorePool, "_started", counted)
    assert len(_load(_folder(tmp_path), tmp_path / "qa.db")) > 500
    assert started == []


def test_the_share_moves_toward_the_process_with_time_to_spare() -> None:
    # the second process took 0.4 s for half the work, this one 0.1 s for the other half and 0.3 s
    # besides: a whole run costs a = 0.8 s there and b = 0.2 s here; s·0.8 = (1 − s)·0.2 + 0.3 gives 0.5
    assert balanced_share(0.5, worked=0.4, own=0.1, here=0.4) == pytest.approx(0.5)
    assert balanced_share(0.5, worked=0.1, own=0.2, here=0.5) > 0.5  # the second process idles most of the time
    assert balanced_share(0.5, worked=0.6, own=0.2, here=0.2) < 0.5  # this one waits for it
    for worked, here in ((1e-6, 5.0), (5.0, 0.0)):
        share = 0.5
        for _ in range(20):
            share = balanced_share(share, worked=worked, own=0.1, here=here + 0.1)
        assert share == pytest.approx(SHARE_LIMITS[1] if here else SHARE_LIMITS[0], abs=0.01)


def test_each_run_is_matched_once_when_the_one_after_the_next_is_prepared(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the second process scores the next run, the one after it is matched and keyed
    (`start_ahead`'s `after`); scoring it ahead later takes that, not a second match."""
    runs = _folder(tmp_path)
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(score_pool, "SPLIT_MIN", 2)
    matched: list[int] = []
    real = ingest_runs._scoring

    def counted(conn: sqlite3.Connection, run: Any, dataset_id: int, cache: Any) -> Any:
        matched.append(id(run))
        return real(conn, run, dataset_id, cache)

    monkeypatch.setattr(ingest_runs, "_scoring", counted)
    rows = _load(runs, tmp_path / "qa.db")
    with sqlite3.connect(tmp_path / "qa.db") as conn:
        stored = conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    assert len(matched) == stored == len(set(matched)) > 8
    assert rows == _load(runs, tmp_path / "again.db")


def test_an_items_golds_and_passage_go_to_the_second_process_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pairs go to the second process as (item part id, answer): what an item is scored with is
    sent with the first of its answers sent, never again, and the rows are what one process
    stores."""
    runs = _folder(tmp_path)
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 1)
    alone = _load(runs, tmp_path / "alone.db")
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(score_pool, "SPLIT_MIN", 2)
    requests: list[tuple[list[Any], dict[int, Any]]] = []
    send = ScorePool.send

    def kept(pool: ScorePool, request: Any, **how: bool) -> bool:
        if isinstance(request, tuple) and request[0].__name__ == "scored_there":
            requests.append((request[1][0], request[1][3]))
        return bool(send(pool, request, **how))

    monkeypatch.setattr(ScorePool, "send", kept)
    assert _load(runs, tmp_path / "ahead.db") == alone
    held: set[int] = set()
    for pairs, parts in requests:
        assert not held & set(parts)  # none sent twice
        held |= set(parts)
        assert all(isinstance(text, str) and part in held for part, text in pairs)
    assert len(requests) >= 4 and held


def test_a_second_look_up_asks_only_for_the_rows_not_found_before() -> None:
    memo: dict[Any, Any] = {("a",): (1,)}
    keys = [("a",), ("b",), ("c",), ("b",)]
    found, missing = score_pool.look_up(keys, memo)
    assert (found, missing) == ([(1,), None, None, None], [1, 2, 3])
    memo[("b",)] = (2,)
    del memo[("a",)]  # a memo started over meanwhile: what was found stays found
    assert score_pool.look_up(keys, memo, (found, missing)) == ([(1,), (2,), None, (2,)], [2])


def test_the_second_process_has_ended_and_been_waited_for_when_the_load_returns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """It is closed once the runs are scored (it ends while the indexes are built) and waited
    for on a thread that leaving the pool joins: no process is left behind the load."""
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(score_pool, "SPLIT_MIN", 2)
    workers: list[Any] = []
    real = ScorePool._started

    def kept(pool: ScorePool) -> Any:
        worker = real(pool)
        workers.extend([worker] if worker is not None and worker not in workers else [])
        return worker

    monkeypatch.setattr(ScorePool, "_started", kept)
    _load(_folder(tmp_path), tmp_path / "qa.db")
    assert workers and all(w.returncode == 0 for w in workers)


def test_item_parts_are_forgotten_by_both_processes_past_their_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past `PARTS_MAX` item parts, the second process drops what it keeps and this one what it
    sent, so the next request sends its items again; the rows are what one process stores."""
    runs = _folder(tmp_path)
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 1)
    alone = _load(runs, tmp_path / "alone.db")
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(score_pool, "SPLIT_MIN", 2)
    monkeypatch.setattr(score_ahead, "PARTS_MAX", 5)  # sent with each request: the second process keeps as many
    sent: list[dict[int, Any]] = []
    send = ScorePool.send

    def kept(pool: ScorePool, request: Any, **how: bool) -> bool:
        if isinstance(request, tuple) and request[0].__name__ == "scored_there":
            sent.append(request[1][3])
        return bool(send(pool, request, **how))

    answered: list[bool] = []
    receive = ScorePool.receive

    def taken(pool: ScorePool) -> Any:
        answer = receive(pool)
        answered.append(answer is not None)
        return answer

    monkeypatch.setattr(ScorePool, "send", kept)
    monkeypatch.setattr(ScorePool, "receive", taken)
    assert _load(runs, tmp_path / "ahead.db") == alone
    ids = [part for parts in sent for part in parts]
    assert len(ids) > len(set(ids))  # some item sent again after both forgot it
    assert answered and all(answered)  # the second process had every item it was asked about


def test_runs_are_linked_two_ahead_of_their_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run is linked while the run two before it is written (the second process scores
    meanwhile), not all runs before the first is written; a run that links to no dataset is still
    reported as an error and the runs after it are stored as before."""
    runs = _folder(tmp_path)
    (runs / "cmrc2018" / "runs" / "copy1-zz-stray.json").write_text('{"NOT_AN_ITEM": "x", "OTHER": "y"}', encoding="utf-8")
    events: list[tuple[str, str]] = []
    link, write = loader.link_stored_run, loader.write_run

    def linked(conn: Any, run: Any, *args: Any) -> Any:
        events.append(("link", run.path))
        return link(conn, run, *args)

    def written(conn: Any, run: Any, *args: Any, **kw: Any) -> Any:
        events.append(("write", run.path))
        return write(conn, run, *args, **kw)

    monkeypatch.setattr(loader, "link_stored_run", linked)
    monkeypatch.setattr(loader, "write_run", written)
    summary = load_runs(runs, tmp_path / "qa.db")
    assert [e["path"] for e in summary.errors] == ["cmrc2018/runs/copy1-zz-stray.json"]
    links = [path for kind, path in events if kind == "link"]
    writes = [path for kind, path in events if kind == "write"]
    assert len(links) == len(writes) + 1 == len(summary.runs) + 1 >= 12
    done = {"link": 0, "write": 0}
    for kind, path in events:
        if kind == "write":  # linked before; at most this run, the next two and the stray one linked
            assert ("link", path) in events[:events.index((kind, path))]
            assert done["link"] <= done["write"] + 4
        done[kind] += 1
    assert events.index(("write", writes[0])) < len(events) - 1 - events[::-1].index(("link", links[-1]))
