"""Facets: counts and errors per value against direct SQL counts; selecting a value filters."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from qa_inspect.core import flags, query
from qa_inspect.core.load import load_runs
from qa_inspect.core.query import (
    FACETS,
    Filter,
    facet_table,
    facet_tables,
    facets,
    question_word,
)
from qa_inspect.core.metrics import GOLD_LENGTHS, QUESTION_TYPES, gold_length, question_type
from qa_inspect.core.store import open_db

from tests.paths import FIXTURES

FIXTURE = FIXTURES / "compare"


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("facets")
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    summary = load_runs(root)
    assert not summary.errors, summary.errors
    c = open_db(Path(summary.db)).conn
    # One gold flagged stale (T_2), so the stale facet has two values.
    flags.append(c, "mark", "tiny", "T_2", "6300公里", author="t", reason="changed")
    yield c
    c.close()


def _ids(conn, dataset: str) -> int:
    return conn.execute("SELECT id FROM datasets WHERE name = ?", (dataset,)).fetchone()[0]


def _run_id(conn, run: str) -> int:
    return conn.execute("SELECT id FROM runs WHERE name = ?", (run,)).fetchone()[0]


def _as_dict(table) -> dict:
    return {r.value: (r.items, r.errors) for r in table.rows}


CASES = [Filter(dataset="tiny", run="run-a"), Filter(dataset="tiny", run="run-b"), Filter(dataset="cdqa_tiny", run="llm-x")]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.run)
def test_item_label_facets_equal_direct_sql(conn, f: Filter) -> None:
    ds, run = _ids(conn, f.dataset), _run_id(conn, f.run)
    err = (
        "CASE WHEN p.id IS NULL THEN 1 WHEN p.em IS NOT NULL THEN p.em = 0"
        " WHEN p.refused = 1 THEN 1 ELSE p.f1_recall < 1 END"
    )
    for name, col in (("split", "split"), ("tag", "tag"), ("answer_type", "answer_type")):
        direct = {
            v: (n, e)
            for v, n, e in conn.execute(
                f"SELECT i.{col}, COUNT(*), SUM({err}) FROM items i"
                " LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ? WHERE i.dataset_id = ? GROUP BY 1",
                (run, ds),
            )
        }
        assert _as_dict(facet_table(conn, f, name)) == direct, name


def test_error_counts_by_hand(conn) -> None:
    # run-a on tiny: wrong T_2, T_4, T_7 and missing T_6 → 4 errors of 8.
    t = facet_table(conn, Filter(dataset="tiny", run="run-a"), "split")
    assert (t.total, t.errors) == (8, 4)
    assert _as_dict(t) == {"dev": (4, 2), "test": (4, 2)}
    dev = t.rows[0]
    assert (dev.item_share, dev.error_rate, dev.error_share) == (50.0, 50.0, 50.0)
    # llm-x on cdqa_tiny: refusal (江南省), 0 (李四), no answer (云帆 item) → 3 errors of 6.
    t = facet_table(conn, Filter(dataset="cdqa_tiny", run="llm-x"), "refused")
    assert (t.total, t.errors) == (6, 3)
    assert [(r.label, r.items, r.errors) for r in t.rows] == [
        ("refused", 1, 1), ("answered", 4, 1), ("no prediction", 1, 1)
    ]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.run)
def test_length_facets_equal_direct_sql(conn, f: Filter) -> None:
    ds, run = _ids(conn, f.dataset), _run_id(conn, f.run)
    bounds = [(0, 0, "0"), (1, 2, "1–2"), (3, 4, "3–4"), (5, 8, "5–8"), (9, 16, "9–16"), (17, 32, "17–32"),
              (33, 64, "33–64"), (65, 10**9, "65+")]
    want: dict[str, int] = {}
    for lo, hi, label in bounds:
        n = conn.execute(
            "SELECT COUNT(*) FROM predictions p JOIN items i ON i.id = p.item_id"
            " WHERE p.run_id = ? AND i.dataset_id = ? AND length(p.text) BETWEEN ? AND ?",
            (run, ds, lo, hi),
        ).fetchone()[0]
        if n:
            want[label] = n
    missing = conn.execute(
        "SELECT COUNT(*) FROM items i WHERE i.dataset_id = ?"
        " AND NOT EXISTS (SELECT 1 FROM predictions p WHERE p.item_id = i.id AND p.run_id = ?)",
        (ds, run),
    ).fetchone()[0]
    if missing:
        want["no prediction"] = missing
    assert {r.value: r.items for r in facet_table(conn, f, "pred_len").rows} == want

    # gold length: `core.metrics.gold_length` of each item's current golds (one binning, in units)
    golds: dict[int, list[str]] = {}
    for item_id, text in conn.execute(
        "SELECT i.id, g.text FROM items i LEFT JOIN golds g ON g.item_id = i.id AND g.superseded = 0"
        " WHERE i.dataset_id = ? ORDER BY i.id, g.idx", (ds,)
    ):
        golds.setdefault(item_id, []).extend([text] if text is not None else [])
    want = {}
    for texts in golds.values():
        label = gold_length(texts) or "no gold"
        want[label] = want.get(label, 0) + 1
    assert {r.value: r.items for r in facet_table(conn, f, "gold_len").rows} == want


def test_gold_length_uses_the_current_gold(conn) -> None:
    # The rewritten CDQA item: 云帆X9 is superseded by 云帆X10 (云, 帆, X10: 3 units → "3-5").
    t = facet_table(conn, Filter(dataset="cdqa_tiny", search="旗舰手机"), "gold_len")
    assert [(r.value, r.items) for r in t.rows] == [("3-5", 1)]


def test_gold_length_is_one_binning_in_facet_detail_and_export(conn) -> None:
    """The facet's counts, the item details' feature and the exported column agree item for item."""
    for f in (Filter(dataset="tiny"), Filter(dataset="cdqa_tiny")):
        facet = {r.value: r.items for r in facet_table(conn, f, "gold_len").rows}
        exported = Counter(v or "no gold" for v in query.item_table(conn, f)["gold_length"].to_list())
        shown = Counter((query.item_detail(conn, i).features.get("gold_length") or "no gold")
                        for i in query.item_ids(conn, f))
        assert facet == dict(exported) == dict(shown)
    assert set(facet) <= {"no gold", *GOLD_LENGTHS}


@pytest.mark.parametrize("dataset", ["tiny", "cdqa_tiny"])
def test_question_type_facet_is_the_stored_question_type(conn, dataset: str) -> None:
    """`qword` shows `core.metrics.question_type` as ingest stored it (one definition)."""
    questions = [q for (q,) in conn.execute("SELECT question FROM items WHERE dataset_id = ?", (_ids(conn, dataset),))]
    want: dict[str, int] = {}
    for q in questions:
        want[question_type(q)] = want.get(question_type(q), 0) + 1
    got = facet_table(conn, Filter(dataset=dataset), "qword")
    assert got.label == "question type"
    assert {r.value: r.items for r in got.rows} == want
    assert [r.value for r in got.rows] == [t for t in QUESTION_TYPES if t in want]


def test_question_word_is_the_question_type() -> None:
    assert question_word("新中国什么时候成立？") == "when"
    assert question_word("为什么天是蓝的？") == "why"
    assert question_word("谁发明了什么？") == "who"
    assert question_word("月亮绕着地球转") == "other"
    assert facets.length_bucket(None) == "no prediction"
    assert [facets.length_bucket(n) for n in (0, 1, 2, 3, 8, 9, 64, 65)] == [
        "0", "1–2", "1–2", "3–4", "5–8", "9–16", "33–64", "65+"
    ]


def test_stale_facet(conn) -> None:
    t = facet_table(conn, Filter(dataset="tiny", run="run-a"), "stale")
    assert [(r.label, r.items) for r in t.rows] == [("stale", 1), ("not stale", 7)]
    assert query.count(conn, t.rows[0].filter) == 1
    assert t.rows[0].filter.stale is True


@pytest.mark.parametrize(
    "f",
    [*CASES, Filter(dataset="tiny", run="run-a", tags=("hard",)), Filter(dataset="tiny"),
     Filter(dataset="tiny", run="run-a", compare="run-b", outcome="fixed")],
    ids=str,
)
def test_selecting_a_value_gives_its_count(conn, f: Filter) -> None:
    for name in FACETS:
        t = facet_table(conn, f, name)
        assert sum(r.items for r in t.rows) == query.count(conn, f)
        for r in t.rows:
            if r.filter is None:
                assert r.value is None
                continue
            assert query.count(conn, r.filter) == r.items, (name, r.value)
            assert r.value in facets.selected(r.filter, name)


def test_facet_selection_composes(conn) -> None:
    base = Filter(dataset="tiny", run="run-a")
    f = facets.select(base, "qword", "what")
    f = facets.select(f, "qword", "who", add=True)  # OR within a facet
    assert f.facets == (("qword", "what"), ("qword", "who"))
    assert query.count(conn, f) == 2  # 什么时候 asks "when", so what = T_7 only; who = T_1
    f = facets.select(f, "pred_len", "1–2")  # AND across facets: HO
    assert [r.key for r in query.page(conn, f)] == ["T_7"]
    assert facets.select(f, "qword", "why").facets == (("pred_len", "1–2"), ("qword", "why"))
    assert facets.clear(f, "qword").facets == (("pred_len", "1–2"),)
    g = facets.select(base, "split", "dev")
    assert facets.select(g, "split", "test", add=True).splits == ("dev", "test")
    assert facets.select(g, "split", "test").splits == ("test",)
    assert facets.clear(g, "split").splits == ()
    r = facets.select(base, "stale", 1)
    assert facets.select(r, "stale", 0, add=True).stale is None
    assert facets.select(base, "split", None) is None
    assert Filter.from_dict(f.to_dict()) == f  # facet selections survive a saved slice


def test_facet_values_are_parameters(conn) -> None:
    f = Filter(dataset="tiny", facets=(("qword", "x' OR 1=1 --"),))
    assert query.count(conn, f) == 0
    with pytest.raises(ValueError, match="unknown facet"):
        query.count(conn, Filter(facets=(("nope", "x"),)))


def test_facet_tables_leave_out_empty_facets(conn) -> None:
    names = [t.name for t in facet_tables(conn, Filter(dataset="tiny", run="run-a"))]
    features = ["qword", "gold_count", "gold_agreement"]  # no passages: no position, overlap, length
    assert names == ["split", "tag", "answer_type", "stale", "pred_len", "gold_len", "error_category",
                     *features]  # no refusals
    names = [t.name for t in facet_tables(conn, Filter(dataset="cdqa_tiny", run="llm-x"))]
    assert names == ["tag", "answer_type", "refused", "stale", "pred_len", "gold_len", "error_category", "qword",
                     "gold_count", "gold_agreement"]  # no splits
    tables = facet_tables(conn, Filter(dataset="tiny"))  # no run: no errors, no run facets
    assert [t.name for t in tables] == ["split", "tag", "answer_type", "stale", "gold_len", *features]
    assert all(t.errors is None and all(r.errors is None for r in t.rows) for t in tables)


def test_a_yes_no_facet_value_written_as_text_selects_what_it_says() -> None:
    from qa_inspect.core.query import Filter, select

    assert select(Filter(run="r"), "refused", "0").refused is False
    assert select(Filter(run="r"), "refused", "1").refused is True
    assert select(Filter(run="r"), "stale", 0).stale is False


def test_counts_are_kept_until_the_data_or_the_journal_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shown again, a filter's facets (or one facet without the value just selected) count
    nothing; a stale flag written in between is counted."""
    shutil.copytree(FIXTURE, tmp_path, dirs_exist_ok=True)
    c = open_db(Path(load_runs(tmp_path).db)).conn
    passes: list[str] = []
    count_tables, one_table = facets._count_tables, facets._facet_table
    monkeypatch.setattr(facets, "_count_tables", lambda *a: passes.append("all") or count_tables(*a))
    monkeypatch.setattr(facets, "_facet_table", lambda *a: passes.append("one") or one_table(*a))
    f = Filter(dataset="tiny", run="run-a")
    first = facet_tables(c, f)
    assert facet_tables(c, f) == first and passes == ["all"]
    stale = next(t for t in first if t.name == "stale")
    tagged = next(t for t in first if t.name == "tag").rows[0].filter
    assert facet_table(c, f, "stale") == stale and passes == ["all"]  # the panel's "without the selection"
    facet_tables(c, tagged)
    assert passes == ["all", "all"]
    flags.append(c, "mark", "tiny", "T_2", "6300公里", author="t", reason="changed")
    again = facet_table(c, f, "stale")
    assert passes == ["all", "all", "one"] and again != stale
    assert [(r.label, r.items) for r in again.rows] == [("stale", 1), ("not stale", 7)]
    c.close()
