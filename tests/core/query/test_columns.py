"""The column registry: every column's value on a page equals the stored data, sorting by any
column is the order of its values (missing last, ties by id), dynamic columns are found per run."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from qa_inspect.core import query
from qa_inspect.core.query import Filter, available_columns, column_def, meta_keys

from tests.columns_data import JUDGE, LABELLED, META_RUN, RUN, load_columns


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(load_columns(tmp_path_factory.mktemp("columns")))
    yield c
    c.close()


def test_available_columns_of_a_run_hold_judges_meta_keys_and_other_runs(conn: sqlite3.Connection) -> None:
    names = [c.name for c in available_columns(conn, RUN)]
    assert f"judge:{JUDGE}" in names
    assert "answer:bidaf-baseline" in names and "score:roberta-wwm-large" in names
    assert "answer:glm-6b" not in names  # another dataset's run
    assert {"label", "error_category", "relation", "question_type", "gold_count"} <= set(names)
    assert meta_keys(conn, META_RUN) == ["latency", "sampler"]
    assert "meta:latency" in [c.name for c in available_columns(conn, META_RUN)]
    assert "prediction" not in [c.name for c in available_columns(conn, None)]  # no run: item columns only


def test_page_values_equal_the_stored_data(conn: sqlite3.Connection) -> None:
    cols = ("label", "error_category", "relation", f"judge:{JUDGE}", "answer:bidaf-baseline", "gold_count")
    rows = query.page(conn, Filter(run=RUN), 0, 500, columns=cols)
    assert len(rows) == query.count(conn, Filter(run=RUN))
    by_key = {r.key: r.extra for r in rows}
    for key, labels in LABELLED.items():
        assert by_key[key]["label"] == ", ".join(sorted(labels))
    stored = dict(conn.execute(
        "SELECT i.key, p.error_category FROM items i JOIN predictions p ON p.item_id = i.id"
        " JOIN runs r ON r.id = p.run_id WHERE r.name = ?", (RUN,)).fetchall())
    assert all(by_key[k]["error_category"] == v for k, v in stored.items())
    verdicts = dict(conn.execute("SELECT item_key, verdict FROM verdicts WHERE run = ?", (RUN,)).fetchall())
    assert {k: e[f"judge:{JUDGE}"] for k, e in by_key.items() if e[f"judge:{JUDGE}"]} == verdicts
    other = dict(conn.execute(
        "SELECT i.key, p.text FROM items i JOIN predictions p ON p.item_id = i.id JOIN runs r ON r.id = p.run_id"
        " WHERE r.name = 'bidaf-baseline'").fetchall())
    assert {k: e["answer:bidaf-baseline"] for k, e in by_key.items() if e["answer:bidaf-baseline"] is not None} == other


@pytest.mark.parametrize("name", ["label", "error_category", "relation", "gold_count", "question_type",
                                  f"judge:{JUDGE}", "score:bidaf-baseline", "pred_length"])
@pytest.mark.parametrize("descending", [False, True])
def test_sorting_by_a_column_orders_by_its_values(conn: sqlite3.Connection, name: str, descending: bool) -> None:
    f = Filter(run=RUN, sort=name, descending=descending)
    rows = query.page(conn, f, 0, 500, columns=(name,))
    got = [r.item_id for r in rows]
    values = {r.item_id: r.extra[name] for r in rows}
    present = sorted((i for i in got if values[i] is not None), key=lambda i: (values[i], i), reverse=descending)
    missing = sorted((i for i in got if values[i] is None), reverse=descending)
    assert got == present + missing
    # the row's place agrees with the page (position ranks by the same ORDER BY)
    assert query.position(conn, f, got[3]) == 3
    assert query.neighbour(conn, f, got[3], 1) == got[4]


def test_sorting_by_a_meta_key(conn: sqlite3.Connection) -> None:
    rows = query.page(conn, Filter(run=META_RUN, sort="meta:latency"), 0, 500, columns=("meta:latency",))
    values = [r.extra["meta:latency"] for r in rows if r.extra["meta:latency"] is not None]
    assert values == sorted(values) and isinstance(values[0], float)


def test_unknown_columns_are_named() -> None:
    with pytest.raises(ValueError, match="unknown column 'f1_recal'.*did you mean 'f1_recall'"):
        column_def("f1_recal")
    with pytest.raises(ValueError, match="unknown column"):
        column_def("meta:")
    assert column_def("category").name == "error_category"  # an alias


def test_export_sorts_by_a_registry_column(conn: sqlite3.Connection) -> None:
    frame = query.item_table(conn, Filter(run=RUN, sort="label", descending=True))
    assert frame["key"].to_list()[:2] == ["DEV_4_QUERY_1", "DEV_4_QUERY_0"]  # "format, paraphrase" > "format"


@pytest.mark.parametrize("name", ["label", f"judge:{JUDGE}"])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("offset", [0, 1, 15, 140])
def test_sparse_sorts_page_as_the_sorted_query(conn: sqlite3.Connection, name: str, descending: bool,
                                               offset: int) -> None:
    """Labels and verdicts sort by their few items first, then the rest by id: the same ids, in the
    same order, as the one sorted query, on either side of the boundary."""
    f = Filter(run=RUN, sort=name, descending=descending, expression="gold_count >= 1")
    sql, params = query.build(conn, f)
    order: list[object] = []
    clause = query.order_clause(f, order)
    expected = [r[0] for r in conn.execute(f"SELECT i.id {sql} ORDER BY {clause} LIMIT 7 OFFSET ?",
                                           [*params, *order, offset])]
    assert query.page_ids(conn, f, offset, 7) == expected and expected
