"""A `DataTable` for tables whose columns have set widths and whose rows are one line of `Text`.

The item table shows a new window of up to 120 rows on every filter change, and the user may
show a dozen columns. Textual's `DataTable` is general: after rows are added it measures every
new cell (for auto-width columns and auto-height rows), and it renders each visible cell through
`Styled(Padding(cell))` and two passes of `Console.render_lines`. For a one-line `Text` in a
column of set width both do work whose result is known beforehand, and at a dozen columns they
were most of a filter change's time (about 0.3 ms a cell rendered, 1,900 cells measured per
window). `LeanTable` keeps the same output and skips that work:

- `_update_dimensions` measures nothing while no column is auto-width and no new row has a label
  or an auto height (then DataTable's own pass runs); it only sets the virtual size;
- `_render_cell` renders a one-line `Text` body cell with `one_line_cell`, which gives the same
  segments as DataTable's path (a property test holds the two equal); headers, row labels and
  anything else go through DataTable's path;
- a body cell of a scrollable column out of sight is a blank of its width (DataTable crops it
  away after rendering it); rows rendered for one horizontal view are dropped when it moves.

The overrides follow DataTable's private methods of the pinned Textual version; the tests
compare the two paths, so a Textual upgrade that changes them fails there first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual._types import SegmentLines
from textual.coordinate import Coordinate
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey


def one_line_cell(
    console: Console, options: ConsoleOptions, cell: Text, width: int, padding: int, pre: Style, post: Style
) -> list[Segment]:
    """The segments of `cell` in a cell `width` wide (padding included), as DataTable renders
    `Styled(Padding(cell, (0, padding)), pre, post)` on a row one line high: the first line of
    the text as `Text.wrap` lays it out (its own or the console's justify, overflow and no_wrap),
    padded to the inner width, the padding either side, `pre` under and `post` over every
    segment."""
    inner = width - 2 * padding
    justify = cell.justify or options.justify or "default"
    overflow = cell.overflow or options.overflow or "fold"
    tab_size = console.tab_size if cell.tab_size is None else cell.tab_size
    no_wrap = cell.no_wrap if cell.no_wrap is not None else bool(options.no_wrap)
    lines = cell.wrap(console, inner, justify=justify, overflow=overflow, tab_size=tab_size or 8, no_wrap=no_wrap)
    pad_style = console.get_style("none")
    line = lines[0]  # joined as Text.__rich_console__ joins its lines: the line's own style becomes a span
    spans = [Span(0, len(line), line.style), *line.spans] if line.style else line.spans
    text = [segment for segment in Text(line.plain, spans=spans).render(console) if segment.text]
    body = Segment.adjust_line_length(text, inner, style=pad_style)
    side = [Segment(" " * padding, pad_style)] if padding else []
    return list(Segment.apply_style([*side, *body, *side], style=pre, post_style=post))


def is_one_line(cell: object) -> bool:
    """Whether `one_line_cell` renders `cell` exactly: a `Text` without line breaks or tabs."""
    return isinstance(cell, Text) and "\n" not in cell.plain and "\t" not in cell.plain


class LeanTable(DataTable[Text]):
    """A DataTable that skips measuring cells, renders one-line `Text` cells directly and leaves
    the cells scrolled out of sight blank."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._view: tuple[object, ...] = ()
        self._shown: frozenset[int] = frozenset()

    def _follow_view(self) -> None:
        """The columns in sight of the scrollable part. DataTable renders every column of a row
        and crops the line afterwards; with a dozen columns half are cropped away. When the view
        moves, rows rendered for the old one are dropped (their cells stay cached per column)."""
        widths = [column.get_render_width(self) for column in self.ordered_columns]
        view = (self.scroll_offset.x, self.size.width, self.fixed_columns, tuple(widths))
        if view == self._view:
            return
        self._view = view
        self._row_render_cache.clear()
        x, fixed = self.scroll_offset.x, self.fixed_columns
        lo, hi = x + sum(widths[:fixed]), x + self.size.width
        starts = [sum(widths[:i]) for i in range(len(widths))]
        self._shown = frozenset(i for i, (start, width) in enumerate(zip(starts, widths))
                                if i < fixed or (start < hi and start + width > lo))

    def _render_line_in_row(
        self, row_key: RowKey, line_no: int, base_style: Style, cursor_location: Coordinate,
        hover_location: Coordinate,
    ) -> tuple[SegmentLines, SegmentLines]:
        self._follow_view()
        return super()._render_line_in_row(row_key, line_no, base_style, cursor_location, hover_location)

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """Measure new cells only when something takes its size from them: an auto-width column,
        a row label or an auto-height row (then DataTable's own pass runs); else only the
        virtual size follows the rows, as DataTable's pass ends."""
        new_rows = list(new_rows)
        rows = (self.rows.get(key) for key in new_rows)
        if any(column.auto_width for column in self.columns.values()) or any(
                row is not None and (row.label is not None or row.auto_height) for row in rows):
            super()._update_dimensions(new_rows)
            return
        width = sum(column.get_render_width(self) for column in self.columns.values())
        header = self.header_height if self.show_header else 0
        self.virtual_size = Size(width + self._row_label_column_width, self._total_row_height + header)

    def _render_cell(
        self, row_index: int, column_index: int, base_style: Style, width: int,
        cursor: bool = False, hover: bool = False,
    ) -> SegmentLines:
        """A body cell of one-line `Text` through `one_line_cell`; any other cell through
        DataTable's own path; out of sight, a blank. Cached under DataTable's key plus whether
        the cell was in sight."""
        if row_index < 0 or column_index < 0 or width <= 2 * self.cell_padding:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._row_locations.get_key(row_index)
        shown = column_index in self._shown or not self._view  # called before any line: draw it
        key: Any = (row_key, self._column_locations.get_key(column_index), base_style, cursor, hover,
                    self._show_hover_cursor, self._update_count, self._pseudo_class_state, shown)
        cached = self._cell_render_cache.get(key)
        if cached is not None:
            return cached
        row = self.rows.get(row_key) if row_key is not None else None
        cell = self._get_row_renderables(row_index).cells[column_index]
        if row is None or row.height != 1 or row.auto_height or not is_one_line(cell):
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        if not shown:  # cropped away by DataTable's `_render_line`: only its width counts
            lines = [[Segment(" " * width)]]
            self._cell_render_cache[key] = lines
            return lines
        fixed = row_index < self.fixed_rows or column_index < self.fixed_columns
        component, post = self._get_styles_to_render_cell(
            False, False, fixed, hover, cursor, self.show_cursor, self._show_hover_cursor,
            self.cursor_foreground_priority == "css", self.cursor_background_priority == "css")
        pre = base_style + Style.from_meta({"row": row_index, "column": column_index}) + component
        assert isinstance(cell, Text)
        options = self.app.console_options.update_dimensions(width, 1).update(no_wrap=True)
        lines = [one_line_cell(self.app.console, options, cell, width, self.cell_padding, pre, post)]
        self._cell_render_cache[key] = lines
        return lines
