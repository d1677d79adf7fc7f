"""The item browser's export (`e`): the item list of a filter to CSV, JSONL, Parquet or Markdown,
written in a worker; a failed export comes back to the dialog with the typed path and the reason."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from qa_inspect.core.query import ExportError, Filter, export_items

from ..base import BaseScreen
from ..dialogs import ExportDialog, default_path, export_dir
from ..present import plural
from ..text import clean


def export_name(f: Filter, slice_name: str | None, slice_filter: Filter | None) -> str:
    """The file's name: the saved slice shown (while its items are), else run, compare run, outcome."""
    if slice_name and slice_filter is not None and slice_filter.same_items(f):
        return slice_name
    name = f.run or f.dataset or "items"
    if f.compare:
        name += f"-vs-{f.compare}"
    if f.outcome:
        name += f"-{f.outcome}"
    return name


class ItemExport:
    """Asks where, writes in a worker of the screen, reports the rows written or why not."""

    def __init__(self, host: BaseScreen) -> None:
        self.host = host

    def ask(self, f: Filter, name: str, total: int | None) -> None:
        """The export dialog for `f`, the file named `name` in the export folder."""
        app = self.host.qa_app
        self._ask(default_path(export_dir(app.runs_dir, app.db_path), name), f, clean(name), total)

    def _ask(self, default: Path, f: Filter, what: str, total: int | None, error: str | None = None) -> None:
        def done(path: Path | None) -> None:
            if path is not None:
                self.host.notify(f"Exporting to {path} …", markup=False, timeout=2)
                self.host.run_worker(partial(self._write, f, path, what, total), thread=True, exclusive=True,
                                     exit_on_error=False, group="export")

        self.host.app.push_screen(ExportDialog(default, total, what, error=error), done)

    def _write(self, f: Filter, path: Path, what: str, total: int | None) -> None:
        """A second export cancels this worker but not its file: the result is reported anyway.
        A folder that does not exist yet is created (the dialog said so)."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with self.host.db.connect() as conn:
                rows = export_items(conn, f, path)
        except (ExportError, OSError) as exc:
            self.host.call_later(self._failed, f, path, what, total, str(exc))
            return
        self.host.call_later(self._done, path, rows)

    def _failed(self, f: Filter, path: Path, what: str, total: int | None, error: str) -> None:
        self.host.notify(error, title="Export failed", severity="error", timeout=8, markup=False)
        self._ask(path, f, what, total, error)

    def _done(self, path: Path, rows: int) -> None:
        path = path.resolve()
        if self.host.app.is_web:  # in a browser (`qa-inspect serve`): the file is downloaded there too
            self.host.app.deliver_binary(path)
        self.host.notify(f"{plural(rows, 'row')} → {path}", title="Exported", timeout=8,
                         markup=False)


__all__ = ["ItemExport", "export_name"]
