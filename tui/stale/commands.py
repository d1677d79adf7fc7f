"""Stale commands of the palette that have no key of their own."""

from __future__ import annotations

from ..commands import Entry, EntriesProvider
from .browser import BrowserStale
from .form import AuthorForm


class StaleCommands(EntriesProvider):
    """Set the annotator name; clear the browser's selection (while there is one)."""

    def _entries(self) -> list[Entry]:
        out: list[Entry] = [
            ("Set annotator name…", "the name written with your stale flags (default: the system user)",
             lambda: self.app.push_screen(AuthorForm())),
        ]
        screen = self.screen
        if isinstance(screen, BrowserStale) and (screen.selected_ids or screen.select_filter is not None):
            out.append(("Clear selection", "unselect every selected item", screen.stale_clear_selection))
        return out
