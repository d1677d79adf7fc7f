"""Release diff (palette): ask for a new release's file, find the items whose golds it changes.

The loaded dataset it is a release of is the one sharing the most item keys with it
(`core.query.gold_changed_keys`, in a worker); the dialog dismisses with those keys as a filter
(`ReleaseFilter`), or stays open saying why the file could not be used. Served to a browser, the
file must lie inside the runs folder (`served.inside`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Label, Static

from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import ReleaseKeys, gold_changed_keys

from ..base import BaseModal, qa_app
from ..text import clean
from .served import inside, outside_message


@dataclass(frozen=True, slots=True)
class ReleaseFilter:
    """The dialog's answer: the dataset and the keys of its items whose golds the file changes."""

    dataset: str
    path: str
    keys: tuple[str, ...]


class ReleaseDialog(BaseModal):
    """Returns a `ReleaseFilter`, or None when cancelled."""

    HELP_TITLE = "Release diff"
    DEFAULT_CSS = """
    ReleaseDialog #release-msg { height: auto; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="release.cancel", tooltip="Close without filtering"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="release", classes="dialog"):
            yield Label(Content("Release diff: items whose gold changed"), classes="dialog-title")
            yield Input(placeholder="path of the new release's dataset file", id="release-path", compact=True)
            yield Static(Content.styled("enter compares · escape cancels", "$foreground-muted"), id="release-msg")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            self._say("A file path, please.")
            return
        path = self._path(text)
        if path is None:
            self._say(outside_message(self._root()))
            return
        self.query_one("#release-msg", Static).update(Content.styled("reading …", "$foreground-muted"))
        self._compare(path)

    def _root(self) -> Path:
        app = qa_app(self.app)
        return app.runs_dir if app.runs_dir is not None else app.db_path.parent

    def _path(self, text: str) -> Path | None:
        """The typed path; in served mode relative to the runs folder and never outside it (None)."""
        return inside(self._root(), text) if qa_app(self.app).served else Path(text).expanduser()

    def _say(self, message: str) -> None:
        self.query_one("#release-msg", Static).update(Content.styled(clean(message), "$error"))

    @work(thread=True, exclusive=True, exit_on_error=False, group="release")
    def _compare(self, path: Path) -> None:
        try:
            with self.db.connect() as conn:
                got: ReleaseKeys = gold_changed_keys(conn, path)
        except QAInspectError as exc:
            self.app.call_from_thread(self._say, str(exc))
            return
        self.app.call_from_thread(self.dismiss, ReleaseFilter(got.dataset, got.path, got.keys))

    def action_cancel(self) -> None:
        self.dismiss(None)
