"""The expression filter: the language's meaning on real rows (against facets and stored data),
errors that say where and which column, and properties: arbitrary text raises nothing but
`ExpressionError`; well-formed expressions become SQL SQLite runs."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qa_inspect.core import query
from qa_inspect.core.query import (
    ExpressionError,
    Filter,
    and_clause,
    clause,
    expression_sql,
)
from qa_inspect.core.query.expression import parse

from tests.columns_data import LABELLED, RUN, load_columns


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(load_columns(tmp_path_factory.mktemp("expression")))
    yield c
    c.close()


def keys(conn: sqlite3.Connection, f: Filter) -> set[str]:
    return {r.key for r in query.page(conn, f, 0, 10_000)}


def test_three_clauses_select_what_the_equivalent_facets_select(conn: sqlite3.Connection) -> None:
    base = Filter(run=RUN)
    facets = base.with_(f1_max=0.5, facets=(("qword", "what"), ("error_category", "boundary-long"),
                                            ("error_category", "wrong-span-same-sentence")))
    expr = base.with_(expression='f1 <= 0.5 and question_type = "what"'
                                 ' and category in ("boundary-long", "wrong-span-same-sentence")')
    assert keys(conn, expr) == keys(conn, facets)
    assert keys(conn, expr)  # not vacuous
    assert query.count(conn, expr) == len(keys(conn, facets))


def test_labels_are_a_set_and_missing_values_are_never_equal(conn: sqlite3.Connection) -> None:
    base = Filter(run=RUN)
    every = keys(conn, base)
    assert keys(conn, base.with_(expression='label = "format"')) == set(LABELLED)
    assert keys(conn, base.with_(expression='label = "paraphrase"')) == {"DEV_4_QUERY_1"}
    assert keys(conn, base.with_(expression='label != "format"')) == every - set(LABELLED)  # unlabelled included
    assert keys(conn, base.with_(expression="label = null")) == every - set(LABELLED)
    assert keys(conn, base.with_(expression="not label = null")) == set(LABELLED)


def test_text_compares_folded_numbers_as_stored(conn: sqlite3.Connection) -> None:
    base = Filter(run="bert-meta")
    beam = keys(conn, base.with_(expression='meta:sampler = "beam search"'))  # stored "Beam  Search"
    assert beam and beam == keys(conn, base.with_(expression='meta:sampler ~ "BEAM"'))
    slow = keys(conn, base.with_(expression="meta:latency >= 1.5"))
    stored = {k for k, v in conn.execute(
        "SELECT i.key, json_extract(p.meta, '$.latency') FROM items i JOIN predictions p ON p.item_id = i.id"
        " JOIN runs r ON r.id = p.run_id WHERE r.name = 'bert-meta'") if v >= 1.5}
    assert slow == stored


def test_and_binds_tighter_than_or_and_parentheses_group(conn: sqlite3.Connection) -> None:
    base = Filter(run=RUN)
    a, b, c = "em = 1", 'question_type = "who"', "gold_count = 1"
    ka, kb, kc = (keys(conn, base.with_(expression=e)) for e in (a, b, c))
    assert keys(conn, base.with_(expression=f"{a} or {b} and {c}")) == ka | (kb & kc)
    assert keys(conn, base.with_(expression=f"({a} or {b}) and {c}")) == (ka | kb) & kc
    assert keys(conn, base.with_(expression=f"not ({a} or {b})")) == keys(conn, base) - ka - kb


@pytest.mark.parametrize(("text", "at", "column"), [
    ("f1 <", 4, "f1"),
    ("f2 < 0.5", 0, "f2"),
    ('tag = "x" and', 13, None),
    ('tag = "x" tag', 10, None),
    ("(f1 < 1", 7, None),
    ("tag in (1,", 10, "tag"),
    ("f1 < null", 0, "f1"),
    ("tag $ 1", 4, None),
    ("", 0, None),
])
def test_errors_say_where_and_which_column(text: str, at: int, column: str | None) -> None:
    with pytest.raises(ExpressionError) as info:
        expression_sql(text, [])
    assert (info.value.position, info.value.column) == (at, column)
    assert str(info.value).startswith(f"expression, at character {at + 1}: ")


def test_unknown_columns_use_the_one_wording() -> None:
    with pytest.raises(ExpressionError, match="unknown column 'labl'; known: .*did you mean 'label'"):
        expression_sql('labl = "x"', [])


def test_clauses_read_back_to_the_value() -> None:
    for value in ['a "quoted" \\ text', "Beam  Search", None, 3, 0.25, "x"]:
        node = parse(clause("meta:sampler", value))
        assert node.values == (value,)  # type: ignore[union-attr]
    assert parse(clause("answer:my run", "x")).column == "answer:my run"  # type: ignore[union-attr]
    assert and_clause("", "em = 1") == "em = 1"
    assert and_clause("a = 1 or b = 2", "em = 1") == "(a = 1 or b = 2) and em = 1"
    assert and_clause("em = 1", "a = 1 OR b = 2") == "em = 1 and (a = 1 OR b = 2)"


def test_filter_keeps_the_expression_in_saved_slices() -> None:
    f = Filter(run=RUN, expression='label != "format"')
    assert Filter.from_dict(f.to_dict()) == f
    with pytest.raises(ValueError, match="expression"):
        Filter.from_dict({"expression": 3})
    with pytest.raises(ExpressionError, match="unknown column 'nope'"):
        Filter.from_dict({"expression": "nope = 1"})


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_text_raises_only_expression_errors(text: str) -> None:
    try:
        expression_sql(text, [])
    except ExpressionError:
        pass


_COLUMNS = ["f1", "em", "tag", "label", "category", "prediction", "meta:latency", "judge:gpt-judge",
            "gold_count", "`answer:bidaf-baseline`"]
_values = st.one_of(st.integers(-5, 5), st.floats(-2, 2, allow_nan=False), st.text(max_size=6), st.none())


def _literal(v: object) -> str:
    from qa_inspect.core.query.expression import literal
    return literal(v)  # type: ignore[arg-type]


_compare = st.builds(
    lambda c, op, v: f"{c} {op} {_literal(v)}",
    st.sampled_from(_COLUMNS), st.sampled_from(["=", "==", "!="]), _values,
) | st.builds(lambda c, v: f"{c} ~ {_literal(v)}", st.sampled_from(_COLUMNS), st.text(max_size=4)) | st.builds(lambda c, op, v: f"{c} {op} {v}", st.sampled_from(_COLUMNS), st.sampled_from(["<", "<=", ">", ">="]),
              st.integers(-3, 3)) | st.builds(
    lambda c, neg, vs: f"{c} {'not in' if neg else 'in'} ({', '.join(_literal(v) for v in vs)})",
    st.sampled_from(_COLUMNS), st.booleans(), st.lists(_values, min_size=1, max_size=3))
_expressions = st.recursive(_compare, lambda inner: st.one_of(
    st.builds(lambda a, op, b: f"{a} {op} {b}", inner, st.sampled_from(["and", "or", "AND", "Or"]), inner),
    st.builds(lambda a: f"not {a}", inner),
    st.builds(lambda a: f"({a})", inner)), max_leaves=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_expressions)
def test_well_formed_expressions_are_sql_sqlite_runs(conn: sqlite3.Connection, text: str) -> None:
    n = query.count(conn, Filter(run=RUN, expression=text))
    assert 0 <= n <= query.count(conn, Filter(run=RUN))
