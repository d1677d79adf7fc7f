"""The frequency table on a column (`F` in the browser, VisiData's Shift+F; the facet panel is
`ctrl+f`): each value with its count, its share of the filter's items, run A's score and
error share; enter keeps only that value's items (an expression clause), ← → move to the next column.

The counts are `core.query.frequency` (one GROUP BY), read in a thread worker; the dialog owns
which column it shows and the table it got.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from qa_inspect.core.query import Filter, FrequencyTable, clause, frequency
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import var
from textual.widgets import DataTable, Label
from textual.worker import get_current_worker

from ..base import BaseModal
from ..present import count, number, percent, share
from ..text import cell_text

__all__ = ["FrequencyDialog", "FrequencyLoaded", "value_text"]

VALUE_WIDTH = 40
"""Cells of the value column (longer values are cut with …)."""


@dataclass
class FrequencyLoaded(Message):
    column: str
    table: FrequencyTable | None
    error: str | None = None


def value_text(value: Any, width: int = VALUE_WIDTH) -> Text:
    """A value as a cell: data text cleaned (never markup), numbers as figures, missing as (none)."""
    if value is None:
        return Text("(none)", style="dim italic")
    if isinstance(value, float):
        return Text(number(value, 3), justify="right")
    if isinstance(value, int):
        return Text(str(value), justify="right")
    if not str(value).strip():
        return Text("(empty)", style="dim italic")
    return cell_text(str(value), width)


class FrequencyDialog(BaseModal):
    """Dismisses with the expression clause of the chosen value, or None."""

    HELP_TITLE = "Frequency table"
    DEFAULT_CSS = """
    FrequencyDialog { align: center middle; }
    FrequencyDialog DataTable { height: 1fr; }
    FrequencyDialog #frequency-status { width: 100%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose", "Keep value", id="frequency.choose", priority=True,
                tooltip="Keep only the items with the highlighted value (an expression clause)"),
        Binding("left,left_square_bracket", "step(-1)", "Previous column", id="frequency.previous", priority=True,
                tooltip="The frequency table of the column to the left"),
        Binding("right,right_square_bracket", "step(1)", "Next column", id="frequency.next", priority=True,
                tooltip="The frequency table of the column to the right"),
        Binding("escape", "cancel", "Close", id="frequency.close", tooltip="Close without filtering"),
    ]

    column: var[str] = var("", init=False)
    """The column shown (a registry name); setting it reads its table."""
    table: var[FrequencyTable | None] = var(None, init=False)

    def __init__(self, f: Filter, columns: list[tuple[str, str]], start: str) -> None:
        """`columns`: (registry name, header) the dialog steps through; `start`: the first shown."""
        super().__init__()
        self.filter = f
        self.columns = columns
        self.start = start if start in dict(columns) else columns[0][0]
        self.value_width = VALUE_WIDTH

    def compose(self) -> ComposeResult:
        with Vertical(id="frequency", classes="dialog"):
            yield Label(id="frequency-title", classes="dialog-title")
            yield Label(id="frequency-status")
            yield DataTable[Text](id="frequency-table", cursor_type="row", zebra_stripes=True)
            yield Label(Content.styled("enter keeps the value · ← → another column · escape closes",
                                       "$foreground-muted"))

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        numbers = (("count", 9), ("share", 7), ("score", 7), ("errors", 7))
        room = min(100, int(self.app.size.width * 0.9)) - 4 - sum(w + 2 for _, w in numbers) - 5  # borders, scrollbar
        self.value_width = max(12, min(VALUE_WIDTH, room))
        table.add_column("value", width=self.value_width, key="value")
        for key, width in numbers:
            table.add_column(Text(key, justify="right"), width=width, key=key)
        table.focus()
        self.column = self.start

    def watch_column(self, column: str) -> None:
        label = dict(self.columns).get(column, column)
        self.query_one("#frequency-title", Label).update(Content.assemble(("Frequency of ", ""), (label, "bold")))
        self.query_one("#frequency-status", Label).update(Content.styled("counting…", "$foreground-muted"))
        self.load(column)

    @work(thread=True, exclusive=True, exit_on_error=False, group="frequency")
    def load(self, column: str) -> None:
        try:
            with self.db.connect() as conn:
                result: FrequencyTable | None = frequency(conn, self.filter, column)
            error = None
        except ValueError as exc:
            result, error = None, str(exc)
        if not get_current_worker().is_cancelled:
            self.post_message(FrequencyLoaded(column, result, error))

    def on_frequency_loaded(self, message: FrequencyLoaded) -> None:
        if message.column != self.column:
            return  # an older column's answer
        self.table = message.table
        status = self.query_one("#frequency-status", Label)
        if message.table is None:
            status.update(Content.styled(message.error or "", "$error"))
            return
        t = message.table
        more = f" · the {len(t.rows)} most frequent shown" if t.values > len(t.rows) else ""
        status.update(Content.styled(f"{count(t.values)} values over {count(t.items)} items{more} · score: run A's"
                                     " mean F1 (F1-recall) · errors: share wrong", "$foreground-muted"))
        grid = self.query_one(DataTable)
        grid.clear()
        for row in t.rows:
            grid.add_row(value_text(row.value, self.value_width), Text(count(row.count), justify="right"),
                         Text(share(row.share, 1), justify="right"), Text(percent(row.score, 1), justify="right"),
                         Text(share(row.errors), justify="right"))

    def action_step(self, step: int) -> None:
        keys = [k for k, _ in self.columns]
        self.column = keys[(keys.index(self.column) + step) % len(keys)] if self.column in keys else keys[0]

    def action_choose(self) -> None:
        grid = self.query_one(DataTable)
        if self.table is None or not self.table.rows or self.table.column != self.column:
            return
        row = self.table.rows[min(grid.cursor_row, len(self.table.rows) - 1)]
        self.dismiss(clause(self.column, row.value))

    def action_cancel(self) -> None:
        self.dismiss(None)
