"""The query functions the browser leans on: two-step paging, one-pass A/B metrics, stale filters."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from qa_inspect.core import flags, query
from qa_inspect.core.load import load_runs
from qa_inspect.core.query import Filter, count
from qa_inspect.core.store import open_db


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Path:
    db = tmp_path_factory.mktemp("query") / "qa.db"
    assert not load_runs(sample_runs, db).errors
    return db


@pytest.fixture()
def conn(loaded: Path, tmp_path: Path) -> Iterator[sqlite3.Connection]:
    shutil.copy(loaded, tmp_path / "qa.db")
    c = sqlite3.connect(tmp_path / "qa.db", isolation_level=None)
    yield c
    c.close()


RUN = "bidaf-baseline"
SORTS = ["key", "f1", "em", "question", "prediction", "stale", "delta"]


@pytest.mark.parametrize("sort", SORTS)
@pytest.mark.parametrize("descending", [False, True])
def test_pages_concatenate_to_the_full_order(conn: sqlite3.Connection, sort: str, descending: bool) -> None:
    f = Filter(run=RUN, compare="roberta-wwm-large", sort=sort, descending=descending)
    sql, params = query.build(conn, f)
    expected = [r[0] for r in conn.execute(f"SELECT i.id {sql} ORDER BY {query.order_clause(f)}", params)]
    got: list[int] = []
    for offset in range(0, len(expected) + 40, 40):
        got += [r.item_id for r in query.page(conn, f, offset, 40)]
    assert got == expected and len(got) == query.count(conn, f) == 153


def test_page_columns(conn: sqlite3.Connection) -> None:
    rows = query.page(conn, Filter(run=RUN, compare="roberta-wwm-large"), 0, 5)
    assert [r.item_id for r in rows] == sorted(r.item_id for r in rows)  # id order
    r = rows[0]
    assert r.question and r.best_gold and r.em in (0, 1) and r.compare_em in (0, 1)
    assert r.delta == pytest.approx((r.compare_f1 or 0) - (r.f1 or 0))


def test_metrics_ab_is_metrics_of_each_run(conn: sqlite3.Connection) -> None:
    f = Filter(run=RUN, compare="roberta-wwm-large", em=0)
    a, b = query.metrics_ab(conn, f)
    assert a == query.metrics(conn, f)
    assert b is not None and b.items == a.items == query.count(conn, f)
    assert b.em is not None and b.em > 0  # B gets right some items A gets wrong
    assert query.compare_metrics(conn, f) == b
    assert query.metrics_ab(conn, Filter(run=RUN))[1] is None


def test_stale_filters_and_sort(conn: sqlite3.Connection) -> None:
    base = Filter(run=RUN)
    assert query.count(conn, base.with_(stale=True)) == 0
    flags.append(conn, "mark", "cmrc2018_dev_sample", "DEV_52_QUERY_1", "近5.6万平方米", author="a", proposed="x")
    flags.append(conn, "mark", "cmrc2018_dev_sample", "DEV_4_QUERY_0", "巴西", author="a")
    stale = query.page(conn, base.with_(stale=True), 0, 10)
    assert sorted(r.key for r in stale) == ["DEV_4_QUERY_0", "DEV_52_QUERY_1"] and all(r.stale for r in stale)
    assert query.count(conn, base.with_(stale=False)) == 151
    assert [r.key for r in query.page(conn, base.with_(has_proposal=True), 0, 10)] == ["DEV_52_QUERY_1"]
    top = query.page(conn, base.with_(sort="stale", descending=True), 0, 2)
    assert {r.key for r in top} == {"DEV_4_QUERY_0", "DEV_52_QUERY_1"}


def test_answered_filter_matches_span_runs_too(tmp_path: Path, sample_runs: Path) -> None:
    """`refused=False` means answered: for CMRC runs (no refusal column) every predicted item."""
    summary = load_runs(sample_runs, tmp_path / "qa.db")
    conn = open_db(Path(summary.db)).conn
    f = Filter(run="bidaf-baseline")
    assert count(conn, f.with_(refused=False)) == 148  # predicted items
    assert count(conn, f.with_(refused=True)) == 0
    g = Filter(run="glm-6b")
    assert count(conn, g.with_(refused=True)) + count(conn, g.with_(refused=False)) == 38
