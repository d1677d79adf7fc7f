"""A filter moved to a run of another scorer: each score part in the new scorer's meaning or dropped
and said (`core.query.convert_filter`), so the chips describe the rows shown."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from qa_inspect.core.metrics import CATEGORIES, SCORERS, uses_f1_recall
from qa_inspect.core.query import (
    WRONG_MAX,
    Filter,
    convert_filter,
    count,
    errors_only,
    for_other_dataset,
    shows_errors_only,
)

scorers = st.sampled_from(SCORERS)
scores = st.none() | st.floats(0, 1)
category_facets = st.lists(st.tuples(st.just("error_category"), st.sampled_from([c.code for c in CATEGORIES])),
                           max_size=3, unique=True)
other_facets = st.lists(st.tuples(st.sampled_from(["qword", "gold_len", "label"]), st.text(max_size=4)), max_size=2,
                        unique=True)


@st.composite
def filters(draw: st.DrawFn) -> Filter:
    """Any filter a browser can hold: score parts, facets, outcomes and the parts no scorer changes."""
    return Filter(
        dataset=draw(st.none() | st.just("d")), run=draw(st.none() | st.just("a")),
        splits=tuple(draw(st.lists(st.sampled_from(["dev", "test"]), max_size=2, unique=True))),
        refused=draw(st.none() | st.booleans()), em=draw(st.none() | st.sampled_from([0, 1])),
        f1_min=draw(scores), f1_max=draw(scores | st.just(WRONG_MAX)), stale=draw(st.none() | st.booleans()),
        search=draw(st.text(max_size=3)), compare=draw(st.none() | st.just("b")),
        only_disagree=draw(st.booleans()),
        facets=tuple(draw(category_facets) + draw(other_facets)),
        outcome=draw(st.none() | st.sampled_from(["fixed", "broken"])), outcome_threshold=draw(st.none() | st.floats(0, 1)),
        keys=draw(st.none() | st.just(("k1",))), sort=draw(st.sampled_from(["key", "f1"])),
    )


UNTOUCHED = ("dataset", "run", "splits", "tags", "answer_types", "stale", "has_proposal", "search", "compare",
             "only_disagree", "sort", "descending", "outcome", "keys", "bands")


@given(filters(), scorers, scorers)
def test_a_conversion_changes_only_score_parts_and_says_so(f: Filter, a: str, b: str) -> None:
    out, notes = convert_filter(f, a, b)
    for name in UNTOUCHED:
        assert getattr(out, name) == getattr(f, name), name
    assert (out != f) == bool(notes), (f, out, notes)
    if uses_f1_recall(a) == uses_f1_recall(b):
        assert out == f and notes == []


@given(filters(), scorers, scorers)
def test_the_converted_filter_asks_only_what_the_new_scorer_gives(f: Filter, a: str, b: str) -> None:
    out, _ = convert_filter(f, a, b)
    kind = "llm" if uses_f1_recall(b) else "span"
    for name, value in out.facets if uses_f1_recall(a) != uses_f1_recall(b) else ():
        if name == "error_category":
            assert next(c for c in CATEGORIES if c.code == value).runs in ("all", kind)
    if uses_f1_recall(b) and not uses_f1_recall(a):
        assert out.em is None  # F1-recall runs have no EM: "EM 0" would select every item
        assert out.outcome is None or out.outcome_threshold is not None
    if not uses_f1_recall(b) and uses_f1_recall(a):
        assert not out.refused  # a span run never refuses: "refused" would select nothing


@given(filters(), scorers, scorers)
def test_converting_again_to_the_same_scorer_changes_nothing(f: Filter, a: str, b: str) -> None:
    out, _ = convert_filter(f, a, b)
    assert convert_filter(out, b, b) == (out, [])


@given(scorers, scorers, st.text(max_size=3), st.none() | st.booleans())
def test_wrong_only_means_wrong_only_on_every_scorer(a: str, b: str, search: str, stale: bool | None) -> None:
    f = Filter(run="a", search=search, stale=stale)
    wrong = errors_only(f, a, True)
    assert shows_errors_only(wrong, a)
    out, _ = convert_filter(wrong, a, b)
    assert out == errors_only(f, b, True) and shows_errors_only(out, b)
    back, _ = convert_filter(out, b, a)
    assert back == wrong and errors_only(back, a, False) == f


@given(st.sampled_from([0, 1]), scorers, scorers)
def test_em_alone_goes_there_and_back(em: int, a: str, b: str) -> None:
    f = Filter(run="a", em=em)
    span = "cmrc2018-official"
    there, _ = convert_filter(f, span, b)
    back, _ = convert_filter(there, b, span)
    assert back == f


def test_another_dataset_drops_its_values_and_runs_and_says_each() -> None:
    f = Filter(run="a", compare="b", outcome="fixed", splits=("dev",), tags=("t",), keys=("k",), em=0, search="x")
    out, notes = for_other_dataset(f)
    assert out == Filter(run="a", em=0, search="x") and len(notes) == 4
    assert for_other_dataset(out) == (out, [])


def test_em_0_on_a_cdqa_run_selected_every_item_and_converted_selects_the_wrong_ones(loaded_db: Path) -> None:
    conn = sqlite3.connect(loaded_db)
    try:
        run, scorer = conn.execute("SELECT name, scorer FROM runs WHERE scorer = 'cdqa-f1-recall' ORDER BY name").fetchone()
        every = count(conn, Filter(run=run))
        right = conn.execute("SELECT COUNT(*) FROM predictions p JOIN runs r ON r.id = p.run_id"
                             " WHERE r.name = ? AND p.f1_recall >= 1", (run,)).fetchone()[0]
        stale_chip = Filter(run=run, em=0)
        assert count(conn, stale_chip) == every  # the lie: the chip says EM 0, the list is every item
        converted, notes = convert_filter(stale_chip, "cmrc2018-official", scorer)
        assert notes and 0 < right and count(conn, converted) == every - right
    finally:
        conn.close()
