"""A small dialog listing runs; used by `r` (show a run) and `C` (run B)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from qa_inspect.core.store import runs_by_dataset

from ..base import BaseModal
from ..text import clean

NONE = "\x00none"


@dataclass
class RunsListed(Message):
    runs: list[tuple[str, str | None]]


class RunPicker(BaseModal):
    """Pick a run by name; returns the name, "" for "no run" (when allowed), None on escape.
    With `labels` it picks any named choice (the sort column, for instance)."""

    HELP_TITLE = "Run picker"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="pick-run.cancel", tooltip="Close without choosing"),
        Binding("q", "cancel", "Cancel", id="pick-run.cancel-q", show=False,
                tooltip="Close without choosing (not quit)"),
    ]

    def __init__(
        self, title: str, current: str | None, runs: list[str] | None, *, allow_none: bool = False,
        labels: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.current = current
        self.runs = runs
        self.allow_none = allow_none
        self.labels = labels or {}

    def compose(self) -> ComposeResult:
        with Vertical(id="picker", classes="dialog"):
            yield Label(Content(self.title_text), classes="dialog-title")
            yield OptionList(id="picker-list")

    def on_mount(self) -> None:
        if self.runs is None:
            self.load_runs()
        else:
            self._fill([(r, None) for r in self.runs])

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load_runs(self) -> None:
        with self.db.connect() as conn:
            runs = runs_by_dataset(conn)
        if not get_current_worker().is_cancelled:
            self.post_message(RunsListed(runs))

    def on_runs_listed(self, message: RunsListed) -> None:
        self._fill(message.runs)

    def _fill(self, runs: list[tuple[str, str | None]]) -> None:
        options = self.query_one(OptionList)
        if self.allow_none:
            options.add_option(Option(Content.styled("(no comparison)", "italic"), id=NONE))
        highlight = 0
        for name, dataset in runs:
            label = Content.assemble(
                ("● " if name == self.current else "  ", "$accent"), clean(self.labels.get(name, name)),
                (f"  {clean(dataset)}" if dataset else "", "$foreground-muted"),
            )
            if name == self.current:
                highlight = options.option_count
            options.add_option(Option(label, id=name))
        if not runs:
            options.add_option(Option(Content.styled("no runs", "italic"), disabled=True))
        options.highlighted = highlight
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        opt = event.option.id
        self.dismiss("" if opt == NONE else opt)

    def action_cancel(self) -> None:
        self.dismiss(None)
