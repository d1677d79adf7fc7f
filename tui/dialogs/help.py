"""Help: every key of every screen, the screen you came from first (posting-style), searchable.

The sections come from the app (`QAApp.help_sections`), which knows every screen; this dialog only
lays them out and filters them: what you type narrows the rows to those whose key, description or
binding id holds every word typed (a section without a match goes), so "undo" or "ctrl+s" finds
its keys on every screen at once.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, Label, Static

from ..base import BaseModal, HelpRow, HelpSection


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


def matching(sections: list[HelpSection], query: str) -> list[HelpSection]:
    """The sections cut to the rows holding every word of `query` (case aside) in their key,
    description, binding id or section title; sections left empty are dropped."""
    words = query.casefold().split()
    if not words:
        return sections
    out: list[HelpSection] = []
    for s in sections:
        rows = [r for r in s.rows if all(w in " ".join((s.title, *r)).casefold() for w in words)]
        if rows:
            out.append(HelpSection(s.title, rows))
    return out


class HelpScreen(BaseModal):
    """All keys, grouped by screen; typing filters them."""

    HELP_TITLE = "Help"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="help.close", tooltip="Close the help"),
        Binding("f1", "close", "Close", id="help.close-f1", show=False),
        Binding("ctrl+b", "toggle_ids", "Binding ids", id="help.toggle-ids",
                tooltip="Show each key's binding id (what a keymap in config.toml names) ↔ what it does"),
        Binding("pageup", "scroll(-10)", "Page up", id="help.page-up", show=False, tooltip="Scroll the list up a page"),
        Binding("pagedown", "scroll(10)", "Page down", id="help.page-down", show=False,
                tooltip="Scroll the list down a page"),
        Binding("up", "scroll(-1)", "Up", id="help.line-up", show=False, tooltip="Scroll the list up a line"),
        Binding("down", "scroll(1)", "Down", id="help.line-down", show=False, tooltip="Scroll the list down a line"),
    ]

    def __init__(self, origin: Screen[Any] | None) -> None:
        super().__init__()
        self.origin = origin
        self.ids = False
        self.query_text = ""

    def _body(self) -> Content:
        shown = matching(self.qa_app.help_sections(self.origin), self.query_text)
        if not shown:
            return Content.styled(f"No key matches “{self.query_text}”.", "$warning")
        return Content("\n\n").join(section(s.title, s.rows, ids=self.ids) for s in shown)

    def compose(self) -> ComposeResult:
        with Vertical(id="help", classes="dialog"):
            yield Label(Content("Keys"), classes="dialog-title")
            yield Input(placeholder="type to search keys (undo, ctrl+s, stale …)", id="help-search", compact=True)
            with VerticalScroll(id="help-body", can_focus=False):
                yield Static(self._body(), id="help-text")
            yield Label(Content.styled("escape closes · ctrl+b shows binding ids (for a keymap in config.toml)",
                                       "$foreground-muted"))

    @on(Input.Changed, "#help-search")
    def _search(self, event: Input.Changed) -> None:
        self.query_text = event.value
        self.query_one("#help-text", Static).update(self._body())
        self.query_one("#help-body", VerticalScroll).scroll_home(animate=False)

    def action_toggle_ids(self) -> None:
        self.ids = not self.ids
        self.query_one("#help-text", Static).update(self._body())

    def action_scroll(self, amount: int) -> None:
        """Lines (±1) or pages (±10) of the list: the search field keeps the focus while it scrolls."""
        body = self.query_one("#help-body", VerticalScroll)
        if abs(amount) > 1:
            (body.scroll_page_down if amount > 0 else body.scroll_page_up)(animate=False)
        else:
            body.scroll_relative(y=amount, animate=False)

    def on_mount(self) -> None:
        self.query_one("#help-search", Input).focus()

    def action_close(self) -> None:
        self.dismiss(None)
