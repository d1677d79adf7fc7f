"""`Category`: a reason written on first read, and a value like any other once written."""

from __future__ import annotations

import pickle

from qa_inspect.core.metrics import CMRC_OFFICIAL, Category, category_and_relation, error_category

PASSAGE = "徐光启于1633年去世，葬于上海。他与利玛窦合译了《几何原本》。"


def test_reason_written_on_first_read_only() -> None:
    calls: list[int] = []

    def words() -> str:
        calls.append(1)
        return "why"

    found = Category("wrong", words, 0)
    assert (found.code, found.gold, calls) == ("wrong", 0, [])
    assert (found.reason, found.reason, calls) == ("why", "why", [1])


def test_equal_hash_repr_and_pickle_read_the_reason() -> None:
    lazy = Category("boundary-long", lambda: "contains the gold plus 2 characters after it", 1)
    plain = Category("boundary-long", "contains the gold plus 2 characters after it", 1)
    assert lazy == plain and hash(lazy) == hash(plain) and repr(lazy) == repr(plain)
    assert pickle.loads(pickle.dumps(lazy)) == plain
    assert lazy != Category("boundary-long", "contains the gold plus 3 characters after it", 1)


def test_load_entry_gives_the_words_error_category_gives() -> None:
    for answer in ("1633年去世", "33年", "利玛窦", "上海", "徐光启于1633"):
        found, _ = category_and_relation(answer, ["1633年"], PASSAGE, CMRC_OFFICIAL)
        expected = error_category(answer, ["1633年"], PASSAGE, CMRC_OFFICIAL)
        assert (found.code, found.reason, found.gold) == (expected.code, expected.reason, expected.gold)
