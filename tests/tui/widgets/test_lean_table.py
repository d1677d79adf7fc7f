"""`LeanTable` renders exactly what DataTable renders, with less work."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.tui.widgets import lean_table
from qa_inspect.tui.widgets.lean_table import LeanTable, is_one_line, one_line_cell
from rich.console import Console, ConsoleOptions
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.renderables.styled import Styled
from textual.widgets import DataTable

from tests.helpers import async_test

CHARS = "abc xyz 123 的一是在不了 …—é\u0301ＡＢ"
STYLES = [Style(), Style(bold=True), Style(color="red"), Style(italic=True, bgcolor="blue"), Style.from_meta({"k": 1})]


@st.composite
def texts(draw: st.DrawFn) -> Text:
    plain = draw(st.text(alphabet=CHARS, max_size=30))
    text = Text(plain, style=draw(st.sampled_from(STYLES)),
                justify=draw(st.sampled_from([None, "left", "right", "center", "default", "full"])),
                overflow=draw(st.sampled_from([None, "fold", "crop", "ellipsis", "ignore"])),
                no_wrap=draw(st.sampled_from([None, True, False])))
    for _ in range(draw(st.integers(0, 3))):
        start = draw(st.integers(0, max(len(plain), 0)))
        end = draw(st.integers(start, max(len(plain), start)))
        text.stylize(draw(st.sampled_from(STYLES[1:])), start, end)
    return text


def datatable_path(console: Console, cell: Text, width: int, padding: int, pre: Style, post: Style) -> list[Segment]:
    """DataTable's own rendering of a body cell on a row one line high."""
    options = console.options.update_dimensions(width, 1).update(no_wrap=True)
    lines = console.render_lines(Styled(Padding(cell, (0, padding)), pre_style=pre, post_style=post), options)
    return lines[0]


def drawn(segments: list[Segment]) -> list[Segment]:
    """What a line draws: its segments merged by style, no style read as the null style, empty
    segments (which draw nothing) left out."""
    return list(Segment.simplify(Segment(s.text, s.style or Style.null()) for s in segments if s.text))


@settings(max_examples=400, deadline=None)
@given(texts(), st.integers(3, 24), st.integers(0, 2), st.sampled_from(STYLES), st.sampled_from(STYLES))
def test_one_line_cell_equals_datatables_rendering(cell: Text, width: int, padding: int, pre: Style, post: Style) -> None:
    console = Console(width=200, color_system="truecolor")
    if width <= 2 * padding:
        return
    options = console.options.update_dimensions(width, 1).update(no_wrap=True)
    fast = one_line_cell(console, options, cell, width, padding, pre, post)
    slow = datatable_path(console, cell, width, padding, pre, post)
    assert drawn(fast) == drawn(slow)
    assert sum(s.cell_length for s in fast) == width


def test_is_one_line_refuses_breaks_and_tabs_and_non_text() -> None:
    assert is_one_line(Text("plain 的"))
    assert not is_one_line(Text("two\nlines"))
    assert not is_one_line(Text("a\tb"))
    assert not is_one_line("a string")


class Tables(App[None]):
    def compose(self) -> ComposeResult:
        yield LeanTable(id="lean", zebra_stripes=True)
        yield DataTable(id="plain", zebra_stripes=True)


ROWS = [[Text("q1 的问题", style="italic"), Text("12.5", justify="right"), Text("x" * 40), Text("d"), Text("e的")],
        [Text(""), Text("—", style="dim"), Text("tab\there"), Text("yes"), Text("")],
        [Text("long answer " * 5, no_wrap=True), Text("0", justify="right", style="green"), Text("b"), Text("c"),
         Text("end", justify="center")]]
WIDTHS = (10, 6, 12, 8, 8)


@async_test
async def test_lean_table_draws_what_datatable_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    fast: list[Text] = []

    def counted(console: Console, options: ConsoleOptions, cell: Text, *rest: Any) -> list[Segment]:
        fast.append(cell)
        return one_line_cell(console, options, cell, *rest)

    monkeypatch.setattr(lean_table, "one_line_cell", counted)
    app = Tables()
    async with app.run_test(size=(30, 12)) as pilot:
        lean, plain = app.query_one("#lean", LeanTable), app.query_one("#plain", DataTable)
        for table in (lean, plain):
            table.styles.height = 5
            table.fixed_columns = 1
            for i, width in enumerate(WIDTHS):
                table.add_column(f"c{i}", width=width)
            table.add_rows(ROWS)
            table.move_cursor(row=1)
        app.set_focus(None)  # a focused table draws its header otherwise
        await pilot.pause()
        assert lean.virtual_size == plain.virtual_size and lean.max_scroll_x == plain.max_scroll_x > 0
        for x in (0, 3, lean.max_scroll_x, 0):  # scrolled sideways and back: cells come into sight
            for table in (lean, plain):
                table.scroll_to(x=x, animate=False, immediate=True)
            await pilot.pause()
            assert lean.render_line(2).text  # the view is followed when a line is drawn
            assert len(lean._shown) < len(WIDTHS)  # some columns are out of sight at every x
            for y in range(5):
                assert lean.render_line(y).text == plain.render_line(y).text
                assert list(lean.render_line(y)) == list(plain.render_line(y))
        assert fast and all("\t" not in cell.plain for cell in fast)  # the tab's cell took DataTable's path


@async_test
async def test_lean_table_still_measures_auto_width_columns() -> None:
    app = Tables()
    async with app.run_test(size=(60, 12)) as pilot:
        lean = app.query_one("#lean", LeanTable)
        lean.add_column("auto")
        lean.add_rows([[Text("a wide cell of text")]])
        await pilot.pause()
        assert lean.ordered_columns[0].content_width == len("a wide cell of text")
