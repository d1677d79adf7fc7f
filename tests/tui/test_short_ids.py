"""Ids cut to the id column never read alike: `shorten_ids` over the rows shown."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from qa_inspect.tui.text import ELLIPSIS, shorten_ids, truncate_middle

cmrc_ids = st.builds(lambda p, a, b: f"{p}_{a}_QUERY_{b}", st.sampled_from(["DEV", "TRIAL", "TEST"]),
                     st.integers(0, 3000), st.integers(0, 9))
hash_ids = st.builds(lambda h: f"q:{h}", st.text("0123456789abcdef", min_size=16, max_size=16))
any_ids = st.text(st.characters(codec="ascii", exclude_categories=["Cc"]), min_size=1, max_size=30)


def test_the_case_on_screen_reads_apart() -> None:
    ids = ["DEV_181_QUERY_0", "DEV_182_QUERY_0", "DEV_99_QUERY_1"]
    plain = [truncate_middle(i, 13) for i in ids]
    assert plain[0] == plain[1]  # what the table showed: two rows reading "DEV_18…UERY_0"
    short = shorten_ids(ids, 13)
    assert len(set(short)) == 3 and short[2] == plain[2]  # only the clashing ones are cut elsewhere


@given(st.lists(cmrc_ids | hash_ids, min_size=1, max_size=60, unique=True), st.integers(8, 18))
def test_dataset_ids_never_read_alike(ids: list[str], width: int) -> None:
    short = shorten_ids(ids, width)
    assert len(set(short)) == len(ids), list(zip(ids, short))
    for i, s in zip(ids, short):
        assert cell_len(s) <= width
        assert s == i if cell_len(i) <= width else ELLIPSIS in s


@given(st.lists(any_ids, min_size=1, max_size=20), st.integers(1, 20))
def test_every_id_fits_and_one_that_fits_is_shown_whole(ids: list[str], width: int) -> None:
    short = shorten_ids(ids, width)
    for i, s in zip(ids, short):
        assert cell_len(s) <= max(width, 1)
        if cell_len(i) <= width:
            assert s == i
    same = {i: s for i, s in zip(ids, short)}
    assert [same[i] for i in ids] == short  # one id, one way of showing it


@given(any_ids, any_ids, st.integers(5, 20))
def test_two_ids_of_one_length_always_read_apart(a: str, b: str, width: int) -> None:
    if a != b and len(a) == len(b):
        x, y = shorten_ids([a, b], width)
        assert x != y, (a, b, x, y)
