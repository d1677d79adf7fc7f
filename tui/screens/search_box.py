"""The browser's search box (`/`): searches as you type once typing pauses (each keystroke would
start a full query), at once on enter. It owns its pause timer and tells the screen by a message."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input

PAUSE = 0.35
"""Seconds of no typing before the search runs."""


class SearchBox(Input):
    """Hidden until `/`; stays shown while a search is applied."""

    pause: float = PAUSE
    """Seconds of no typing before the search runs (a test under load sets a longer one)."""

    @dataclass
    class Search(Message):
        """Search for `text` (`submitted`: enter was pressed, the box hands the focus back)."""

        text: str
        submitted: bool

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder="/ search question, golds, prediction (as you type; escape closes)",
                         id=id, classes="hidden", compact=True)
        self._timer: Timer | None = None

    def open(self, text: str) -> None:
        """Show the box holding the search applied now, and type into it."""
        self.remove_class("hidden")
        self.value = text
        self.focus()

    def close(self, applied: str) -> None:
        """Escape: the box hides unless a search is applied (it shows what the rows are)."""
        if not applied:
            self.add_class("hidden")

    def clear(self) -> None:
        self._stop()
        self.value = ""
        self.add_class("hidden")

    @property
    def pending(self) -> bool:
        """A search waits for typing to pause."""
        return self._timer is not None

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._stop()
        text = event.value.strip()
        self._timer = self.set_timer(self.pause, lambda: self._search(text))

    def _search(self, text: str) -> None:
        self._timer = None
        self.post_message(self.Search(text, False))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._stop()
        self.post_message(self.Search(event.value.strip(), True))


__all__ = ["SearchBox"]
