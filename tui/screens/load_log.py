"""The load log: every file the last load failed on, warned about or skipped, and every run's link.

What the load printed before the app opened is gone from the terminal by then; this screen reads
it back from the database (`core.load.last_load`), so "0 runs" on the overview always has its
reasons one key away.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Header, Static

from qa_inspect.core.load import LoadLog, LogEntry, last_load

from ..stale import UNDO_BINDINGS, StaleScreen
from ..widgets import KeyFooter
from ..present import count, plural
from ..text import clean, truncate

SEVERITY_MARK = {"error": "✖ error", "warning": "⚠ warning", "skipped": "· skipped", "removed": "· removed",
                 "run": "  run", "dataset": "  dataset"}


@dataclass
class LoadLogLoaded(Message):
    log: LoadLog | None


def log_title(log: LoadLog | None) -> Content:
    """The screen's first line: when, and how many of each kind."""
    if log is None:
        return Content.styled("No load has been recorded in this database yet.", "$foreground-muted")
    s = log.summary
    counts = [(len(s.errors), "error", "$error"), (len(s.warnings), "warning", "$warning"),
              (len(s.skipped), "skipped", "$foreground-muted")]
    parts: list[tuple[str, str]] = [("Last load ", "$foreground-muted"), (log.at.replace("T", " ").rstrip("Z") + " UTC", "bold")]
    for n, word, style in counts:
        text = f"{count(n)} {word}" if word == "skipped" else plural(n, word)
        parts += [("  ·  ", "$foreground-muted"), (text, style if n else "$foreground-muted")]
    parts += [("  ·  ", "$foreground-muted"), (f"{plural(len(s.runs), 'run')}, {plural(len(s.datasets), 'dataset')}", "")]
    return Content.assemble(*parts)


class LoadLogScreen(StaleScreen):
    """Why a run is missing, which link to check, which file could not be read (`u`/`U` undo and
    redo the last flag or label action here too, as on every screen)."""

    HELP_TITLE = "Load log"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", id="load-log.back", tooltip="Back to the previous screen"),
        *UNDO_BINDINGS,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[LogEntry] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="load-log-title")
        yield DataTable(id="load-log-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="load-log-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("kind", key="kind")
        table.add_column("file", key="file")
        table.add_column("what happened", key="message")
        self.query_one("#load-log-title", Static).update(Content.styled("loading…", "$foreground-muted"))
        table.focus()
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="load-log")
    def load(self) -> None:
        with self.db.connect() as conn:
            log = last_load(conn)
        self.post_message(LoadLogLoaded(log))

    def on_load_log_loaded(self, message: LoadLogLoaded) -> None:
        self.rows = message.log.entries() if message.log is not None else []
        self.query_one("#load-log-title", Static).update(log_title(message.log))
        table = self.query_one(DataTable)
        table.clear()
        if message.log is None:
            return
        theme = self.app.current_theme
        styles = {"error": theme.error or "red", "warning": theme.warning or "yellow", "skipped": "dim", "removed": "dim"}
        room = self.app.size.width - 10 - 6  # the kind column and cell padding
        file_width = max(16, min(40, room // 3))
        width = max(20, room - file_width)
        for entry in self.rows:
            style = styles.get(entry.severity, "")
            table.add_row(Text(SEVERITY_MARK.get(entry.severity, entry.severity), style=style),
                          Text(truncate(clean(entry.path), file_width)),
                          Text(truncate(clean(entry.message), width), style=style if entry.severity in ("error", "warning") else ""))
        self._show_detail(0)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    def _show_detail(self, row: int) -> None:
        """The highlighted row in full (the table cuts long messages)."""
        entries = self.rows
        detail = self.query_one("#load-log-detail", Static)
        if not 0 <= row < len(entries):
            detail.update("")
            return
        entry = entries[row]
        detail.update(Text.assemble((clean(entry.path), "bold"), "\n", clean(entry.message)))
