"""The stored Δ order of a compared pair (`core.query.delta_order`): pages by it give the ids the
one sorted query gives, for (A, B) and (B, A), both directions, at every offset; it is used only
while its stamp holds, and goes with either run."""

from __future__ import annotations

import json
from typing import Any

import pytest
from qa_inspect.core.query import Filter, build_delta_order, explain_page, fresh_pair, page_ids
from qa_inspect.core.query import delta_order
from qa_inspect.core.query.delta_order import delta_order_page
from qa_inspect.core.query.sql import build, build_parts, order_clause, run_ids

from tests.helpers import Env

pytestmark = pytest.mark.usefixtures("small_order")


@pytest.fixture
def small_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The samples are small: stored orders for them too (`DELTA_ORDER_MIN_ITEMS` is what large datasets get)."""
    monkeypatch.setattr(delta_order, "DELTA_ORDER_MIN_ITEMS", 0)


def _reference(conn: Any, f: Filter) -> list[int]:
    sql, params = build(conn, f)
    return [r[0] for r in conn.execute(f"SELECT i.id {sql} ORDER BY {order_clause(f)}", params)]


def _pairs(conn: Any) -> list[tuple[str, str, str]]:
    """(dataset, run A, run B) for every ordered pair of runs on one dataset."""
    out = []
    for ds, ds_id in conn.execute("SELECT name, id FROM datasets ORDER BY id").fetchall():
        runs = [r[0] for r in conn.execute("SELECT name FROM runs WHERE dataset_id = ? ORDER BY id", (ds_id,))]
        out += [(ds, a, b) for a in runs for b in runs if a != b]
    return out


def _uses_stored(conn: Any, f: Filter) -> bool:
    return delta_order_page(conn, f, build_parts(conn, f), 0, 1) is not None


def _check_pages(conn: Any, f: Filter) -> None:
    want = _reference(conn, f)
    n = len(want)
    for offset, limit in [(0, 7), (0, n + 5), (n // 2, 9), (n // 2 + 1, 3), (max(0, n - 4), 10), (n - 1, 1),
                          (n + 3, 5)]:
        assert page_ids(conn, f, offset, limit) == want[offset:offset + limit], (f, offset, limit)


@pytest.mark.parametrize("path", ["walk", "sorted first", "walk gives up"])
def test_pages_by_the_stored_order_equal_the_sorted_query(env: Env, monkeypatch: pytest.MonkeyPatch,
                                                          path: str) -> None:
    """Every way a filtered Δ page is answered: the stored order walked, the sorted query within
    its small allowance (a filter that matches few items), the walk past its allowance."""
    monkeypatch.setattr(delta_order, "_SORT_FIRST", 10**12 if path == "sorted first" else 0)
    monkeypatch.setattr(delta_order, "_MOST_STEPS", 0 if path == "walk gives up" else 10**12)
    if path == "walk gives up":
        monkeypatch.setattr(delta_order, "_TICK", 1)  # judged at once, however small the walk
    conn = env.conn
    pairs = _pairs(conn)
    assert len(pairs) >= 4  # both datasets of the samples have two runs or more
    for ds, a, b in pairs:
        base = Filter(dataset=ds, run=a, compare=b, sort="delta")
        assert build_delta_order(conn, base)
        for f in [base, base.with_(descending=True), base.with_(em=0), base.with_(only_disagree=True, descending=True),
                  base.with_(f1_max=0.5), base.with_(refused=False, descending=True)]:
            assert _uses_stored(conn, f) == (path != "walk gives up" or f == base.with_(descending=f.descending)), f
            _check_pages(conn, f)


def test_ties_go_by_item_id_in_the_sort_direction_for_both_orders_of_a_pair(env: Env) -> None:
    conn = env.conn  # unfiltered: the stored order's own index, from the nearer end
    ds, a, b = _pairs(conn)[0]
    for run, other in [(a, b), (b, a)]:
        for descending in (False, True):
            f = Filter(dataset=ds, run=run, compare=other, sort="delta", descending=descending)
            build_delta_order(conn, f)
            got = page_ids(conn, f, 0, 10_000)
            assert got == _reference(conn, f)
            deltas = dict(conn.execute("SELECT o.item_id, o.delta FROM delta_order o JOIN delta_pairs d"
                                       " ON d.id = o.pair_id WHERE d.run_a = ?1 AND d.run_b = ?2",
                                       run_ids(conn, f)[1:]).fetchall())
            ties = [(deltas[x], x) for x in got]
            assert ties == sorted(ties, reverse=descending)
            assert len({d for d, _ in ties}) < len(ties)  # the samples do have ties


def test_a_page_by_the_stored_order_sorts_nothing(env: Env) -> None:
    conn = env.conn
    ds, a, b = _pairs(conn)[0]
    f = Filter(dataset=ds, run=a, compare=b, sort="delta", descending=True)
    assert "TEMP B-TREE" in explain_page(conn, f.with_(em=0))  # before: the sorted query
    build_delta_order(conn, f)
    for g in [f, f.with_(em=0), f.with_(only_disagree=True), f.with_(descending=False)]:
        assert "TEMP B-TREE" not in explain_page(conn, g), g


def test_search_and_keys_keep_the_sorted_query(env: Env) -> None:
    conn = env.conn
    ds, a, b = _pairs(conn)[0]
    f = Filter(dataset=ds, run=a, compare=b, sort="delta")
    build_delta_order(conn, f)
    key = conn.execute("SELECT key FROM items ORDER BY id LIMIT 1").fetchone()[0]
    for g in [f.with_(search="的"), f.with_(keys=(key,))]:
        assert not _uses_stored(conn, g)
        _check_pages(conn, g)


def test_no_order_without_two_known_runs(env: Env) -> None:
    conn = env.conn
    ds, a, _ = _pairs(conn)[0]
    for f in [Filter(dataset=ds, run=a, sort="delta"), Filter(dataset=ds, run=a, compare=a, sort="delta"),
              Filter(dataset=ds, run=a, compare="no such run", sort="delta")]:
        assert not build_delta_order(conn, f)
        _check_pages(conn, f)
    assert conn.execute("SELECT COUNT(*) FROM delta_pairs").fetchone()[0] == 0


def test_a_reloaded_run_makes_the_order_stale_until_built_again(env: Env) -> None:
    conn = env.conn
    f = Filter(dataset="cmrc2018_dev_sample", run="bert-base-chinese", compare="bidaf-baseline", sort="delta")
    assert build_delta_order(conn, f)
    path = env.runs / "cmrc2018" / "runs" / "bidaf-baseline.json"
    preds = json.loads(path.read_text(encoding="utf-8"))
    first = sorted(preds)[:5]
    for k in first:
        preds[k] = "完全不同的答案"
    path.write_text(json.dumps(preds, ensure_ascii=False), encoding="utf-8")
    env.reload()
    assert fresh_pair(conn, *run_ids(conn, f)[1:]) is None  # type: ignore[misc]
    assert not _uses_stored(conn, f)
    _check_pages(conn, f)
    assert build_delta_order(conn, f)
    assert _uses_stored(conn, f)
    _check_pages(conn, f)
    assert conn.execute("SELECT COUNT(*) FROM delta_pairs").fetchone()[0] == 1  # the old pair's rows went


def test_a_changed_run_row_makes_the_order_stale(env: Env) -> None:
    conn = env.conn
    f = Filter(dataset="cmrc2018_dev_sample", run="bert-base-chinese", compare="bidaf-baseline", sort="delta")
    build_delta_order(conn, f)
    _, a, b = run_ids(conn, f)
    assert fresh_pair(conn, a, b) is not None  # type: ignore[arg-type]
    conn.execute("UPDATE runs SET scorer = 'squad-v1.1' WHERE id = ?", (b,))
    assert fresh_pair(conn, a, b) is None  # type: ignore[arg-type]
    assert not _uses_stored(conn, f)


@pytest.mark.parametrize("gone", ["run_a", "run_b"])
def test_the_order_goes_with_either_run(env: Env, gone: str) -> None:
    conn = env.conn
    f = Filter(dataset="cmrc2018_dev_sample", run="bert-base-chinese", compare="bidaf-baseline", sort="delta")
    build_delta_order(conn, f)
    assert conn.execute("SELECT COUNT(*) FROM delta_order").fetchone()[0] > 0
    run = conn.execute(f"SELECT {gone} FROM delta_pairs").fetchone()[0]
    conn.execute("DELETE FROM runs WHERE id = ?", (run,))
    assert conn.execute("SELECT COUNT(*) FROM delta_pairs").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM delta_order").fetchone()[0] == 0


def test_data_changed_while_sorting_writes_nothing(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = env.conn
    f = Filter(dataset="cmrc2018_dev_sample", run="bert-base-chinese", compare="bidaf-baseline", sort="delta")
    real = delta_order._sort_into_temp

    def sort_then_a_load_writes(c: Any, a: int, b: int) -> None:
        real(c, a, b)
        c.execute("UPDATE runs SET prediction_count = prediction_count + 1 WHERE id = ?", (b,))

    monkeypatch.setattr(delta_order, "_sort_into_temp", sort_then_a_load_writes)
    assert not build_delta_order(conn, f)
    assert conn.execute("SELECT COUNT(*) FROM delta_order").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM sqlite_temp_master WHERE name = 'delta_build'").fetchone()[0] == 0
    monkeypatch.setattr(delta_order, "_sort_into_temp", real)
    assert build_delta_order(conn, f)
    _check_pages(conn, f.with_(em=0))


def test_a_read_only_database_pages_by_the_sorted_query(env: Env) -> None:
    import sqlite3

    f = Filter(dataset="cmrc2018_dev_sample", run="bert-base-chinese", compare="bidaf-baseline", sort="delta")
    conn = sqlite3.connect(f"file:{env.db}?mode=ro", uri=True)
    try:
        assert not build_delta_order(conn, f)  # nothing can be stored: not an error
        assert not _uses_stored(conn, f)
        _check_pages(conn, f.with_(em=0))
    finally:
        conn.close()
    assert env.conn.execute("SELECT COUNT(*) FROM delta_pairs").fetchone()[0] == 0


def test_a_small_dataset_gets_no_stored_order(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = env.conn
    monkeypatch.setattr(delta_order, "DELTA_ORDER_MIN_ITEMS", 10**9)
    f = Filter(dataset="cmrc2018_dev_sample", run="bert-base-chinese", compare="bidaf-baseline", sort="delta")
    assert not build_delta_order(conn, f)
    assert conn.execute("SELECT COUNT(*) FROM delta_pairs").fetchone()[0] == 0
    assert build_delta_order(conn, f, min_items=0)
