"""The browser's selection: some items, or every item of a filter while it keeps the same items."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from qa_inspect.core.query import Filter
from qa_inspect.tui.stale import Selection


class Screen:
    def __init__(self) -> None:
        self.filter = Filter(dataset="d", run="a")


def test_every_item_holds_while_the_filter_keeps_its_items() -> None:
    screen = Screen()
    sel = Selection(lambda: screen.filter)
    assert not sel and sel.status_parts(10) == []
    sel.select_every()
    assert sel and sel.has(12345) and "all 10 selected" in sel.status_parts(10)[1][0]
    screen.filter = screen.filter.with_(sort="f1", descending=True)  # a sort keeps the items
    assert sel.every is not None
    screen.filter = screen.filter.with_(em=0)  # another set of items: no longer meant
    assert sel.every is None and not sel and not sel.has(12345)


@given(st.lists(st.integers(min_value=0, max_value=20), max_size=30))
def test_space_toggles_one_item_at_a_time(presses: list[int]) -> None:
    sel = Selection(lambda: Filter())
    for item in presses:
        sel.toggle(item)
    odd = {i for i in set(presses) if presses.count(i) % 2}
    assert sel.ids == odd and all(sel.has(i) for i in odd)
    if odd:
        assert sel.status_parts(None)[1][0] == f"{len(odd):,} selected"
    sel.clear()
    assert not sel
