"""The qa-inspect Textual app: runs overview → item browser → item detail.

A thin layer over `qa_inspect.core`: screens run core functions in thread workers and render what
comes back. `QAInspectApp(db_path, runs_dir)` opens an already loaded database.

The top of the UI's imports (only `tui.cli` imports it): it knows every screen and implements
`tui.base.QAApp`, the app as everything below it sees it — navigation between screens, the help
sections, the stale mode, the one place worker errors are reported.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.actions import ActionParseResult
from textual.app import App
from textual.dom import DOMNode
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.theme import Theme
from textual.worker import Worker

from qa_inspect.core.query import (
    ColumnLayout, Filter, Preferences, SavedSlice, load_preferences, save_preferences, unknown_values, view_command,
)
from qa_inspect.core.load import build_search_index
from qa_inspect.core.store import pending_rows
from qa_inspect.core.store import AUTHOR_ENV, read_user_config

from .base import BaseModal, BaseScreen, HelpSection
from .commands import ActionsProvider, RunsProvider, binding_rows
from .dialogs import SERVED_ENV, AnnotatorDialog, FilterScreen, HelpScreen, SlicesProvider, SlicesScreen
from .screens import (
    BrowserScreen,
    CompareScreen,
    DetailScreen,
    DistributionScreen,
    LoadLogScreen,
    OverviewScreen,
    PaperTableScreen,
    ReviewQueueScreen,
    SliceFinderScreen,
)
from .stale import PALETTE_ROWS, StaleCommands
from .present import plural
from .text import clean, copy_text
from .workers import Db

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

QA_THEME = Theme(
    name="qa-inspect",
    primary="#5FAFD7",
    secondary="#87AFAF",
    accent="#FFAF5F",
    warning="#E5C07B",
    error="#E06C75",
    success="#98C379",
    foreground="#D8DEE9",
    background="#16181D",
    surface="#1E2128",
    panel="#272B33",
    dark=True,
)
"""The built-in theme; Textual's themes stay available through the palette."""


class DaemonExecutor(ThreadPoolExecutor):
    """Runs each thread worker on its own daemon thread. Textual runs thread workers on the event
    loop's default executor, whose threads the interpreter joins at exit: one slow query or load
    kept the process alive after `q`, on a screen that had already gone. Workers are cancelled on
    quit (`Worker.cancel`, checked by the long jobs between steps); what is still running then is
    abandoned (SQLite rolls an unfinished write back)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # noqa: BLE001  (handed to the awaiting worker, which reports it)
                future.set_exception(exc)

        threading.Thread(target=run, name="qa-inspect-worker", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Nothing to join: the threads are daemons, abandoned when the app has quit."""


@dataclass
class SearchIndexNote(Message):
    text: str


@dataclass
class PreferencesLoaded(Message):
    prefs: Preferences


HELP_SCREENS: tuple[type[BaseScreen] | type[BaseModal], ...] = (
    OverviewScreen, BrowserScreen, CompareScreen, DetailScreen, DistributionScreen, LoadLogScreen, ReviewQueueScreen,
    SliceFinderScreen, PaperTableScreen, FilterScreen,
    SlicesScreen,
)
"""The screens whose keys the help lists, in this order (the one help was opened from first)."""

SERVED_OFF_ACTIONS: dict[str, str] = {
    "open_evidence": "Links do not open from the browser view: y copies the address.",
}
"""Actions a served session may not run (they would act on the server's machine), and what it is told."""


