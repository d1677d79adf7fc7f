"""Every CSV and Markdown cell the exports write goes through the one rule (`core.visible`):
no control or bidi character survives, and no CSV cell starts a formula unless raw cells are asked."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from qa_inspect.core.query import csv_frame, markdown_cell
from qa_inspect.core.visible import FORMULA_STARTS, PLACEHOLDERS, csv_cell

_RAW = frozenset(chr(cp) for cp in PLACEHOLDERS if cp not in (0x0A, 0x09))
_text = st.text(st.characters(codec="utf-8"), max_size=20) | st.builds(
    lambda a, b: a + b, st.sampled_from([*FORMULA_STARTS, "\x1b", "\x9b", "\u202e", "\u2028"]), st.text(max_size=8))


@settings(max_examples=300, deadline=None)
@given(st.lists(_text, min_size=1, max_size=5), st.lists(st.lists(_text, max_size=3), min_size=1, max_size=5))
def test_csv_frame_cells_are_inert(texts: list[str], golds: list[list[str]]) -> None:
    n = min(len(texts), len(golds))
    frame = pl.DataFrame({"prediction": texts[:n], "golds": golds[:n], "em": [1.0] * n},
                         schema={"prediction": pl.Utf8, "golds": pl.List(pl.Utf8), "em": pl.Float64})
    safe = csv_frame(frame)
    raw = csv_frame(frame, raw_cells=True)
    assert safe["em"].to_list() == [1.0] * n  # numbers stay numbers
    for column in ("prediction", "golds"):
        for cell in safe[column].to_list():
            assert not cell.startswith(FORMULA_STARTS) and not (_RAW & set(cell))
        assert not any(_RAW & set(cell) for cell in raw[column].to_list())
    assert safe["prediction"].to_list() == [csv_cell(t) for t in texts[:n]]  # column-wise, the same rule
    assert raw["prediction"].to_list() == [csv_cell(t, raw=True) for t in texts[:n]]


@given(_text)
def test_markdown_cells_hold_no_control_character_and_one_row(text: str) -> None:
    cell = markdown_cell(text)
    assert not (_RAW & set(cell)) and "\n" not in cell
