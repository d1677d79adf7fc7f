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


def section(title: str, rows: list[HelpRow], *, ids: bool = False) -> Content:
    """A titled block of key rows, the keys in one column; with `ids`, each key's binding id (what
    the config file's keymap names) instead of what it does."""
    width = max((len(row[0]) for row in rows), default=4) + 2
    lines = [Content.styled(title, "bold $primary")]
    for row in rows:
        ident = row[2] if len(row) > 2 else ""
        what = (ident or "(palette only)", "$foreground-muted") if ids else (row[1], "")
        lines.append(Content.assemble(("  " + row[0].ljust(width), "bold $accent"), what))
    return Content("\n").join(lines)


class HelpScreen(BaseModal):
    """All keys, grouped by screen."""

    HELP_TITLE = "Help"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="help.close", tooltip="Close the help"),
        Binding("q", "close", "Close", id="help.close-q", show=False),
        Binding("question_mark", "close", "Close", id="help.close-question-mark", show=False),
        Binding("f1", "close", "Close", id="help.close-f1", show=False),
        Binding("i", "toggle_ids", "Binding ids", id="help.toggle-ids",
                tooltip="Show each key's binding id (what a keymap in config.toml names) ↔ what it does"),
    ]

    def __init__(self, origin: Screen[Any] | None) -> None:
        super().__init__()
        self.origin = origin
        self.ids = False

    def _body(self) -> Content:
        return Content("\n\n").join(section(s.title, s.rows, ids=self.ids) for s in self.qa_app.help_sections(self.origin))

    def compose(self) -> ComposeResult:
        with Vertical(id="help", classes="dialog"):
            yield Label(Content("Keys"), classes="dialog-title")
            with VerticalScroll(id="help-body"):
                yield Static(self._body(), id="help-text")
            yield Label(Content.styled("escape closes · i shows binding ids (for a keymap in config.toml)",
                                       "$foreground-muted"))

    def action_toggle_ids(self) -> None:
        self.ids = not self.ids
        self.query_one("#help-text", Static).update(self._body())

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)
