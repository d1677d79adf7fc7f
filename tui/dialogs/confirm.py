"""A yes/no dialog: `y` (or enter on the focused yes button) says yes; `n`, escape or q say no.

`ConfirmDialog(title, question, yes="Replace")` dismisses with True or False; the saved-slices
dialog asks with it before replacing or deleting a slice, the stale actions before a bulk mark.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Label, Static

from ..base import BaseModal


class ConfirmDialog(BaseModal):
    """Ask before an action that replaces, deletes or touches many things; returns True or False."""

    DEFAULT_CSS = """
    ConfirmDialog #confirm { width: 64; }
    ConfirmDialog #confirm-body { height: auto; margin-bottom: 1; }
    ConfirmDialog .dialog-buttons { height: 1; align-horizontal: right; }
    ConfirmDialog .dialog-buttons Button { margin-left: 1; min-width: 10; }
    """

    HELP_TITLE = "Confirm"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes", tooltip="Go ahead"),
        Binding("n", "answer(False)", "No", id="confirm.no", tooltip="Do nothing"),
        Binding("escape", "answer(False)", "Cancel", id="confirm.cancel", show=False, tooltip="Do nothing"),
        Binding("q", "answer(False)", "Cancel", id="confirm.cancel-q", show=False, tooltip="Do nothing (not quit)"),
    ]

    def __init__(self, title: str, question: Content | str, *, yes: str = "Yes", no: str = "Cancel") -> None:
        super().__init__()
        self.title_text = title
        self.question = question if isinstance(question, Content) else Content(question)
        self.yes, self.no = yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm", classes="dialog"):
            yield Label(Content(self.title_text), classes="dialog-title")
            yield Static(self.question, id="confirm-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes} (y)", id="confirm-yes", variant="warning", compact=True)
                yield Button(f"{self.no} (n)", id="confirm-no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#confirm-yes", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")
