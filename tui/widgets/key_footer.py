"""The footer every screen shows: Textual's, with help and quit first so they never scroll away.

Textual lists the focused widget's keys, then the screen's, then the app's; at 80 columns the
app's `? Help` and `q Quit` fell off the end. Here they lead, and below 100 columns the keys are
drawn compact (no padding), which fits a screen's main keys beside them.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer

__all__ = ["FIRST_ACTIONS", "KeyFooter"]

FIRST_ACTIONS = ("help", "quit")
"""Actions of the keys shown first, in this order."""


class KeyFooter(Footer):
    def compose(self) -> ComposeResult:
        widgets = list(super().compose())
        first = sorted((w for w in widgets if getattr(w, "action", None) in FIRST_ACTIONS),
                       key=lambda w: FIRST_ACTIONS.index(getattr(w, "action", "")))
        yield from first
        yield from (w for w in widgets if w not in first)

    def on_resize(self) -> None:
        self.compact = self.size.width < 100
