"""The load's last step (`core.load.warm_overview`): the overview's first-paint rows are stored by
`load_runs` itself, so a Python caller gets the database `qa-inspect load` leaves."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from qa_inspect.core.load import load_runs, warm_overview, warmup
from qa_inspect.core.report import DatasetOverview, overview
from qa_inspect.core.store import ANSWER_INDEX, QUESTION_INDEX, index_meta_keys, open_db, stored_rows
from qa_inspect.core.store import text_indexes

from tests.columns_data import META_RUN, columns_folder


def _numbers(data: list[DatasetOverview]) -> list[tuple[float | None, ...]]:
    """Overall figures of every run and human estimate; sums in another order agree to the bits that show."""
    return [tuple(None if v is None else round(v, 9) for v in (s.em, s.f1, s.f1_recall, s.answer_rate, s.errors))
            for ds in data for s in [r.overall for r in ds.runs] + ([ds.human.overall] if ds.human else [])]


def test_load_runs_leaves_the_first_paint_stored(tmp_path: Path, sample_runs: Path) -> None:
    load_runs(sample_runs, tmp_path / "qa.db")
    conn = open_db(tmp_path / "qa.db").conn
    ids = [r[0] for r in conn.execute("SELECT id FROM datasets")]
    assert len(ids) == 2
    assert all(stored_rows(conn, i, False) is not None for i in ids)
    assert warm_overview(conn) == 0  # the load left nothing to sum


def test_warm_overview_sums_what_is_out_of_date(tmp_path: Path, sample_runs: Path) -> None:
    load_runs(sample_runs, tmp_path / "qa.db")
    conn = open_db(tmp_path / "qa.db").conn
    datasets = conn.execute("SELECT COUNT(*) FROM datasets").fetchone()[0]
    conn.execute("DELETE FROM overview_cache")
    assert warm_overview(conn) == datasets
    assert warm_overview(conn) == 0  # all up to date: nothing grouped again
    quick = overview(conn, slices=False)  # the first paint: the stored totals, no slices yet
    assert conn.execute("SELECT COUNT(*) FROM overview_cache WHERE slices = 1").fetchone()[0] == 0
    assert all(ds.slice_items == {} for ds in quick)
    full = overview(conn)
    assert _numbers(quick) == _numbers(full) and len(_numbers(quick)) > 2
    assert warm_overview(conn) == 0


def test_an_unchanged_reload_sums_nothing_again(tmp_path: Path, sample_runs: Path) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(sample_runs, runs, ignore=shutil.ignore_patterns(".qa-inspect"))
    load_runs(runs, tmp_path / "qa.db")
    conn = open_db(tmp_path / "qa.db").conn
    conn.execute("UPDATE overview_cache SET payload = json_set(payload, '$.marker', 1)")
    assert not load_runs(runs, tmp_path / "qa.db").changed
    markers = [r[0] for r in conn.execute("SELECT json_extract(payload, '$.marker') FROM overview_cache")]
    assert markers and all(m == 1 for m in markers)  # the stored rows were kept, not summed again


def test_the_answers_index_is_made_once_a_dataset_is_large(tmp_path: Path, sample_runs: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A load leaves no text index (answers, questions) for small datasets (their sorts take
    milliseconds), and both as soon as a dataset reaches `LARGE_DATASET` items."""
    load_runs(sample_runs, tmp_path / "small.db")
    conn = open_db(tmp_path / "small.db").conn
    for index in (ANSWER_INDEX, QUESTION_INDEX):
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (index,)).fetchone() is None
    monkeypatch.setattr(text_indexes, "LARGE_DATASET", 10)
    load_runs(sample_runs, tmp_path / "large.db")
    conn = open_db(tmp_path / "large.db").conn
    for index in (ANSWER_INDEX, QUESTION_INDEX):
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (index,)).fetchone() is not None


def test_the_passages_sharing_a_text_are_stored_once_a_dataset_is_large(
    tmp_path: Path, sample_runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large dataset's first comparison reads one row for its resampling units: the load stored
    them, equal to what the comparison would compute; a small dataset's are left to it."""
    from qa_inspect.core.load import warmup
    from qa_inspect.core.store import passage_firsts, stored_passage_firsts

    load_runs(sample_runs, tmp_path / "small.db")
    conn = open_db(tmp_path / "small.db").conn
    ids = [i for (i,) in conn.execute("SELECT id FROM datasets ORDER BY id")]
    assert all(stored_passage_firsts(conn, i) is None for i in ids)
    monkeypatch.setattr(warmup, "LARGE_DATASET", 10)
    load_runs(sample_runs, tmp_path / "large.db")
    conn = open_db(tmp_path / "large.db").conn
    large = [i for (i,) in conn.execute("SELECT id FROM datasets WHERE item_count >= 10 ORDER BY id")]
    assert large and all(stored_passage_firsts(conn, i) is not None for i in large)
    computed = open_db(tmp_path / "small.db").conn
    assert [stored_passage_firsts(conn, i) for i in large] == [passage_firsts(computed, i) for i in large]


def test_the_load_looks_for_meta_keys_only_in_the_runs_it_stored_with_meta(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Looking for a run's `meta` keys reads every row of a run that has none (0.5 s of a 100-run
    load): the load names the runs it stored whose predictions carry `meta`, and only those."""
    asked: list[list[int] | None] = []

    def spy(conn: sqlite3.Connection, run_ids: list[int] | None = None) -> list[str]:
        asked.append(run_ids)
        return index_meta_keys(conn, run_ids)

    monkeypatch.setattr(warmup, "index_meta_keys", spy)
    runs = columns_folder(tmp_path)
    load_runs(runs, tmp_path / "qa.db")
    conn = open_db(tmp_path / "qa.db").conn
    with_meta = [r[0] for r in conn.execute("SELECT DISTINCT run_id FROM predictions WHERE meta IS NOT NULL")]
    assert asked == [with_meta]
    assert [name for run_id, name in conn.execute("SELECT id, name FROM runs") if run_id in with_meta] == [META_RUN]
    assert conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'predictions_meta_%'").fetchone()[0] > 0
    (runs / "cmrc2018" / "runs" / f"{META_RUN}.jsonl").unlink()
    load_runs(runs, tmp_path / "qa.db")  # a run removed: a change, and no run stored with meta
    assert asked[-1] == []
