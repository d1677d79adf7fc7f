"""Help: every key of every screen, the screen you came from first (posting-style).

The sections come from the app (`QAApp.help_sections`), which knows every screen; this dialog only
lays them out, so it imports no screen.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Label, Static

from ..base import BaseModal, HelpRow


def section(title: str, rows: list[HelpRow]) -> Content:
    """A titled block of key rows, the keys in one column; each binding's id (what a keymap in
    the config file names) muted after what it does."""
    width = max((len(row[0]) for row in rows), default=4) + 2
    lines = [Content.styled(title, "bold $primary")]
    for row in rows:
        ident = row[2] if len(row) > 2 else ""
        lines.append(Content.assemble(("  " + row[0].ljust(width), "bold $accent"), row[1],
                                      (f"  {ident}" if ident else "", "$foreground-muted")))
    return Content("\n").join(lines)


class HelpScreen(BaseModal):
    """All keys, grouped by screen."""

    HELP_TITLE = "Help"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="help.close", tooltip="Close the help"),
        Binding("q", "close", "Close", id="help.close-q", show=False),
        Binding("question_mark", "close", "Close", id="help.close-question-mark", show=False),
        Binding("f1", "close", "Close", id="help.close-f1", show=False),
    ]

    def __init__(self, origin: Screen[Any] | None) -> None:
        super().__init__()
        self.origin = origin

    def compose(self) -> ComposeResult:
        blocks = [section(s.title, s.rows) for s in self.qa_app.help_sections(self.origin)]
        with Vertical(id="help", classes="dialog"):
            yield Label(Content("Keys"), classes="dialog-title")
            with VerticalScroll(id="help-body"):
                yield Static(Content("\n\n").join(blocks))
            yield Label(Content.styled("escape closes", "$foreground-muted"))

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)
