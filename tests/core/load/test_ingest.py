"""`core.load.ingest`, `ingest_runs`, `stream`, `search_index`: the fast paths store exactly what
the plain path stores, and a load killed mid-file is finished by the next one."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core.load import build_search_index, load_runs, loader, stream
from qa_inspect.core.store import pending_marks, pending_rows
from qa_inspect.core.query import Filter, count

from .killed_load import load_killed

CMRC = "cmrc2018/cmrc2018_dev_sample.json"
BERT = "cmrc2018/runs/bert-base-chinese.json"


@pytest.fixture
def runs(tmp_path: Path, sample_runs: Path) -> Path:
    dest = tmp_path / "runs"
    shutil.copytree(sample_runs, dest, ignore=shutil.ignore_patterns(".qa-inspect"))
    return dest


def stored(db: Path) -> dict[str, Any]:
    """Everything a load stores, by content (no row ids, no load times)."""
    conn = sqlite3.connect(db)
    q = conn.execute
    out = {
        "datasets": q("SELECT name, path, format, family, scorer, encoding, item_count, gold_count, meta FROM datasets"
                      " ORDER BY name").fetchall(),
        "items": q("SELECT d.name, i.key, i.qkey, i.question, c.context_key, c.title, c.text, i.split, i.tag,"
                   " i.answer_type, i.answerable, i.is_impossible, i.source_line, i.human_em, i.human_f1, i.meta,"
                   " i.question_type, i.gold_length, i.passage_length, i.answer_position, i.gold_count,"
                   " i.gold_agreement, i.cross_sentence, i.question_overlap"
                   " FROM items i JOIN datasets d ON d.id = i.dataset_id LEFT JOIN contexts c ON c.id = i.context_id"
                   " ORDER BY d.name, i.key").fetchall(),
        "golds": q("SELECT i.key, g.idx, g.text, g.answer_start, g.span_start, g.span_end, g.superseded FROM golds g"
                   " JOIN items i ON i.id = g.item_id ORDER BY i.dataset_id, i.key, g.idx").fetchall(),
        "contexts": q("SELECT COUNT(*) FROM contexts").fetchone(),
        "runs": q("SELECT r.name, r.path, r.format, d.name, r.model, r.scorer, r.encoding, r.prediction_count,"
                  " r.unmatched_count, r.link_reason, r.meta FROM runs r LEFT JOIN datasets d ON d.id = r.dataset_id"
                  " ORDER BY r.path").fetchall(),
        "predictions": q("SELECT r.path, i.key, p.text, p.raw, p.candidates, p.source_line, p.meta, p.scorer, p.em,"
                         " p.f1, p.refused, p.f1_recall, p.best_gold, p.error_category FROM predictions p JOIN runs r ON r.id = p.run_id"
                         " JOIN items i ON i.id = p.item_id ORDER BY r.path, i.dataset_id, i.key").fetchall(),
        "files": q("SELECT path, kind, size, sha256, format, encoding, owner, note FROM files ORDER BY path").fetchall(),
        "search": (q("SELECT COUNT(*) FROM items_fts").fetchone(), q("SELECT COUNT(*) FROM items").fetchone()),
    }
    conn.close()
    return out


def test_streamed_and_stepped_loads_store_what_the_plain_load_stores(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_runs(runs, tmp_path / "plain.db")
    monkeypatch.setattr(stream, "MIN_BYTES", 0)  # every SQuAD-style dataset read article by article
    monkeypatch.setattr(stream, "BATCH", 7)
    monkeypatch.setattr(loader, "STEP_ROWS", 40)  # and committed every 40 rows
    summary = load_runs(runs, tmp_path / "fast.db")
    assert not summary.errors
    assert stored(tmp_path / "fast.db") == stored(tmp_path / "plain.db")


def _before_last_question(runs: Path, text_in: str) -> None:
    """Write `text_in` into the CMRC file just before its last question (inside its record)."""
    path = runs / CMRC
    text = path.read_text(encoding="utf-8")
    cut = text.rindex('"question": "')
    path.write_text(text[:cut] + text_in + text[cut:], encoding="utf-8")


@pytest.mark.parametrize(
    ("inserted", "warning"),
    [
        ('"note": "\\ud800", ', "lone surrogate"),  # a lone surrogate escape in the last record
        ('"question": "said: twice?", ', "key 'question' repeated"),  # the last record repeats a key
    ],
)
def test_what_the_streaming_parser_leaves_to_the_whole_read_is_said_as_the_plain_load_says_it(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inserted: str, warning: str
) -> None:
    """Mending surrogates and naming repeated keys: the stream hands the file to the whole read."""
    _before_last_question(runs, inserted)
    plain = load_runs(runs, tmp_path / "plain.db")
    monkeypatch.setattr(stream, "MIN_BYTES", 0)
    monkeypatch.setattr(stream, "BATCH", 5)
    streamed = load_runs(runs, tmp_path / "fast.db")
    said = [w for w in streamed.warnings if warning in str(w)]
    assert len(said) == 1 and said == [w for w in plain.warnings if warning in str(w)]
    assert stored(tmp_path / "fast.db") == stored(tmp_path / "plain.db")


def test_a_bad_record_in_a_streamed_file_leaves_nothing_of_it(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream, "MIN_BYTES", 0)
    monkeypatch.setattr(stream, "BATCH", 5)
    monkeypatch.setattr(loader, "STEP_ROWS", 10)
    path = runs / CMRC
    text = path.read_text(encoding="utf-8")
    cut = text.rindex('"question"')  # the last question of the file has no text
    path.write_text(text[:cut] + '"question": 7, "q0"' + text[cut + len('"question"'):], encoding="utf-8")
    summary = load_runs(runs, tmp_path / "qa.db")
    assert [e["path"] for e in summary.errors][0] == CMRC
    assert "question is a number, expected text" in summary.errors[0]["message"]
    conn = sqlite3.connect(tmp_path / "qa.db")
    assert conn.execute("SELECT COUNT(*) FROM datasets WHERE path = ?", (CMRC,)).fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM files WHERE path = ? AND note LIKE 'loading %'", (CMRC,)).fetchone()[0] == 0




@pytest.mark.parametrize("steps", [2, 3, 9, 20])
def test_a_load_killed_mid_file_is_finished_by_the_next(runs: Path, tmp_path: Path, steps: int) -> None:
    """kill -9 after some committed steps (mid dataset, mid run): the next load resumes the file
    and the database ends as a clean load leaves it."""
    load_killed(runs, tmp_path / "qa.db", steps, step_rows=30, batch=9)
    summary = load_runs(runs, tmp_path / "qa.db")
    assert not summary.errors
    load_runs(runs, tmp_path / "clean.db")
    assert stored(tmp_path / "qa.db") == stored(tmp_path / "clean.db")


def test_search_finds_rows_not_indexed_yet_and_the_index_catches_up(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loader, "INLINE_LIMIT", 0)  # a "big" load: the index is left for later
    db = tmp_path / "qa.db"
    load_runs(runs, db)
    conn = sqlite3.connect(db, isolation_level=None)
    assert pending_marks(conn) is not None and pending_rows(conn) > 0
    question = conn.execute("SELECT question FROM items WHERE length(question) > 8 LIMIT 1").fetchone()[0]
    run, answer = conn.execute("SELECT r.name, p.text FROM predictions p JOIN runs r ON r.id = p.run_id"
                               " WHERE length(p.text) > 5 LIMIT 1").fetchone()
    texts = (question[2:7], answer[1:4], "不存在的字符串")
    before = {text: count(conn, Filter(run=run, search=text)) for text in texts}
    assert before[texts[0]] >= 1 and before[texts[1]] >= 1 and before[texts[2]] == 0
    progress: list[tuple[int, int]] = []
    assert build_search_index(conn, lambda done, total, _: progress.append((done, total)), step=100) > 0
    assert pending_marks(conn) is None and progress[-1][0] == progress[-1][1]
    assert {text: count(conn, Filter(run=run, search=text)) for text in texts} == before
    conn.close()


def test_reloading_a_changed_dataset_keeps_the_index_true(runs: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    load_runs(runs, db)
    path = runs / CMRC
    path.write_text(path.read_text(encoding="utf-8").replace("？", "?"), encoding="utf-8")
    load_runs(runs, db)
    conn = sqlite3.connect(db)
    indexed = dict(conn.execute("SELECT rowid, question FROM items_fts"))
    items = dict(conn.execute("SELECT id, question FROM items"))
    assert indexed == items and any("?" in q for q in items.values())
    cmrc = ("SELECT COUNT(*) FROM items_fts JOIN items i ON i.id = items_fts.rowid JOIN datasets d ON d.id = i.dataset_id"
            " WHERE d.path = ? AND items_fts MATCH ?")
    assert conn.execute(cmrc, (CMRC, '"什么？"')).fetchone()[0] == 0
    assert conn.execute(cmrc, (CMRC, '"什么?"')).fetchone()[0] > 0
    conn.close()


def test_scores_from_a_worker_process_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """Half of a large batch is scored in a spawned process: same numbers, same order."""
    from qa_inspect.core.load import score_pool

    golds = (("泽鹿", "泽鹿和水鹿"), (0, 2))
    ctx = ("有泽鹿和水鹿。还有鹿。", ((1, 3), (1, 6)), False)
    rows = [("cmrc2018-official", text, golds, ctx, ("水鹿",))
            for text in ("泽鹿", "水鹿", "泽鹿和", "鹿", "The answer", "")] * 3
    rows += [("squad-v1.1", "the Normans", (("Normans", "the Normans"), (0, 1)), None, ()),
             ("cmrc2018-official", "x", None, None, ())]
    alone = score_pool.score_rows(rows)
    assert [s[6] for s in alone[:6]] == ["exact", "boundary-short", "boundary-long", "boundary-short",
                                        "not-in-passage", "empty"]
    assert [s[7] for s in alone[:6]] == ["same", "superseded", "partial", "partial", "different", "different"]
    monkeypatch.setattr(score_pool, "POOL_MIN", 1)
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    memo: score_pool.ScoreMemo = {}
    assert score_pool.score_rows(rows, memo) == alone
    assert len(memo) == 8


def test_a_streamed_dataset_hands_the_runs_what_the_database_would(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qa_inspect.core.load.ingest_runs import RunCache

    monkeypatch.setattr(stream, "MIN_BYTES", 0)
    kept: list[RunCache] = []
    real = stream.write_stream

    def spy(*args: Any, keep: RunCache | None = None, **kwargs: Any) -> Any:
        kept.append(keep or RunCache())
        return real(*args, keep=kept[-1], **kwargs)

    monkeypatch.setattr(loader, "write_stream", spy)
    load_runs(runs, tmp_path / "qa.db")
    conn = sqlite3.connect(tmp_path / "qa.db")
    (dataset_id,) = conn.execute("SELECT id FROM datasets WHERE path = ?", (CMRC,)).fetchone()
    assert kept and dataset_id in kept[0].golds
    assert kept[0].keys[dataset_id] == RunCache().for_dataset(conn, dataset_id)[:2]
    assert kept[0].golds[dataset_id] == RunCache().for_dataset(conn, dataset_id)[2]
    assert kept[0].contexts[dataset_id] == RunCache().for_dataset(conn, dataset_id)[3]  # what categories need
    conn.close()


def test_streaming_real_squad_and_cmrc_files_stores_what_the_plain_load_stores(
    shared_data: Path, conformance_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQuAD 2.0 (unanswerable labels, the v2 scorer chosen at the end), SQuAD 1.1, CMRC trial
    (blank questions) with the official scorers' runs: streamed and stepped, the same rows."""
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("squad2_dev_normans.json", "squad1_dev_normans_answerable.json", "cmrc2018_trial.json"):
        shutil.copy(shared_data / name, runs / name)
    for path in (conformance_dir / "squad_runs").glob("*.json"):
        shutil.copy(path, runs / path.name)
    load_runs(runs, tmp_path / "plain.db")
    monkeypatch.setattr(stream, "MIN_BYTES", 0)
    monkeypatch.setattr(stream, "BATCH", 13)
    monkeypatch.setattr(loader, "STEP_ROWS", 50)
    summary = load_runs(runs, tmp_path / "fast.db")
    assert not summary.errors and {d.scorer for d in summary.datasets} == {"squad-v2", "squad-v1.1", "cmrc2018-official"}
    assert stored(tmp_path / "fast.db") == stored(tmp_path / "plain.db")


