"""The label picker (`l` in the browser and the detail): a checkbox per label of the project's set,
`1`–`9` (and space on the highlighted one) toggle the first nine, a field adds a new label name (to the set and, checked, here), a
note for one item, and enter applies.

On a selection a label shows "(3 of 12)" when only some of the items carry it: left as it is, it
is not touched; checked, it goes on every item; unchecked, it comes off every item.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, Label, SelectionList
from textual.widgets.selection_list import Selection

from ..base import BaseModal
from ..text import clean


@dataclass(slots=True)
class LabelDialogData:
    """What the picker shows: for whom (`title`), the project's labels, and how many of the
    `items` carry each label now; `note` only for a single item."""

    title: str
    names: list[str]
    counts: dict[str, int] = field(default_factory=dict)
    items: int = 1
    note: str | None = None


@dataclass(slots=True)
class LabelDialogResult:
    """What to write: labels to put on and take off every item, names new to the project's set,
    and the note when it changed (single item)."""

    add: list[str]
    remove: list[str]
    new_names: list[str]
    note: str | None = None
    note_changed: bool = False

    @property
    def empty(self) -> bool:
        return not (self.add or self.remove or self.note_changed)


class LabelDialog(BaseModal):
    """Choose the labels of one item or of a selection; dismisses with a `LabelDialogResult` or None."""

    DEFAULT_CSS = """
    LabelDialog #labels { width: 60; max-height: 90%; }
    LabelDialog #labels-list { height: auto; max-height: 12; border: none; padding: 0; }
    LabelDialog Input { margin-top: 1; }
    LabelDialog .dialog-buttons { height: 1; margin-top: 1; align-horizontal: right; }
    LabelDialog .dialog-buttons Button { margin-left: 1; min-width: 10; }
    """

    HELP_TITLE = "Label picker"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "apply", "Apply", id="labels.apply", priority=True,
                tooltip="Apply the checked labels (in the new-label field: add that label first)"),
        Binding("escape", "cancel", "Cancel", id="labels.cancel", tooltip="Close without changing anything"),
    ]

    def __init__(self, data: LabelDialogData) -> None:
        super().__init__()
        self.data = data
        self.names = list(data.names)
        self.new_names: list[str] = []
        self.touched: set[str] = set()

    def _selection(self, n: int, name: str, value: bool) -> Selection[str]:
        key = f"{n} " if n <= 9 else "  "
        count = self.data.counts.get(name, 0)
        some = f"  ({count} of {self.data.items})" if 0 < count < self.data.items else ""
        return Selection(Content.assemble((key, "bold $accent"), clean(name), (some, "$foreground-muted")), name, value)

    def compose(self) -> ComposeResult:
        with Vertical(id="labels", classes="dialog"):
            yield Label(Content(self.data.title), classes="dialog-title")
            yield SelectionList[str](
                *(self._selection(n, name, 0 < self.data.counts.get(name, 0) >= self.data.items)
                  for n, name in enumerate(self.names, 1)),
                id="labels-list", compact=True,
            )
            yield Input(placeholder="new label (enter adds it)", id="labels-new", compact=True)
            if self.data.items == 1:
                yield Input(self.data.note or "", placeholder="note (optional)", id="labels-note", compact=True)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Apply (enter)", id="labels-apply", variant="primary", compact=True)
                yield Button("Cancel (esc)", id="labels-cancel", compact=True)

    @property
    def selection_list(self) -> SelectionList[str]:
        return self.query_one("#labels-list", SelectionList)

    def on_mount(self) -> None:
        (self.selection_list if self.names else self.query_one("#labels-new", Input)).focus()

    def on_key(self, event: events.Key) -> None:
        """1–9 toggle a label (outside the text fields)."""
        if isinstance(self.focused, Input) or event.character is None or event.character not in "123456789":
            return
        n = int(event.character)
        if n <= len(self.names):
            event.stop()
            self.selection_list.toggle(self.names[n - 1])
            self.touched.add(self.names[n - 1])

    @on(SelectionList.SelectionToggled)
    def _toggled(self, event: SelectionList.SelectionToggled[str]) -> None:
        self.touched.add(event.selection.value)

    def _add_new(self, text: str) -> str | None:
        """A typed name: checked if it is already listed, else listed (checked); the reason when refused."""
        name = text.strip()
        if not name or any(ch in name for ch in ",\t\r\n"):
            return "A label name is one line without commas."
        if name not in self.names:
            self.names.append(name)
            self.new_names.append(name)
            self.selection_list.add_option(self._selection(len(self.names), name, True))
        self.selection_list.select(name)
        self.touched.add(name)
        return None

    def action_apply(self) -> None:
        new = self.query_one("#labels-new", Input)
        if self.focused is new and new.value.strip():
            problem = self._add_new(new.value)
            if problem:
                self.notify(problem, severity="warning")
            else:
                new.value = ""
            return
        if isinstance(self.focused, Button) and self.focused.id == "labels-cancel":
            self.dismiss(None)
            return
        self.dismiss(self.result())

    def result(self) -> LabelDialogResult:
        """Checked labels go on every item; unchecked ones come off every item that has them,
        except a label only some carry that was left alone."""
        checked = set(self.selection_list.selected)
        add, remove = [], []
        for name in self.names:
            count = self.data.counts.get(name, 0)
            if name in checked and count < self.data.items:
                add.append(name)
            elif name not in checked and count and (count >= self.data.items or name in self.touched):
                remove.append(name)
        note, changed = None, False
        notes = self.query("#labels-note")
        if notes:
            note = notes.first(Input).value.strip() or None
            changed = note != (self.data.note or None)
        return LabelDialogResult(add, remove, [n for n in self.new_names if n in add], note, changed)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "labels-cancel":
            self.dismiss(None)
        else:
            self.dismiss(self.result())
