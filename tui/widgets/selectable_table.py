"""The item table with a mark column: `space` selects rows for a bulk action (`s` marks them stale).

The selection is kept by the screen as item ids (or "every item of this filter"); the table only
asks `is_selected(item_id)` for the rows of its window, so selecting never loads more rows.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.coordinate import Coordinate

from qa_inspect.core.query import ItemRow

from .item_table import Col, ItemTable

MARK_COL = Col("sel", "", None, 1)
MARK = "✓"


class SelectableItemTable(ItemTable):
    """`ItemTable` with a first, one-cell column showing which rows are selected."""

    def __init__(self, is_selected: Callable[[int], bool] | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.is_selected: Callable[[int], bool] = is_selected or (lambda _id: False)

    def set_columns(self, cols: list[Col], sort: str, descending: bool, *, refill: bool = True) -> None:
        if not cols or cols[0] != MARK_COL:
            cols = [MARK_COL, *cols]
        super().set_columns(cols, sort, descending, refill=refill)

    def _cells(self, r: ItemRow) -> list[Text]:
        cells = super()._cells(r)
        if cells and self.cols and self.cols[0] == MARK_COL:
            cells[0] = self._mark(r)
        return cells

    def _mark(self, r: ItemRow) -> Text:
        return Text(MARK, style=f"bold {self.palette.get('warn', 'yellow')}") if self.is_selected(r.item_id) else Text("")

    def refresh_marks(self, row: int | None = None) -> None:
        """Redraw the mark of one row of the window (None: every row)."""
        if not self.cols or self.cols[0] != MARK_COL:
            return
        rows = range(len(self.win_rows)) if row is None else [row]
        for k in rows:
            if 0 <= k < min(len(self.win_rows), self.row_count):
                self.update_cell_at(Coordinate(k, 0), self._mark(self.win_rows[k]))
