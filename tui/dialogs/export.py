"""Export (`e`): ask for a file path; the extension picks the format (csv, jsonl, parquet, md).

The default path is `<runs_dir>/.qa-inspect/exports/<slice-or-run>.csv` (beside the database when
the app has no runs folder), made unique so an earlier export is never replaced unasked. Served to a
browser (`qa-inspect serve`), a path is taken relative to that folder and may not leave it.
The browser writes the file in a worker (`core.export.export_items`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Label, Static

from qa_inspect.core.query import FORMATS, ExportError, export_format

from ..base import BaseModal, qa_app
from ..present import plural
from ..text import clean
from .served import inside, outside_message

_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\:*?\"<>|\s]+")


def safe_stem(name: str) -> str:
    """A file name stem from a slice or run name: no separators, spaces or control characters."""
    stem = _UNSAFE.sub("-", name).strip("-.")
    return stem[:80] or "items"


def export_dir(runs_dir: Path | None, db_path: Path) -> Path:
    return runs_dir / ".qa-inspect" / "exports" if runs_dir is not None else db_path.parent / "exports"


def default_path(folder: Path, name: str, ext: str = ".csv") -> Path:
    """`folder/name.csv`, or `name-2.csv`, `name-3.csv` … when taken."""
    stem = safe_stem(name)
    path = folder / f"{stem}{ext}"
    n = 2
    while path.exists():
        path = folder / f"{stem}-{n}{ext}"
        n += 1
    return path


class ExportDialog(BaseModal):
    """Returns the chosen path, or None when cancelled."""

    HELP_TITLE = "Export"
    DEFAULT_CSS = """
    ExportDialog #export-what { margin-bottom: 1; }
    ExportDialog #export-msg { height: auto; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="export.cancel", tooltip="Close without exporting"),
    ]

    def __init__(self, default: Path, items: int | None, what: str, *, error: str | None = None) -> None:
        super().__init__()
        self.default = default
        self.items = items
        self.what = what
        self.error = error
        """Why the last export to `default` failed: the dialog comes back with the path kept."""

    def compose(self) -> ComposeResult:
        count = "the items" if self.items is None else plural(self.items, "item")
        with Vertical(id="export", classes="dialog"):
            yield Label(Content("Export the item list"), classes="dialog-title")
            yield Static(Content.assemble(
                (count, "bold $accent"), (" of ", "$foreground-muted"), clean(self.what),
                ("\ncolumns shown plus every gold and score · the extension picks the format", "$foreground-muted"),
            ), id="export-what")
            yield Input(str(self.default), placeholder="file path (.csv .jsonl .parquet .md)", id="export-path",
                        compact=True)
            yield Static(id="export-msg")

    def on_mount(self) -> None:
        box = self.query_one(Input)
        box.focus()
        box.cursor_position = len(box.value)
        if self.error:
            self.query_one("#export-msg", Static).update(Content.assemble(
                ("Export failed: ", "bold $error"), (clean(self.error), "$error"),
                ("\nedit the path and press enter again · escape cancels", "$foreground-muted")))
        else:
            self._check(box.value)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        if self.error and event.value.strip() == str(self.default):
            return  # the failed path, not edited yet: keep saying why it failed
        self._check(event.value)

    def _check(self, value: str) -> bool:
        msg = self.query_one("#export-msg", Static)
        text = value.strip()
        if not text:
            msg.update(Content.styled("A file path, please.", "$error"))
            return False
        path = self._path(text)
        if path is None:
            msg.update(Content.styled(outside_message(self._root()), "$error"))
            return False
        try:
            fmt = export_format(path)
        except ExportError:
            exts = " ".join(sorted(FORMATS))
            msg.update(Content.styled(f"Unknown extension {clean(path.suffix) or '(none)'}: use {exts}", "$error"))
            return False
        note: list[tuple[str, str]] = [("format ", "$foreground-muted"), (fmt, "bold")]
        if path.is_dir():
            msg.update(Content.styled("That is a folder: add a file name.", "$error"))
            return False
        if path.exists():
            note.append(("  · exists: it will be replaced", "$warning"))
        elif not path.parent.exists():
            note.append((f"  · folder {clean(str(path.parent))} will be created", "$foreground-muted"))
        note.append(("  · enter exports · escape cancels", "$foreground-muted"))
        msg.update(Content.assemble(*note))
        return True

    def _root(self) -> Path:
        app = qa_app(self.app)
        return export_dir(app.runs_dir, app.db_path)

    def _path(self, text: str) -> Path | None:
        """The typed path; in served mode relative to the export folder and never outside it (None)."""
        if not qa_app(self.app).served:
            return Path(text).expanduser()
        return inside(self._root(), text)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if self._check(event.value):
            self.dismiss(self._path(event.value.strip()))

    def action_cancel(self) -> None:
        self.dismiss(None)
