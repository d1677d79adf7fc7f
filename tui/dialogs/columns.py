"""Choose and order the item table's columns (`k` in the browser); kept per dataset.

A ticked column is shown; `ctrl+up` / `ctrl+down` move the highlighted one; enter applies. The id
column is always first and cannot be hidden (it is how an item is named everywhere else).
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Label, SelectionList
from textual.widgets.selection_list import Selection

from qa_inspect.core.query import ColumnLayout

from ..base import BaseModal

__all__ = ["ColumnsDialog"]


class ColumnsDialog(BaseModal):
    """Returns the new `ColumnLayout`, or None on escape."""

    HELP_TITLE = "Columns"
    DEFAULT_CSS = """
    ColumnsDialog { align: center middle; }
    ColumnsDialog #columns { width: 48; height: auto; max-height: 80%; }
    ColumnsDialog SelectionList { height: auto; max-height: 24; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "apply", "Apply", id="columns.apply", priority=True,
                tooltip="Show the ticked columns in this order"),
        Binding("ctrl+up", "move(-1)", "Move up", id="columns.move-up", tooltip="Move the highlighted column left"),
        Binding("ctrl+down", "move(1)", "Move down", id="columns.move-down", tooltip="Move the highlighted column right"),
        Binding("escape", "cancel", "Cancel", id="columns.cancel", tooltip="Close without changing the columns"),
    ]

    def __init__(self, columns: list[tuple[str, str]], layout: ColumnLayout) -> None:
        """`columns`: (key, header) of every column the table can show now, the id first."""
        super().__init__()
        self.key_column = columns[0]
        order = layout.apply([k for k, _ in columns])
        hidden = [k for k, _ in columns[1:] if k in layout.hidden]
        labels = dict(columns)
        self.rows = [(k, labels[k]) for k in order[1:]] + [(k, labels[k]) for k in hidden]
        self.shown = {k for k in order[1:]}

    def compose(self) -> ComposeResult:
        with Vertical(id="columns", classes="dialog"):
            yield Label(Content("Columns"), classes="dialog-title")
            yield Label(Content.styled(f"{self.key_column[1]} is always first", "$foreground-muted"))
            yield SelectionList[str](*self._selections(), id="columns-list")
            yield Label(Content.styled("space shows/hides · ctrl+↑/↓ moves · enter applies · escape cancels",
                                       "$foreground-muted"))

    def _selections(self) -> list[Selection[str]]:
        return [Selection(label, key, key in self.shown) for key, label in self.rows]

    def on_mount(self) -> None:
        self.query_one(SelectionList).focus()

    @on(SelectionList.SelectedChanged)
    def _ticked(self) -> None:
        self.shown = set(self.query_one(SelectionList).selected)

    def action_move(self, step: int) -> None:
        box = self.query_one(SelectionList)
        at = box.highlighted
        if at is None or not 0 <= at + step < len(self.rows):
            return
        self.rows[at], self.rows[at + step] = self.rows[at + step], self.rows[at]
        box.clear_options()
        box.add_options(self._selections())
        box.highlighted = at + step

    def action_apply(self) -> None:
        keys = [k for k, _ in self.rows]
        self.dismiss(ColumnLayout(tuple(k for k in keys if k not in self.shown), tuple(keys)))

    def action_cancel(self) -> None:
        self.dismiss(None)
