"""Help: every key of every screen, the screen you came from first (posting-style)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Label, Static

from .base import BaseModal
from .stale_actions import PALETTE_ROWS

TABLE_KEYS: list[tuple[str, str]] = [
    ("↑ ↓", "move the cursor (more rows load as you go)"),
    ("pgup pgdn", "page through the items"),
    ("home end", "first / last item of the filter"),
    ("click header", "sort by that column (again: reverse)"),
    ("click row", "highlight; click again to open"),
]


def binding_rows(app: object, bindings: list[BindingType]) -> list[tuple[str, str]]:
    """(key as the footer shows it, what it does) for every binding with a description."""
    out: list[tuple[str, str]] = []
    for b in bindings:
        if not isinstance(b, Binding) or not b.description:
            continue
        key = app.get_key_display(b)  # type: ignore[attr-defined]
        out.append((key, b.tooltip or b.description))
    return out


def section(title: str, rows: list[tuple[str, str]]) -> Content:
    width = max((len(k) for k, _ in rows), default=4) + 2
    lines = [Content.styled(title, "bold $primary")]
    lines += [Content.assemble(("  " + k.ljust(width), "bold $accent"), d) for k, d in rows]
    return Content("\n").join(lines)


class HelpScreen(BaseModal):
    """All keys, grouped by screen."""

    HELP_TITLE = "Help"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", tooltip="Close the help"),
        Binding("q", "close", "Close", show=False),
        Binding("question_mark", "close", "Close", show=False),
        Binding("f1", "close", "Close", show=False),
    ]

    def __init__(self, origin: Screen[object] | None) -> None:
        super().__init__()
        self.origin = origin

    def compose(self) -> ComposeResult:
        from ..app import QAInspectApp
        from ..widgets.facet_panel import FacetList
        from .browser import BrowserScreen
        from .compare import CompareScreen
        from .detail import DetailScreen
        from .filters import FilterScreen
        from .overview import OverviewScreen
        from .slices import SlicesScreen

        screens: list[type] = [OverviewScreen, BrowserScreen, CompareScreen, DetailScreen, FilterScreen, SlicesScreen]
        if self.origin is not None and type(self.origin) in screens:
            screens.remove(type(self.origin))
            screens.insert(0, type(self.origin))
        blocks: list[Content] = []
        for cls in screens:
            rows = binding_rows(self.app, list(cls.BINDINGS))
            if cls is BrowserScreen:
                rows += TABLE_KEYS
            blocks.append(section(cls.HELP_TITLE, rows))
            if cls is BrowserScreen:
                blocks.append(section("Facet panel (F)", binding_rows(self.app, list(FacetList.BINDINGS))))
        glob = binding_rows(self.app, list(QAInspectApp.BINDINGS))
        glob.append((self.app.get_key_display(Binding(self.app.COMMAND_PALETTE_BINDING, "")), "command palette: every action by name"))
        glob += PALETTE_ROWS  # stale commands without a key (annotator name)
        blocks.insert(1, section("Everywhere", glob))
        with Vertical(id="help", classes="dialog"):
            yield Label(Content("Keys"), classes="dialog-title")
            with VerticalScroll(id="help-body"):
                yield Static(Content("\n\n").join(blocks))
            yield Label(Content.styled("escape closes", "$foreground-muted"))

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)
