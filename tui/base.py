"""What every screen, dialog and worker-running widget shares, and the app as they see it.

`QAApp` is the app seen from below: the database pool, the app-wide stale state and the few ways
to move between screens. `QAInspectApp` implements it; screens, dialogs and widgets reach the app
only through it (`qa_app`), so nothing below `tui.app` imports the app and the imports run one way.
Worker errors end here too: workers run with `exit_on_error=False` and `WorkerErrors` turns each
failure into one notification (`QAApp.report_worker_error`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol, cast

from textual.app import App
from textual.screen import ModalScreen, Screen
from textual.worker import Worker, WorkerState

from qa_inspect.core.query import ColumnLayout, Filter, SavedSlice

from .workers import Db

HelpRow = tuple[str, str] | tuple[str, str, str]
"""(key as the footer shows it, what it does[, binding id: what a keymap names to move it])."""


@dataclass(frozen=True, slots=True)
class HelpSection:
    """One block of the help screen: a title and its key rows."""

    title: str
    rows: list[HelpRow]


class QAApp(Protocol):
    """The app as screens, dialogs, widgets and palette providers use it (`QAInspectApp`)."""

    db: Db
    db_path: Path
    runs_dir: Path | None
    known_runs: list[tuple[str, str]]
    """(run, dataset) of every run the overview listed: the palette's "Open run …" entries."""
    exclude_stale: bool
    """Metrics mode of every screen (`m`): False = all golds, True = stale golds excluded."""
    adjudicated: bool
    """The other metrics mode (`M`): accepted aliases counted as golds; never on with `exclude_stale`."""
    stale_version: int
    """Bumped by every stale-flag write, so screens below redraw when shown again."""
    served: bool
    """Served to a browser (`qa-inspect serve`): paths stay inside the runs folder (`dialogs.served`)."""

    def report_worker_error(self, worker: Worker[Any]) -> None: ...

    def set_session_author(self, name: str | None) -> None:
        """Served: the annotator of this browser session was (re)named (`dialogs.AnnotatorDialog`)."""
        ...

    def open_browser(self, f: Filter, *, slice_name: str | None = None) -> None:
        """Push an item browser on `f` (`slice_name`: the saved slice it shows)."""
        ...

    def open_run(self, run: str) -> None:
        """Open a run's items from anywhere (palette, `r` on the overview)."""
        ...

    def open_slice(self, saved: SavedSlice) -> None:
        """Open a saved slice in a new item browser."""
        ...

    def show_slices(self) -> None:
        """The saved slices list (`ctrl+o`); the chosen one opens in the browser."""
        ...

    def help_sections(self, origin: Screen[Any] | None) -> list[HelpSection]:
        """Every key of every screen, the screen `origin` first (the help screen shows them)."""
        ...

    def remember_filter(self, f: Filter) -> None:
        """The browser's filter changed: the next start opens on it."""
        ...

    column_layouts: dict[str, ColumnLayout]
    """Per dataset: the item table's hidden columns and their order."""

    def remember_columns(self, dataset: str, layout: ColumnLayout) -> None:
        """The user chose the item table's columns for `dataset` (kept for the next start)."""
        ...

    def remember_preferences(self) -> None:
        """Keep the theme, metrics mode and last filter for the next start (in a worker)."""
        ...


def qa_app(app: App[Any]) -> QAApp:
    """`app` as the `QAApp` it is (palette providers and widgets hold a plain `App`)."""
    return cast(QAApp, app)


class WorkerErrors:
    """Workers run with exit_on_error=False; their errors end up here, as one notification."""

    app: Any

    @property
    def qa_app(self) -> QAApp:
        return qa_app(self.app)

    @property
    def db(self) -> Db:
        return self.qa_app.db

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.qa_app.report_worker_error(event.worker)


class HelpEntries:
    """What a screen or dialog contributes to the help screen besides its own bindings."""

    HELP_TITLE: ClassVar[str] = ""
    """Section title of this screen's keys in the help screen."""
    HELP_EXTRA: ClassVar[Sequence[HelpRow]] = ()
    """Rows for keys that are not bindings of the screen (mouse, a table's own keys)."""
    HELP_WIDGETS: ClassVar[Sequence[tuple[str, type[Any]]]] = ()
    """(section title, widget class): widgets whose bindings get a section after the screen's."""


class BaseScreen(WorkerErrors, HelpEntries, Screen[Any]):
    """A full screen of the app."""


class BaseModal(WorkerErrors, HelpEntries, ModalScreen[Any]):
    """A dialog over a screen."""


__all__ = [
    "BaseModal",
    "BaseScreen",
    "HelpEntries",
    "HelpRow",
    "HelpSection",
    "QAApp",
    "WorkerErrors",
    "qa_app",
]
