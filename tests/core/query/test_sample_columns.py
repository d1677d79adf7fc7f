"""The samples' columns of the registry: pass rate, distinct answers and flaky, offered for a run
that sampled items and not for one that answered once, shown, sorted by and filtered on like any
column, with values equal to the run's stored sample counts."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from qa_inspect.core import query
from qa_inspect.core.load import load_runs
from qa_inspect.core.query import Filter, available_columns, run_has_samples
from qa_inspect.core.store import open_db

from tests.diff_samples_data import diff_samples_folder

SAMPLE_COLUMNS = ("pass_rate", "distinct_answers", "flaky")


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    runs = diff_samples_folder(tmp_path_factory.mktemp("sample_columns"))
    assert not load_runs(runs).errors
    db = open_db(runs / ".qa-inspect" / "qa.db")
    yield db.conn
    db.conn.close()


def _stored(conn: sqlite3.Connection, run: str) -> dict[str, tuple[float, int, int]]:
    rows = conn.execute("SELECT i.key, p.correct_samples, p.samples, p.distinct_answers, p.flaky FROM predictions p"
                        " JOIN items i ON i.id = p.item_id JOIN runs r ON r.id = p.run_id WHERE r.name = ?", (run,))
    return {k: (c / n, d, f) for k, c, n, d, f in rows}


def test_offered_only_for_sampled_runs(conn: sqlite3.Connection) -> None:
    assert run_has_samples(conn, "b") and not run_has_samples(conn, "one")
    assert set(SAMPLE_COLUMNS) <= {c.name for c in available_columns(conn, "b")}
    assert not set(SAMPLE_COLUMNS) & {c.name for c in available_columns(conn, "one")}
    assert not set(SAMPLE_COLUMNS) & {c.name for c in available_columns(conn, None)}


def test_values_sort_and_filter(conn: sqlite3.Connection) -> None:
    stored = _stored(conn, "b")
    f = Filter(dataset="qa", run="b")
    rows = query.page(conn, f.with_(sort="pass_rate", descending=True), columns=SAMPLE_COLUMNS)
    assert [r.extra["pass_rate"] for r in rows] == sorted((v[0] for v in stored.values()), reverse=True)
    for r in rows:
        assert (r.extra["pass_rate"], r.extra["distinct_answers"], r.extra["flaky"]) == pytest.approx(stored[r.key])
    flaky = [k for k, v in stored.items() if v[2] == 1]
    assert query.count(conn, f.with_(expression="flaky = 1")) == len(flaky) > 0
    assert query.count(conn, f.with_(expression="pass_rate >= 0.5")) == sum(v[0] >= 0.5 for v in stored.values())


def test_single_answer_run_has_no_values(conn: sqlite3.Connection) -> None:
    rows = query.page(conn, Filter(dataset="qa", run="one"), columns=SAMPLE_COLUMNS)
    assert rows and all(r.extra[c] is None for r in rows for c in SAMPLE_COLUMNS)
