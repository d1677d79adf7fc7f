"""The overview's run filter by settings (model, prompt, shots …): which runs the tables list.

Values of one setting are OR-ed, different settings AND-ed, as in the item browser's facets.
Returns the chosen (key, value) pairs, () for "every run", None on escape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Label, SelectionList
from textual.widgets.selection_list import Selection

from ..base import BaseModal
from ..text import clean

__all__ = ["RunSettingsFilter", "SettingsList", "matches"]


def matches(settings: Mapping[str, str], chosen: Sequence[tuple[str, str]]) -> bool:
    """Whether a run with `settings` passes the chosen (key, value) pairs."""
    wanted: dict[str, set[str]] = {}
    for key, value in chosen:
        wanted.setdefault(key, set()).add(value)
    return all(settings.get(key) in values for key, values in wanted.items())


class SettingsList(SelectionList[tuple[str, str]]):
    """Space ticks (as in any selection list); enter applies the dialog instead of ticking."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "screen.apply", "Apply", id="run-settings.list-apply", show=False,
                tooltip="List only the runs with the ticked values"),
    ]


class RunSettingsFilter(BaseModal):
    """Tick setting values; Enter applies, `x` clears, escape cancels."""

    HELP_TITLE = "Runs by setting"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "apply", "Apply", id="run-settings.apply", tooltip="List only the runs with the ticked values"),
        Binding("x", "clear", "Every run", id="run-settings.clear", tooltip="Untick everything: list every run"),
        Binding("escape", "cancel", "Cancel", id="run-settings.cancel", tooltip="Close without changing the list"),
    ]

    def __init__(self, values: Mapping[str, Sequence[str]], chosen: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.values = values
        self.chosen = set(chosen)

    def compose(self) -> ComposeResult:
        with Vertical(id="run-settings", classes="dialog"):
            yield Label(Content("Runs by setting · space ticks, enter applies, x clears"), classes="dialog-title")
            options = [
                Selection(Content.assemble((f"{clean(key)} ", "$foreground-muted"), clean(value)), (key, value),
                          (key, value) in self.chosen)
                for key, vals in sorted(self.values.items()) for value in vals
            ]
            yield SettingsList(*options, id="run-settings-list")

    def action_apply(self) -> None:
        self.dismiss(tuple(self.query_one(SettingsList).selected))

    def action_clear(self) -> None:
        self.query_one(SettingsList).deselect_all()

    def action_cancel(self) -> None:
        self.dismiss(None)
