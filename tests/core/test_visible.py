"""The one rule for exported and shown text (`core.visible`): no cell a spreadsheet runs as a
formula unless raw, no control or bidi character left, one character in for one out; the terminal
uses the same table."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from qa_inspect.core.query import markdown_cell, markdown_table
from qa_inspect.core.visible import (
    FORMULA_STARTS,
    PLACEHOLDERS,
    csv_cell,
    json_line,
    neutral_formula,
    one_line,
    visible,
)

_RAW = frozenset(chr(cp) for cp in PLACEHOLDERS if cp not in (0x0A, 0x09))
_text = st.text(st.characters(codec="utf-8"), max_size=30) | st.builds(
    lambda a, b: a + b, st.sampled_from([*FORMULA_STARTS, "\x1b", "\x9b", "\u202e", " "]), st.text(max_size=10))


@given(_text)
def test_no_cell_starts_a_formula_unless_raw_and_no_control_character_survives(text: str) -> None:
    safe = csv_cell(text)
    raw = csv_cell(text, raw=True)
    assert isinstance(safe, str) and isinstance(raw, str)
    assert not safe.startswith(FORMULA_STARTS)
    assert not (_RAW & set(safe)) and not (_RAW & set(raw))
    assert raw == visible(text) and safe in (raw, "'" + raw)


@given(_text)
def test_visible_keeps_offsets_and_layout(text: str) -> None:
    shown = visible(text)
    assert len(shown) == len(text)
    assert [i for i, c in enumerate(text) if c in "\n\t"] == [i for i, c in enumerate(shown) if c in "\n\t"]


@given(_text)
def test_a_json_line_is_the_same_value_with_nothing_a_viewer_acts_on(text: str) -> None:
    line = json_line({"note": text})
    assert line.endswith("\n") and "\n" not in line[:-1]
    assert not (_RAW & set(line[:-1]))
    assert json.loads(line) == {"note": text}


def test_the_owasp_examples() -> None:
    assert neutral_formula('=HYPERLINK("http://x","y")') == '\'=HYPERLINK("http://x","y")'
    assert neutral_formula("+1") == "'+1" and neutral_formula("@A1") == "'@A1" and neutral_formula("-1") == "'-1"
    assert csv_cell("\t=1") == "'\t=1" and csv_cell("\r=1") == "␍=1"  # a CR is shown, so it starts nothing
    assert csv_cell("plain") == "plain" and csv_cell(3.5) == 3.5 and csv_cell(None) is None
    assert visible("a\x1b[31mb\u202ec\x9b") == "a␛[31mb�c�"


def test_the_terminal_shows_exactly_what_the_exports_write() -> None:
    from qa_inspect.tui.text import escape_terminal

    sample = "".join(chr(cp) for cp in PLACEHOLDERS) + "plain 中文"
    assert escape_terminal(sample) == visible(sample)


ACTED_ON = [chr(cp) for cp in PLACEHOLDERS]


@given(st.text(alphabet=st.sampled_from([*ACTED_ON, "a", "答", "|", " "])))
def test_one_line_keeps_length_and_leaves_nothing_a_terminal_acts_on(text: str) -> None:
    shown = one_line(text)
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

