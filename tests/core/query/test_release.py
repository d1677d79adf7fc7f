"""Two releases paired item by item, and the browser filter on the items whose golds changed."""

from __future__ import annotations

from pathlib import Path

import pytest
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.model import Gold, Item
from qa_inspect.core.query import Filter, count, describe, gold_changed_keys, page, pair_items
from qa_inspect.core.store import open_db

from tests.release_data import Q, flag_tiny, tiny_cdqa


def item(key: str, question: str, *golds: str, superseded: str | None = None) -> Item:
    gs = [Gold(g) for g in golds] + ([Gold(superseded, superseded=True)] if superseded else [])
    return Item(key, question, gs)


def test_pairs_by_key_then_by_question() -> None:
    old = [item("a", "qa", "x"), item("b", "qb", "y"), item("c", "qc", "z")]
    new = [item("a", "qa", "x", "x2"), item("b2", "qb", "y"), item("d", "qd", "w")]
    pairs = pair_items(old, new)
    assert [(p.old and p.old.key, p.new and p.new.key, p.by) for p in pairs] == [
        ("a", "a", "key"), ("b", "b2", "question"), ("c", None, ""), (None, "d", "")]
    assert [p.golds_changed for p in pairs] == [True, False, False, False]


def test_order_repeats_and_superseded_golds_are_no_change() -> None:
    old = [item("a", "q", "x", "y", superseded="old")]
    new = [item("a", "q", "y", "x", "x", superseded="older")]
    assert not pair_items(old, new)[0].golds_changed


@pytest.fixture
def tiny(tmp_path: Path) -> tuple[Path, Path, Path]:
    old, new = tiny_cdqa(tmp_path)
    flag_tiny(tmp_path / "runs")
    return tmp_path / "runs", old, new


def test_gold_changed_keys_find_the_dataset_and_filter_the_browser(tiny: tuple[Path, Path, Path]) -> None:
    runs, _, new = tiny
    conn = open_db(runs / ".qa-inspect" / "qa.db").conn
    try:
        got = gold_changed_keys(conn, new)
        assert got.dataset == "tiny_cdqa" and len(got.keys) == 3
        f = Filter(dataset=got.dataset, keys=got.keys)
        assert count(conn, f) == 3
        assert {r.question for r in page(conn, f)} == {Q[2], Q[3], Q[6]}
        assert count(conn, f.with_(run="m1", keys=())) == 0
        assert count(conn, Filter(dataset="tiny_cdqa")) == 6
        assert Filter.from_dict(f.to_dict()) == f
        assert describe(f) == "dataset=tiny_cdqa keys=3 items"
    finally:
        conn.close()


def test_unreadable_or_unrelated_new_file_is_one_line(tiny: tuple[Path, Path, Path], tmp_path: Path) -> None:
    runs, _, _ = tiny
    conn = open_db(runs / ".qa-inspect" / "qa.db").conn
    try:
        with pytest.raises(QAInspectError, match="no such file"):
            gold_changed_keys(conn, tmp_path / "missing.json")
        other = tmp_path / "other.json"
        other.write_text('[{"qa": "问题: 别的问题？\\n答案: 别的", "annotation": {}}]', encoding="utf-8")
        with pytest.raises(QAInspectError, match="no loaded dataset shares an item"):
            gold_changed_keys(conn, other)
        notes = tmp_path / "notes.json"
        notes.write_text('{"hello": 1}', encoding="utf-8")
        with pytest.raises(QAInspectError, match="not a dataset"):
            gold_changed_keys(conn, notes)
    finally:
        conn.close()


def test_keys_field_is_checked_on_load() -> None:
    with pytest.raises(ValueError, match="keys"):
        Filter.from_dict({"keys": [1, 2]})
    assert Filter.from_dict({"keys": []}).keys == ()
