"""Which gold `s` acts on in the detail: chosen by g/G or number, else the best-scoring one."""

from __future__ import annotations

from qa_inspect.core.query import GoldInfo, ItemDetail
from qa_inspect.tui.stale import gold_by_number, next_gold, target_gold


def item(*golds: tuple[str, bool]) -> ItemDetail:
    return ItemDetail(item_id=1, key="k", dataset="d", family="cmrc2018", question="q",
                      golds=[GoldInfo(idx=i, text=t, superseded=s) for i, (t, s) in enumerate(golds)])


def test_g_walks_the_scored_golds_round_and_skips_repeats_and_superseded_ones() -> None:
    d = item(("北京", False), ("北京", False), ("旧", True), ("上海", False))
    assert next_gold(d, None, 1) == 0 and next_gold(d, None, -1) == 3
    assert next_gold(d, 0, 1) == 3 and next_gold(d, 1, 1) == 3  # a repeat counts as its group
    assert next_gold(d, 3, 1) == 0 and next_gold(d, 0, -1) == 3
    assert next_gold(None, 2, 1) == 2


def test_numbers_choose_a_group_and_refuse_a_superseded_gold() -> None:
    d = item(("北京", False), ("北京", False), ("旧", True))
    assert gold_by_number(d, 1) == 0
    warning = gold_by_number(d, 2)
    assert isinstance(warning, str) and "superseded" in warning and warning.startswith("Gold 3")
    assert gold_by_number(d, 5) is None


def test_without_a_choice_s_acts_on_the_first_scored_gold() -> None:
    d = item(("旧", True), ("上海", False))
    assert target_gold(d, None) == 1 and target_gold(d, 0) == 0 and target_gold(None, None) is None
