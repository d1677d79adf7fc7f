"""Runs overview (start screen): every dataset, its runs and the human estimate, and the slices
of the highlighted run with each slice's share of the errors. Enter opens the item browser."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import DataTable, Header, Static
from textual.worker import get_current_worker

from qa_inspect.core import report  # the lazy face: leaderboard (numpy, polars) loads when first called
from qa_inspect.core.load import last_load
from qa_inspect.core.query import Filter
from qa_inspect.core.report import (
    DatasetOverview,
    FreshnessRow,
    folder_run_settings,
    freshness_overview,
    overview,
)

from ..dialogs import RunPicker, RunSettingsFilter, matches
from ..stale import OVERVIEW_STALE_BINDINGS, StaleScreen, StaleTitles, scores_key
from ..present import count, plural
from ..text import clean
from ..widgets import KeyFooter, RowRef, RunsTable, SlicesTable
from .compare import open_compare
from .distribution import DistributionScreen

if TYPE_CHECKING:  # the intervals (numpy, polars) are imported when first resampled, not at start
    from qa_inspect.core.report import Leaderboard

@dataclass
class LoadProblems(Message):
    """Errors and warnings of the last load (the ⚠ line above the runs)."""

    errors: int
    warnings: int


def problems_line(errors: int, warnings: int, key: str) -> Content:
    parts = [plural(n, word) for n, word in ((errors, "error"), (warnings, "warning")) if n]
    return Content.assemble(("⚠ ", "$warning"), (" and ".join(parts) + " in the last load", "$warning"),
                            (f"  ({key}: load log)", "$foreground-muted"))


@dataclass
class FreshnessLoaded(Message):
    """Per dataset with verified golds: how many were verified within 90 days (the title's ✓ part)."""

    rows: dict[str, FreshnessRow]


def freshness_parts(row: FreshnessRow | None) -> list[tuple[str, str]]:
    """"  ✓ 26 of 212 verified ≤90 d" for a dataset title (nothing before anyone verified a gold)."""
    if row is None:
        return []
    return [(f"  ✓ {count(row.verified_within[90])} of {count(row.golds)} verified ≤90 d", "$success")]


@dataclass
class OverviewLoaded(Message):
    """`complete=False`: overall numbers only, the slices follow in a second message."""

    datasets: list[DatasetOverview]
    complete: bool = True


@dataclass
class SettingsLoaded(Message):
    """Each run's settings (model, prompt, shots …: `core.report.folder_run_settings`), by run name."""

    settings: dict[str, dict[str, str]]


@dataclass
class IntervalsLoaded(Message):
    """Each dataset's runs ranked with intervals (`core.report.leaderboard`), by dataset name."""

    boards: dict[str, Leaderboard]


_scores_key = scores_key  # one definition (tui.stale.titles): the modes' numbers compared to the last result digit


FILTER_FIELD = {"split": "splits", "tag": "tags", "answer_type": "answer_types"}


def filter_for(ref: RowRef) -> Filter:
    """The browser filter a row of the overview stands for."""
    f = Filter(dataset=ref.dataset, run=ref.run)
    if ref.dimension in FILTER_FIELD and ref.value is not None:
        f = f.with_(**{FILTER_FIELD[ref.dimension]: (ref.value,)})
    elif ref.value is not None and ref.dimension != "all":  # a label without a Filter field of its own
        f = f.with_(facets=((ref.dimension, ref.value),))
    return f


def dataset_title(ds: DatasetOverview, extra: list[tuple[str, str]] | None = None) -> Content:
    parts: list[tuple[str, str] | str] = [
        (clean(ds.name), "bold $primary"), ("  ", ""), (ds.scorer or ds.family, "$foreground-muted"),
        ("  ", ""), (plural(ds.items, "item"), ""), ("  ", ""), (plural(ds.golds, "gold"), "$foreground-muted"),
        *(extra or []),  # stale golds, and whether the numbers leave them out
        ("  ", ""), (plural(len(ds.runs), "run"), "$foreground-muted"),
    ]
    if not ds.runs:
        parts.append(("  (no predictions matched it: enter browses its items and golds)", "italic $foreground-muted"))
    return Content.assemble(*parts)  # the human estimate is the table's last row


class RunsBox(VerticalScroll, can_focus=False):
    """Scrolls the per-dataset tables; the tables take focus, not the box."""


class OverviewScreen(StaleScreen):
    """Start screen: which run is best where, and where the errors are."""

    HELP_TITLE = "Runs overview"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="overview.open", tooltip="Open the items of the highlighted run or slice"),
        Binding("r", "choose_run", "Run", id="overview.choose-run", tooltip="Choose a run and open its items"),
        Binding("c", "compare", "Compare", id="overview.compare",
                tooltip="Compare the highlighted run (A) with another run (B)"),
        Binding("D", "distribution", "Distribution", id="overview.distribution", show=False,
                tooltip="Score histogram of the highlighted run or slice"),
        Binding("f", "filter_runs", "Runs by setting", id="overview.filters", show=False,
                tooltip="List only the runs with chosen settings (model, prompt, shots …)"),
        Binding("tab", "app.focus_next", "Next table", id="overview.next-table", show=False,
                tooltip="Move to the next table"),
        Binding("ctrl+r", "reload", "Reload", id="overview.reload", show=False,
                tooltip="Recompute the overview from the database"),
        *OVERVIEW_STALE_BINDINGS,  # m, u, U (stale.keys)
    ]

    current: var[RunsTable | None] = var(None, always_update=True, init=False)
    """The runs table whose highlighted row the slices pane shows: setting it redraws the pane."""

    def __init__(self) -> None:
        super().__init__()
        self.stale_titles = StaleTitles(self)
        self.datasets: list[DatasetOverview] = []
        self.complete = False
        self._busy: sqlite3.Connection | None = None
        self._interrupted = False
        self._resampling: sqlite3.Connection | None = None
        """The intervals worker's connection while it reads (interrupted when the screen is left)."""
        self.run_settings: dict[str, dict[str, str]] = {}
        self.boards: dict[str, tuple[tuple[object, ...], Leaderboard]] = {}
        """Dataset → (its runs' scores when resampled, the intervals): recomputed only when those change."""
        self.settings_filter: tuple[tuple[str, str], ...] = ()
        self.freshness: dict[str, FreshnessRow] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="overview-load")
        with Vertical(id="overview"):
            yield RunsBox(id="overview-runs")
            with Vertical(id="slices-box"):
                yield Static(id="slices-title")
                yield SlicesTable(id="slices")
            yield Static(Content.styled("loading…", "$foreground-muted"), id="overview-empty")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#overview-load").display = False
        self.load()
        self.load_problems()

    @work(thread=True, exclusive=True, exit_on_error=False, group="overview-load")
    def load_problems(self) -> None:
        with self.db.connect() as conn:
            log = last_load(conn)
        if log is not None:
            self.post_message(LoadProblems(len(log.summary.errors), len(log.summary.warnings)))

    def on_load_problems(self, message: LoadProblems) -> None:
        line = self.query_one("#overview-load", Static)
        line.display = bool(message.errors or message.warnings)
        key = next((self.app.get_key_display(b) for b in self.app.BINDINGS
                    if isinstance(b, Binding) and b.id == "app.load-log"), "L")
        line.update(problems_line(message.errors, message.warnings, key))

    @work(thread=True, exclusive=True, exit_on_error=False, group="overview")
    def load(self) -> None:
        """Overall numbers first (one cheap pass), then the slices (a grouped pass: seconds on
        millions of predictions); the tables fill in twice."""
        worker = get_current_worker()
        with self.db.connect() as conn:
            self._busy = conn
            try:
                quick = self.stale_titles.adjust(conn, overview(conn, slices=False), slices=False)
                if worker.is_cancelled:
                    return
                self.post_message(OverviewLoaded(quick, complete=False))
                self.post_message(FreshnessLoaded(freshness_overview(conn)))
                self.post_message(SettingsLoaded(
                    {r.run: dict(r.settings) for r in folder_run_settings(conn, self.qa_app.runs_dir)}))
                full = self.stale_titles.adjust(conn, overview(conn))
            except sqlite3.OperationalError as exc:
                if "interrupted" in str(exc):
                    return  # the screen was left: it resumes the work when shown again
                raise
            finally:
                self._busy = None
        if not worker.is_cancelled:
            self.post_message(OverviewLoaded(full, complete=True))
            with self.db.connect() as conn:  # the other mode's numbers, ready for the first `m`
                self.stale_titles.warm(conn, quick, full)

    def on_settings_loaded(self, message: SettingsLoaded) -> None:
        self.run_settings = message.settings

    def action_filter_runs(self) -> None:
        values: dict[str, set[str]] = {}
        for settings in self.run_settings.values():
            for key, value in settings.items():
                values.setdefault(key, set()).add(value)
        varied = {k: sorted(v) for k, v in values.items() if len(v) > 1}
        if not varied:
            self.notify("The runs do not differ in any setting (model, prompt, shots …).", severity="warning")
            return

        def done(chosen: tuple[tuple[str, str], ...] | None) -> None:
            if chosen is not None:
                self.settings_filter = chosen
                self._apply_run_filter()

        self.app.push_screen(RunSettingsFilter(varied, self.settings_filter), done)

    def _apply_run_filter(self) -> None:
        chosen = self.settings_filter
        for table in self.query(RunsTable):
            table.set_run_filter(None if not chosen else
                                 (lambda run: matches(self.run_settings.get(run, {}), chosen)))
        for title, ds in zip(self.query(".dataset-title").results(Static), self.datasets):
            title.update(dataset_title(ds, self._title_parts(ds.name)))

    def on_screen_suspend(self) -> None:
        """Leaving for the browser: stop the slices pass so it does not compete with the
        browser's queries (it can take seconds on millions of predictions); the same for the
        intervals (resampling every run pair). Both pick up again on return."""
        self.workers.cancel_group(self, "intervals")
        if self._resampling is not None:  # reading every item of every run: seconds at a million
            self._resampling.interrupt()
        conn = self._busy
        if conn is not None and not self.complete:
            self.workers.cancel_group(self, "overview")
            conn.interrupt()
            self._interrupted = True

    def on_screen_resume(self) -> None:
        if self.focused is None and self.current is not None:  # a dialog over the first paint left no focus to restore
            self.current.focus()
        if self._interrupted:
            self._interrupted = False
            self.load()
        elif self.complete:
            self._refresh_intervals()  # those a leave cancelled; the rest are at hand

    @work(thread=True, exclusive=True, exit_on_error=False, group="intervals")
    def load_intervals(self, names: list[str]) -> None:
        """Intervals and ties after the numbers are shown: resampling takes a moment per run pair."""
        worker = get_current_worker()
        boards: dict[str, Leaderboard] = {}
        with self.db.connect() as conn:
            self._resampling = conn
            try:
                for name in names:
                    if worker.is_cancelled:
                        return
                    boards.update((b.dataset, b) for b in report.leaderboard(conn, name) if len(b.ranked) > 0)
            except sqlite3.OperationalError as exc:
                if "interrupted" in str(exc):
                    return  # the screen was left: resumed when shown again
                raise
            finally:
                self._resampling = None
        if not worker.is_cancelled:
            self.post_message(IntervalsLoaded(boards))

    def on_intervals_loaded(self, message: IntervalsLoaded) -> None:
        for ds in self.datasets:
            if ds.name in message.boards:
                self.boards[ds.name] = (_scores_key(ds), message.boards[ds.name])
        self._show_boards()

    def _refresh_intervals(self) -> None:
        """Show the intervals of datasets whose runs scored as before (a mark, `m` or a return to
        the overview changes no stored score); resample only the others."""
        stale = [ds.name for ds in self.datasets if ds.runs and ds.name not in self.stale_titles.changed
                 and self.boards.get(ds.name, (None,))[0] != _scores_key(ds)]
        self._show_boards()
        if stale:
            self.load_intervals(stale)

    def _show_boards(self) -> None:
        for table in self.query(RunsTable):  # intervals are of the official numbers: none where a mode changed them
            cached = self.boards.get(table.ds.name)
            if table.ds.name in self.stale_titles.changed:
                table.show_intervals(None)
            elif cached is not None and cached[0] == _scores_key(table.ds):
                table.show_intervals(cached[1])

    async def on_overview_loaded(self, message: OverviewLoaded) -> None:
        tables = list(self.query(RunsTable))
        same = [t.ds.name for t in tables] == [ds.name for ds in message.datasets]
        self.datasets = message.datasets
        self.complete = message.complete
        self.qa_app.known_runs = [(r.name, ds.name) for ds in self.datasets for r in ds.runs]
        if message.complete:  # intervals of the official numbers, where the mode left them as they are
            self._refresh_intervals()
        if same and tables:  # second pass: refresh in place, keep the cursor and focus
            for table, ds in zip(tables, self.datasets):
                table.update_data(ds)
            for title, ds in zip(self.query(".dataset-title").results(Static), self.datasets):
                title.update(dataset_title(ds, self._title_parts(ds.name)))
            self.current = self.current  # the pane again, from the new numbers
            return
        box = self.query_one("#overview-runs", VerticalScroll)
        await box.remove_children()
        empty = self.query_one("#overview-empty", Static)
        empty.display = not self.datasets
        if not self.datasets:
            empty.update(Content.styled(
                "No datasets loaded. Put a dataset file and prediction files in the runs folder and restart.",
                "$warning"))
            return
        widgets: list[Widget] = []
        for ds in self.datasets:
            widgets.append(Static(dataset_title(ds, self._title_parts(ds.name)), classes="dataset-title"))
            widgets.append(RunsTable(ds, classes="runs-table"))
        await box.mount_all(widgets)
        self._show_boards()  # tables made anew: intervals already at hand
        if self.settings_filter:
            self._apply_run_filter()
        first = self.query(RunsTable).first()
        first.focus()
        self.current = first

    def _title_parts(self, dataset: str) -> list[tuple[str, str]]:
        return (self.stale_titles.title_parts(dataset) + freshness_parts(self.freshness.get(dataset))
                + self._filter_parts(dataset) + self.stale_titles.interval_note(dataset))

    def _filter_parts(self, dataset: str) -> list[tuple[str, str]]:
        """"runs: model=… (3 of 54, f)" while a settings filter narrows the list."""
        if not self.settings_filter:
            return []
        ds = next((d for d in self.datasets if d.name == dataset), None)
        if ds is None:
            return []
        shown = sum(matches(self.run_settings.get(r.name, {}), self.settings_filter) for r in ds.runs)
        what = ", ".join(f"{k}={v}" for k, v in self.settings_filter)
        return [("  runs: ", "$foreground-muted"), (clean(what), "$accent"),
                (f" ({shown} of {len(ds.runs)}, f)", "$foreground-muted")]

    def on_freshness_loaded(self, message: FreshnessLoaded) -> None:
        self.freshness = message.rows
        for title, ds in zip(self.query(".dataset-title").results(Static), self.datasets):
            title.update(dataset_title(ds, self._title_parts(ds.name)))

    @on(DataTable.RowHighlighted, ".runs-table")
    def _run_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Only the table the user is in drives the slices (every table highlights a row on mount)."""
        table = event.data_table
        if isinstance(table, RunsTable) and (table.has_focus or table is self.current):
            self.current = table

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def on_descendant_focus(self) -> None:
        focused = self.focused
        if isinstance(focused, RunsTable) and focused is not self.current:
            self.current = focused

    def watch_current(self, table: RunsTable | None) -> None:
        if table is None:
            return
        ref = table.ref
        ds = table.ds
        run = next((r for r in ds.runs if ref is not None and r.name == ref.run), None)
        if ref is not None and ref.human:
            run = ds.human
        self.query_one(SlicesTable).show(ds, run, loading=not self.complete)
        who = clean(run.name) if run else clean(ds.name) + " (no run)"
        metric = ds.over
        if ref is not None and ref.human:
            metric = "each gold scored against the others"
        self.query_one("#slices-title", Static).update(Content.assemble(
            ("Slices of ", "$foreground-muted"), (who, "bold"), *self.stale_titles.mode_parts(), ("  ", ""), (metric, "$foreground-muted"),
            (" · share = slice errors / run errors", "$foreground-muted"),
        ))

    def action_open(self) -> None:
        focused = self.focused
        ref: RowRef | None = None
        if isinstance(focused, (RunsTable, SlicesTable)):
            ref = focused.ref
        if ref is None:
            self.notify("Highlight a run, a dataset or a slice to open its items.", severity="warning", timeout=3)
            return
        if ref.dimension not in ("all", *FILTER_FIELD) or (ref.dimension != "all" and ref.value is None):
            self.notify("Items without this label cannot be filtered on; opening the whole run.")
            ref = RowRef(ref.dataset, ref.run)
        self.qa_app.open_browser(filter_for(ref))

    def action_distribution(self) -> None:
        focused = self.focused
        ref = focused.ref if isinstance(focused, (RunsTable, SlicesTable)) else None
        if ref is None or ref.run is None or ref.human:
            self.notify("Highlight a run to see its score distribution.", severity="warning")
            return
        if ref.dimension not in ("all", *FILTER_FIELD) and ref.value is None:
            ref = RowRef(ref.dataset, ref.run)
        self.app.push_screen(DistributionScreen(filter_for(ref)))

    def action_choose_run(self) -> None:
        def done(run: str | None) -> None:
            if run:
                self.qa_app.open_run(run)

        self.app.push_screen(RunPicker("Open run", None, None), done)

    def action_compare(self) -> None:
        table = self.current
        ref = table.ref if table is not None else None
        if table is None or ref is None or ref.run is None:
            self.notify("Highlight a run to compare (the human estimate is not a run).", severity="warning")
            return

        def done(f: Filter | None) -> None:
            if f is not None:
                self.qa_app.open_browser(f)

        open_compare(self, ref.run, [r.name for r in table.ds.runs], done=done)

    def action_reload(self) -> None:
        self.load()

    def stale_changed(self) -> None:
        self.load()

    def stale_mode_changed(self) -> None:
        self.load()
