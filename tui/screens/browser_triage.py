"""The item browser's triage actions: compare screen, facet panel, saved slices, export.

A mixin of `BrowserScreen`, kept apart so the browser's own file stays about paging and filters.
It relies on the browser's `filter`, `info`, `total`, `set_filter` and its `ItemTable`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App
from textual.message import Message

from qa_inspect.core.query import ExportError, Filter, export_items
from qa_inspect.core.report import BrowseInfo

from ..base import QAApp
from ..dialogs import ExportDialog, SaveSliceDialog, default_path, export_dir
from ..text import clean
from ..widgets import FacetList, FacetPanel, ItemTable
from ..workers import Db
from .compare import open_compare
from .compare_parts import scope_of


@dataclass
class ExportDone(Message):
    """An export finished: its rows, or why it failed."""

    path: Path
    rows: int | None
    error: str | None = None
    filter: Filter | None = None
    """What was exported (to ask again, path kept, after a failure)."""
    what: str = ""


class TriageActions:
    """Mixed into `BrowserScreen` (before `BaseScreen`)."""

    filter: Filter
    info: BrowseInfo | None
    total: int | None
    slice_name: str | None
    """The saved slice this browser shows (opened from it, or saved here); export names files after it."""
    slice_filter: Filter | None

    if TYPE_CHECKING:  # provided by BrowserScreen / BaseScreen
        app: App[Any]
        db: Db
        qa_app: QAApp

        def set_filter(self, f: Filter, *, keep_item: int | None = None) -> None: ...
        def rebuild_columns(self, *, refill: bool = True) -> None: ...
        def query_one(self, *args: Any, **kwargs: Any) -> Any: ...
        def notify(self, *args: Any, **kwargs: Any) -> None: ...
        def post_message(self, message: Message) -> bool: ...
        def follow_preview(self) -> None: ...

    # -- compare -----------------------------------------------------------------------------
    def action_compare(self) -> None:
        """`c`: the compare screen for this run (B = the compare run, else picked)."""
        f = self.filter
        if not f.run:
            self.notify("Choose a run first (r): the comparison is run A against run B.", severity="warning")
            return
        if self.info is None:
            return
        scope, dropped = scope_of(f)
        if dropped:
            self.notify("The comparison ignores the filters on the run's scores (EM, F1, refused, prediction "
                        "length): its outcome table splits the items by them.", timeout=6)
        open_compare(self, f.run, list(self.info.runs), run_b=f.compare, scope=scope, done=self._compared)  # type: ignore[arg-type]

    def _compared(self, result: Filter | None) -> None:
        """`b` on the compare screen: keep this filter, show runs A and B as compared there."""
        if result is None:
            return
        f = self.filter
        new = f.with_(run=result.run, compare=result.compare)
        if (new.run, new.compare) != (f.run, f.compare):
            new = new.with_(outcome=None, outcome_threshold=None, only_disagree=False)
        self.set_filter(new)

    # -- facets ------------------------------------------------------------------------------
    def action_toggle_facets(self) -> None:
        """`F`: show the facet panel and move into it; again: hide it."""
        panel: FacetPanel = self.query_one(FacetPanel)
        table: ItemTable = self.query_one(ItemTable)
        if panel.shown and not panel.query_one(FacetList).has_focus:
            panel.query_one(FacetList).focus()
            return
        panel.follow(self.filter)
        panel.show(not panel.shown)
        (panel.query_one(FacetList) if panel.shown else table).focus()
        self.follow_preview()  # the facet panel takes the split view's place while shown

    def on_item_table_resized(self, message: ItemTable.Resized) -> None:
        """The panel took or gave back width, or the terminal changed: once the table has its new
        size, lay its columns out for it (the screen's own resize handler sees the old size)."""
        table: ItemTable = self.query_one(ItemTable)
        if self.info is None or not table.cols:
            return
        self.rebuild_columns()
        if table.win_rows:
            table.show_window(table.win_start, table.win_rows, table.absolute_cursor, table.win_total)

    def follow_facets(self) -> None:
        """Every filter change: the panel counts again (debounced, in its worker) if shown."""
        self.query_one(FacetPanel).follow(self.filter)

    def on_facet_panel_selected(self, message: FacetPanel.Selected) -> None:
        self.set_filter(message.filter)

    def on_facet_panel_leave(self, message: FacetPanel.Leave) -> None:
        self.query_one(ItemTable).focus()

    # -- saved slices ------------------------------------------------------------------------
    def action_save_slice(self) -> None:
        """`ctrl+s`: name the current filter."""
        f = self.filter

        def done(name: str | None) -> None:
            if name:
                self.slice_name, self.slice_filter = name, f
                self.notify(f"Saved slice {clean(name)} (ctrl+o lists saved slices).", markup=False)

        self.app.push_screen(SaveSliceDialog(f, self.slice_name or ""), done)

    # -- export ------------------------------------------------------------------------------
    def export_name(self) -> str:
        f = self.filter
        if self.slice_name and self.slice_filter is not None and self.slice_filter.same_items(f):
            return self.slice_name
        name = f.run or f.dataset or "items"
        if f.compare:
            name += f"-vs-{f.compare}"
        if f.outcome:
            name += f"-{f.outcome}"
        return name

    def action_export(self) -> None:
        """`e`: write the current item list to a file (format from the extension)."""
        app = self.qa_app
        folder = export_dir(app.runs_dir, app.db_path)
        f = self.filter
        what = clean(self.export_name())

        self._ask_export(default_path(folder, self.export_name()), f, what)

    def _ask_export(self, default: Path, f: Filter, what: str, error: str | None = None) -> None:
        """The export dialog; after a failed export it comes back with the typed path and the reason."""

        def done(path: Path | None) -> None:
            if path is not None:
                self.notify(f"Exporting to {path} …", markup=False, timeout=2)
                self.export(f, path, what)

        self.app.push_screen(ExportDialog(default, self.total, what, error=error), done)

    @work(thread=True, exclusive=True, exit_on_error=False, group="export")
    def export(self, f: Filter, path: Path, what: str) -> None:
        """A second export cancels this worker but not its file: the result is reported anyway.
        A folder that does not exist yet is created (the dialog said so)."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with self.db.connect() as conn:
                rows = export_items(conn, f, path)
            msg = ExportDone(path, rows, filter=f, what=what)
        except (ExportError, OSError) as exc:
            msg = ExportDone(path, None, str(exc), filter=f, what=what)
        self.post_message(msg)

    def on_export_done(self, message: ExportDone) -> None:
        if message.error:
            self.notify(message.error, title="Export failed", severity="error", timeout=8, markup=False)
            if message.filter is not None:
                self._ask_export(message.path, message.filter, message.what, message.error)
            return
        path = message.path.resolve()
        rows = message.rows or 0
        self.notify(f"{rows:,} row{'s' if rows != 1 else ''} → {path}", title="Exported", timeout=8, markup=False)
        if self.app.is_web:  # in a browser (`qa-inspect serve`): the file is downloaded there too
            self.app.deliver_binary(path)

