"""`core.visible`: the one table of characters shown, not obeyed, and the Markdown cell that uses it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from qa_inspect.core.query import markdown_cell, markdown_table
from qa_inspect.core.visible import PLACEHOLDERS, visible

ACTED_ON = [chr(cp) for cp in PLACEHOLDERS]


@given(st.text(alphabet=st.sampled_from([*ACTED_ON, "a", "答", "|", " "])))
def test_visible_keeps_length_and_leaves_nothing_a_terminal_acts_on(text: str) -> None:
    shown = visible(text)
    assert len(shown) == len(text)
    assert not set(shown) & set(ACTED_ON)


@given(st.text())
def test_a_markdown_cell_is_one_row_with_no_control_character(text: str) -> None:
    cell = markdown_cell(text)
    assert "\n" not in cell and "\r" not in cell
    assert not set(cell) & set(ACTED_ON)
    assert cell.replace("\\|", "").count("|") == 0  # every pipe escaped: the row keeps its columns


def test_markdown_cell_examples() -> None:
    assert markdown_cell("a|b\nc") == "a\\|b<br>c"
    assert markdown_cell("x\x1b[31my") == "x␛[31my"
    assert markdown_cell("\u202eevil") == "\ufffdevil"
    assert markdown_cell("tab\there") == "tab here"
    assert markdown_table(["q"], [["\x07"]]).splitlines()[2] == "| ␇ |"

