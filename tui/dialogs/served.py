"""Served mode (`qa-inspect serve`): the rules that keep a browser session inside the runs folder,
and the dialog that asks who is annotating.

A served app is reached by people who do not own the machine, so every path it takes from them
goes through `inside`: exports only under the runs folder's export folder, files read only from
the runs folder. All sessions run as the same system user, so the annotator name stored per system
user cannot tell them apart: the name asked first lives in this session's process environment
(`AUTHOR_ENV`), which `core.store.author_for` reads before the stored name.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Label, Static

from qa_inspect.core.store import AUTHOR_ENV

from ..base import BaseModal

__all__ = ["SERVED_ENV", "AnnotatorDialog", "inside", "outside_message"]

SERVED_ENV = "QA_INSPECT_SERVED"
"""Set to "1" in the environment of every app process `qa-inspect serve` starts."""


def inside(root: Path, text: str) -> Path | None:
    """The path `text` names, relative to `root` unless absolute, symlinks resolved; None when
    it leads outside `root` (`..`, an absolute path elsewhere, a link out). `~` is not expanded:
    it would be the server's home."""
    base = root.resolve()
    path = (base / text.strip()).resolve()
    return path if path == base or path.is_relative_to(base) else None


def outside_message(root: Path) -> str:
    """What a served session is told when a path leaves `root`."""
    return f"In the browser view, paths stay inside {root.name or root}/ (relative to it)."


class AnnotatorDialog(BaseModal):
    """The first thing a served session shows (and what "Set annotator name…" opens there): who is
    annotating. The name goes into this process's `AUTHOR_ENV`; the dialog dismisses with it."""

    HELP_TITLE = "Annotator name"
    DEFAULT_CSS = """
    AnnotatorDialog #annotator { width: 64; }
    AnnotatorDialog #annotator-name { margin: 1 0; }
    AnnotatorDialog #annotator-msg { height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="annotator", classes="dialog"):
            yield Label(Content("Who is annotating?"), classes="dialog-title")
            yield Static(Content.styled(
                "Your name is written with every flag, label and alias you make in this browser session.",
                "$foreground-muted"))
            yield Input(os.environ.get(AUTHOR_ENV, ""), placeholder="your name (enter)", id="annotator-name",
                        compact=True)
            yield Static(id="annotator-msg")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        name = " ".join(event.value.split())
        if not name or not name.isprintable():
            self.query_one("#annotator-msg", Static).update(Content.styled("A name, please.", "$error"))
            return
        os.environ[AUTHOR_ENV] = name  # this session's process only: each browser tab is its own
        self.dismiss(name)