class QAInspectApp(App[None]):
    """Error analysis of QA runs: which run fails where, and why each item scored what it did."""

    CSS_PATH = "app.tcss"
    TITLE = "qa-inspect"
    COMMANDS = App.COMMANDS | {ActionsProvider, RunsProvider, SlicesProvider, StaleCommands}
    # Not annotated: App declares them `ClassVar[...] | None`, which mypy reads as instance variables.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-normal"), (150, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", id="app.help", tooltip="Show every key of every screen"),
        Binding("f1", "help", "Help", id="app.help-f1", show=False, tooltip="Show every key of every screen"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit qa-inspect"),
        Binding("ctrl+o", "slices", "Slices", id="app.slices", show=False, tooltip="Saved slices: open or delete one"),
        Binding("L", "load_log", "Load log", id="app.load-log", show=False,
                tooltip="What the last load failed on, warned about or skipped, and every run's link"),
        Binding("R", "review_queue", "Review queue", id="app.review-queue", show=False,
                tooltip="Golds most likely gone stale, one at a time: mark, verify or skip each"),
        Binding("T", "paper_table", "Paper table", id="app.paper-table", show=False,
                tooltip="The dataset's runs as a paper table with bars: rows, columns, best over a setting"),
        Binding("Y", "copy_view", "Copy view", id="app.copy-view", show=False,
                tooltip="Copy a qa-inspect open command line that reopens this view (run, filter, sort, item)"),
    ]

    def __init__(
        self,
        db_path: Path,
        runs_dir: Path | None = None,
        *,
        theme: str | None = None,
        load_notices: list[tuple[SeverityLevel, str]] | None = None,
        remember: bool = True,
        served: bool | None = None,
        start: tuple[Filter, int | None] | None = None,
    ) -> None:
        super().__init__()
        config = read_user_config()
        self.set_keymap(config.keymap)
        self.served = os.environ.get(SERVED_ENV) == "1" if served is None else served
        """Served to a browser (`qa-inspect serve`, which sets `SERVED_ENV`): the annotator's name is
        asked first, paths stay inside the runs folder, no link opens (`dialogs.served`)."""
        self.remember = remember and not self.served
        """Restore the user's theme, metrics mode and last browser filter, and keep them as they change
        (not when served: every session shares the system user those are stored for)."""
        self.last_filter: Filter | None = None
        self._prefs_lock = threading.Lock()
        self._prefs_version = 0
        self._prefs_saved = 0
        self.column_layouts: dict[str, ColumnLayout] = {}
        """Per dataset: the item table's hidden columns and their order (`k` in the browser)."""
        self.load_notices: list[tuple[SeverityLevel, str]] = [*(load_notices or []), *(("warning", p) for p in config.problems)]
        """(severity, message) from the load that opened the app: its warnings and errors."""
        self.db_path = Path(db_path)
        self.runs_dir = runs_dir
        self.db = Db(self.db_path)
        self.known_runs: list[tuple[str, str]] = []
        self.exclude_stale = False
        """Metrics mode of every screen (`m`): False = all golds, True = stale golds excluded."""
        self.adjudicated = False
        """Metrics mode `M`: accepted aliases counted as golds (never with `exclude_stale`)."""
        self.stale_version = 0
        """Bumped by every stale-flag write, so screens below redraw when shown again."""
        self.sub_title = clean(runs_dir.name if runs_dir is not None else self.db_path.name)
        self.start = start
        """The view `qa-inspect open --run … --item …` asked for: a browser on the filter (and the item)."""
        self._theme_name = theme or config.theme or QA_THEME.name

    def on_mount(self) -> None:
        asyncio.get_running_loop().set_default_executor(DaemonExecutor())  # `q` never waits for a worker
        self.register_theme(QA_THEME)
        self.theme = self._theme_name if self._theme_name in self.available_themes else QA_THEME.name
        self.push_screen(OverviewScreen())
        if self.start is not None:  # over the overview: escape goes back to it
            self.open_browser(self.start[0])
            if self.start[1] is not None:
                self.push_screen(DetailScreen(self.start[0], self.start[1]))
        if self.served:  # the annotator first: the server's environment may name one for every session
            named = os.environ.get(AUTHOR_ENV, "").strip()
            if named:
                self.set_session_author(named)
            else:
                self.push_screen(AnnotatorDialog(), self.set_session_author)
        self.catch_up_search_index()
        if self.remember:
            self.restore_preferences()
            self.theme_changed_signal.subscribe(self, lambda _: self.remember_preferences())
        for severity, message in self.load_notices:  # what the load chose or could not do: seen, not scrolled away
            self.notify(clean(message), title=f"Load {severity}", severity=severity, timeout=20,
                        markup=False)

    # -- served mode (qa-inspect serve) -----------------------------------------------------
    def set_session_author(self, name: str | None) -> None:
        """The served session's annotator (`AnnotatorDialog` put it in this process's environment,
        which `author_for` reads before the name stored for the shared system user), in the title."""
        if name:
            base = self.runs_dir.name if self.runs_dir is not None else self.db_path.name
            self.sub_title = clean(f"{base} · {name}")
            self.notify(f"Annotating as {name}", timeout=4, markup=False)

    async def run_action(self, action: str | ActionParseResult, default_namespace: DOMNode | None = None,
                         namespaces: Mapping[str, DOMNode] | None = None) -> bool:
        """Every key, click and palette entry comes here: a served session is told why an action that
        would act on the server's machine does nothing."""
        name = action[1] if isinstance(action, tuple) else action.rsplit(".", 1)[-1].split("(", 1)[0]
        if self.served and name in SERVED_OFF_ACTIONS:
            self.notify(SERVED_OFF_ACTIONS[name], severity="warning", timeout=5)
            return True
        return await super().run_action(action, default_namespace, namespaces)

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        if self.served:  # whatever path leads here: never from a served session
            self.notify(SERVED_OFF_ACTIONS["open_evidence"], severity="warning", timeout=5)
            return
        super().open_url(url, new_tab=new_tab)

    # -- search index (a big load leaves it to be filled: core.load.build_search_index) -------
    @work(thread=True, exit_on_error=False, group="search-index")
    def catch_up_search_index(self) -> None:
        """Fill the full-text index a big load left pending, in committed steps, while the app is
        used (searches meanwhile match the rows not indexed yet, only slower)."""
        with self.db.connect() as conn:
            pending = pending_rows(conn)
            if not pending:
                return
            self.post_message(SearchIndexNote(f"Indexing {plural(pending, 'row')} for search in the background…"))
            build_search_index(conn)
        self.post_message(SearchIndexNote("Search index ready."))

    def on_search_index_note(self, message: SearchIndexNote) -> None:
        self.notify(message.text, title="Search", timeout=4)

    # -- preferences (per user, in the database: core.query.preferences) ----------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="preferences")
    def restore_preferences(self) -> None:
        with self.db.connect() as conn:
            prefs = load_preferences(conn)
            problems = unknown_values(conn, prefs.filter) if prefs.filter is not None else []
            if problems:  # its run, dataset or split is gone: start on the overview, and say why
                prefs = replace(prefs, filter=None)
                self.call_from_thread(self.notify, "last filter not restored: " + "; ".join(problems),
                                      title="Filter", severity="warning", timeout=8)
        self.post_message(PreferencesLoaded(prefs))

    def on_preferences_loaded(self, message: PreferencesLoaded) -> None:
        prefs = message.prefs
        self.column_layouts = {**prefs.columns, **self.column_layouts}
        if prefs.theme and prefs.theme in self.available_themes:
            self.theme = prefs.theme
        if (prefs.exclude_stale, prefs.adjudicated) != (self.exclude_stale, self.adjudicated):
            self.exclude_stale, self.adjudicated = prefs.exclude_stale, prefs.adjudicated
            self.stale_version += 1  # screens already shown redraw in the restored mode
            self.screen.refresh_bindings()
            if isinstance(self.screen, OverviewScreen):
                self.screen.stale_mode_changed()
        if prefs.filter is not None and isinstance(self.screen, OverviewScreen) and len(self.screen_stack) == 2:
            self.open_browser(prefs.filter)

    def remember_filter(self, f: Filter) -> None:
        self.last_filter = f
        self.remember_preferences()

    def remember_columns(self, dataset: str, layout: ColumnLayout) -> None:
        self.column_layouts[dataset] = layout
        self.remember_preferences()

    def remember_preferences(self) -> None:
        if self.remember:
            self._prefs_version += 1
            self._save_preferences(self._preferences(), self._prefs_version)

    def _preferences(self) -> Preferences:
        """The preferences as they are now (what a save writes)."""
        return Preferences(self.theme, self.exclude_stale, self.last_filter, dict(self.column_layouts),
                           self.adjudicated)

    @work(thread=True, exit_on_error=False, group="preferences-save")
    def _save_preferences(self, prefs: Preferences, version: int) -> None:
        """Saves run one after another (one lock); a save overtaken by a newer one writes nothing,
        so the newest preferences always win."""
        with self._prefs_lock, self.db.connect() as conn:
            if version == self._prefs_version:
                save_preferences(conn, prefs)
                self._prefs_saved = version

    def on_unmount(self) -> None:
        """A preference changed just before quitting is saved here if its worker had not run yet."""
        if self.remember:
            with self._prefs_lock:
                if self._prefs_saved != self._prefs_version:
                    with self.db.connect() as conn:
                        save_preferences(conn, self._preferences())
                    self._prefs_saved = self._prefs_version
        self.db.close()

    # -- navigation used by screens and the palette ------------------------------------------
    def open_browser(self, f: Filter, *, slice_name: str | None = None) -> None:
        self.push_screen(BrowserScreen(f, slice_name=slice_name))

    def open_run(self, run: str) -> None:
        """Open a run's items from anywhere (palette, `r` on the overview)."""
        while len(self.screen_stack) > 2 and not isinstance(self.screen, OverviewScreen):
            self.pop_screen()
        if not isinstance(self.screen, OverviewScreen) and len(self.screen_stack) == 2:
            self.pop_screen()
        dataset = next((ds for name, ds in self.known_runs if name == run), None)
        self.open_browser(Filter(dataset=dataset, run=run))

    def open_slice(self, saved: SavedSlice) -> None:
        """Open a saved slice's filter in a new item browser (escape returns to where you were); a
        slice whose stored filter cannot be read says why instead of opening everything."""
        if saved.error:
            self.notify(clean(saved.error), title="Cannot open this slice", severity="error", markup=False)
            return
        self.open_browser(saved.filter, slice_name=saved.name)

    def show_slices(self) -> None:
        """The saved slices list; the chosen one opens in the browser."""
        if any(isinstance(s, SlicesScreen) for s in self.screen_stack):
            return

        def done(saved: SavedSlice | None) -> None:
            if saved is not None:
                self.open_slice(saved)

        self.push_screen(SlicesScreen(), done)

    def action_slices(self) -> None:
        self.show_slices()

    def action_paper_table(self) -> None:
        dataset = getattr(getattr(self.screen, "filter", None), "dataset", None)
        current = getattr(self.screen, "current", None)
        dataset = dataset or getattr(getattr(current, "ds", None), "name", None)
        dataset = dataset or next((ds for _, ds in self.known_runs), None)
        if dataset is None:
            self.notify("No dataset with runs to tabulate.", severity="warning")
        elif not isinstance(self.screen, PaperTableScreen):
            self.push_screen(PaperTableScreen(dataset))

    def action_review_queue(self) -> None:
        if not isinstance(self.screen, ReviewQueueScreen):  # scoped by the browser it is opened from
            scope = self.screen.filter if isinstance(self.screen, BrowserScreen) else None
            self.push_screen(ReviewQueueScreen(scope=scope))

    def action_load_log(self) -> None:
        if not isinstance(self.screen, LoadLogScreen):
            self.push_screen(LoadLogScreen())

    def view_line(self) -> str | None:
        """The `qa-inspect open` line of the browser or detail on screen (None elsewhere)."""
        screen = self.screen
        runs = str(self.runs_dir) if self.runs_dir is not None else str(self.db_path.parent.parent)
        if isinstance(screen, DetailScreen):
            key = screen.detail.key if screen.detail is not None else None
            return view_command(runs, screen.filter.with_(run=screen.run or screen.filter.run), key)
        if isinstance(screen, BrowserScreen):
            return view_command(runs, screen.filter)
        return None

    def action_copy_view(self) -> None:
        line = self.view_line()
        if line is None:
            self.notify("Y copies the item browser's or the item detail's view: open one first.", severity="warning")
            return
        how = copy_text(self, line)
        self.notify(f"Copied ({how}): {line}", title="This view", timeout=8, markup=False)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(self.screen))

    def help_sections(self, origin: Screen[Any] | None) -> list[HelpSection]:
        """Every screen's keys (the origin's first), then "Everywhere" second: the app's keys,
        the palette and the commands only the palette reaches."""
        screens = list(HELP_SCREENS)
        if origin is not None and type(origin) in screens:
            screens.remove(type(origin))  # type: ignore[arg-type]
            screens.insert(0, type(origin))  # type: ignore[arg-type]
        sections: list[HelpSection] = []
        for cls in screens:
            sections.append(HelpSection(cls.HELP_TITLE, binding_rows(self, cls.BINDINGS) + list(cls.HELP_EXTRA)))
            sections += [HelpSection(title, binding_rows(self, widget.BINDINGS)) for title, widget in cls.HELP_WIDGETS]
        everywhere = binding_rows(self, type(self).BINDINGS)
        everywhere.append((self.get_key_display(Binding(self.COMMAND_PALETTE_BINDING, "")),
                           "command palette: every action by name"))
        everywhere += PALETTE_ROWS  # stale commands without a key (annotator name)
        sections.insert(1, HelpSection("Everywhere", everywhere))
        return sections

    def report_worker_error(self, worker: Worker[Any]) -> None:
        """The one place worker failures turn into something the user sees."""
        error = worker.error
        name = worker.name or "background task"
        self.log.error(f"worker {name} failed: {error!r}")
        self.notify(f"{name}: {type(error).__name__}: {error}", title="Something went wrong", severity="error",
                    timeout=8, markup=False)