def test_a_run_file_new_to_the_database_is_written_without_foreign_key_lookups(
        runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks are off only around a new file's write (nothing of it stored, nothing to
    cascade), the rows are the ones a load with the checks stores, every parent is there, and the
    connection's setting comes back; a changed file is written with the checks on."""
    from qa_inspect.core.load import ingest

    states: list[tuple[bool, int]] = []
    real = ingest.parents_known

    @contextmanager
    def watched(conn: sqlite3.Connection, known: bool) -> Iterator[None]:
        with real(conn, known):
            states.append((known, conn.execute("PRAGMA foreign_keys").fetchone()[0]))
            yield
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1

    checked = load_runs(runs, tmp_path / "checked.db")
    monkeypatch.setattr(loader, "parents_known", watched)
    summary = load_runs(runs, tmp_path / "qa.db")
    assert not summary.errors and len(summary.runs) == len(checked.runs) > 3
    assert states and all(state == (True, 0) for state in states)
    conn = sqlite3.connect(tmp_path / "qa.db")
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    rows = "SELECT r.path, p.item_id, p.text, p.em, p.f1, p.error_category FROM predictions p JOIN runs r ON r.id = p.run_id ORDER BY 1, 2"
    assert conn.execute(rows).fetchall() == sqlite3.connect(tmp_path / "checked.db").execute(rows).fetchall()
    run = runs / "cmrc2018" / "runs" / "bert-base-chinese.json"
    answers = json.loads(run.read_text(encoding="utf-8"))
    answers[next(iter(answers))] = "another answer"
    run.write_text(json.dumps(answers, ensure_ascii=False), encoding="utf-8")
    states.clear()
    load_runs(runs, tmp_path / "qa.db")
    assert states == [(False, 1)]
