"""Item browser: the items of a run under a filter, with the slice's count and metrics.

Every filter change bumps `generation` and starts two exclusive workers — count + metrics, and
the first window of rows — so a fast typist never sees an older filter's answer land last.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.events import Resize
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Header, Input, Static
from textual.worker import get_current_worker

from qa_inspect.core import query
from qa_inspect.core.query import Filter, ItemRow, SliceMetrics, is_cdqa
from qa_inspect.core.report import BrowseInfo, browse_info

from ..base import BaseScreen
from ..dialogs import FilterScreen, RunPicker
from ..stale import BROWSER_STALE_BINDINGS, BrowserStale
from ..text import clean
from ..widgets import (
    TABLE_KEYS,
    WINDOW,
    FacetList,
    FacetPanel,
    FilterBar,
    ItemPreview,
    ItemTable,
    KeyFooter,
    ResultBar,
    SelectableItemTable,
    StatusLine,
)
from .browser_count import BrowserCount, CountLoaded
from .browser_delta import BrowserDeltaOrder
from .browser_layout import BrowserLayout
from .browser_triage import TriageActions
from .detail import DetailScreen, TotalLoaded
from .aliases import ALIAS_BINDINGS, AliasActions
from .labels import BROWSER_LABEL_BINDINGS, LabelActions

SORT_LABELS = {
    "key": "id", "split": "split", "tag": "tag", "answer_type": "type", "question": "question",
    "prediction": "prediction", "em": "EM", "f1": "F1", "f1_recall": "F1-recall", "refused": "refused",
    "stale": "stale", "delta": "Δ B−A",
}


@dataclass
class InfoLoaded(Message):
    """What the browser needs before its first query: runs, scorer, label values, id width."""

    info: BrowseInfo


@dataclass
class WindowLoaded(Message):
    """Rows `start … start+len(rows)` of a filter, and the row (absolute index) to put the cursor on."""

    generation: int
    filter: Filter
    start: int
    rows: list[ItemRow]
    cursor: int


class BrowserScreen(BrowserCount, BrowserDeltaOrder, BrowserLayout, AliasActions, LabelActions, BrowserStale, TriageActions,
                    BaseScreen):
    """Filter bar, status line and the item table of one run."""

    HELP_TITLE = "Item browser"
    HELP_EXTRA = TABLE_KEYS
    HELP_WIDGETS = (("Facet panel (F)", FacetList),)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="browser.open", tooltip="Open the item under the cursor"),
        Binding("slash", "search", "Search", id="browser.search",
                tooltip="Free-text search over question, golds and prediction"),
        Binding("f", "filters", "Filters", id="browser.filters", tooltip="Open the filter dialog"),
        Binding("r", "choose_run", "Run", id="browser.choose-run", show=False,
                tooltip="Choose the run whose predictions are shown"),
        Binding("c", "compare", "Compare", id="browser.compare",
                tooltip="Compare this run (A) with run B: fixed, broken, per-slice Δ"),
        Binding("C", "compare_columns", "B columns", id="browser.compare-columns", show=False,
                tooltip="Show another run's scores beside this one's (B and Δ B−A columns)"),
        Binding("d", "toggle_disagree", "Disagree", id="browser.toggle-disagree", show=False,
                tooltip="Only items where run A and run B disagree"),
        Binding("w", "toggle_errors", "Wrong only", id="browser.toggle-errors",
                tooltip="Only wrong answers (EM 0 / F1-recall below 1) or all items"),
        Binding("F", "toggle_facets", "Facets", id="browser.toggle-facets",
                tooltip="Facet panel: counts and errors per value; select to filter"),
        Binding("ctrl+s", "save_slice", "Save slice", id="browser.save-slice", show=False,
                tooltip="Save the current filter as a named slice"),
        Binding("e", "export", "Export", id="browser.export",
                tooltip="Export the item list to CSV, JSONL, Parquet or Markdown"),
        Binding("o", "sort", "Sort", id="browser.sort", show=False,
                tooltip="Choose the sort column (or click a header; again reverses)"),
        Binding("O", "reverse", "Reverse", id="browser.reverse", show=False, tooltip="Reverse the sort order"),
        Binding("x", "clear", "Clear", id="browser.clear", show=False, tooltip="Clear all filters but the run"),
        Binding("k", "columns", "Columns", id="browser.columns", show=False,
                tooltip="Choose and order the table's columns (kept per dataset)"),
        Binding("D", "distribution", "Distribution", id="browser.distribution", show=False,
                tooltip="Score histogram of these items (+ A-vs-B grid)"),
        Binding("v", "toggle_split", "Split", id="browser.toggle-split", show=False,
                tooltip="Split view on a wide terminal: the item under the cursor beside the list"),
        *BROWSER_STALE_BINDINGS,  # s, S, space, ctrl+a, u, U, m (stale.keys)
        *BROWSER_LABEL_BINDINGS,  # l, 1–9 (screens.labels)
        *ALIAS_BINDINGS,  # A (screens.aliases)
        Binding("escape", "back", "Back", id="browser.back",
                tooltip="Back one screen (to where this browser was opened from)"),
    ]

    def __init__(self, f: Filter, *, slice_name: str | None = None) -> None:
        super().__init__()
        self.filter = f
        self.slice_name = slice_name
        self.slice_filter = f if slice_name is not None else None
        self.generation = 0
        self.count_generation = -1  # the generation whose count/rows are on screen (tests, bench)
        self.window_generation = -1
        self.info: BrowseInfo | None = None
        self.total: int | None = None
        self.metrics: query.SliceMetrics | None = None
        self.compare_metrics: query.SliceMetrics | None = None
        self._last_width = 0
        self._search_timer: Timer | None = None
        self.init_counts()

    def compose(self) -> ComposeResult:
        yield Header()
        yield FilterBar(id="filter-bar")
        yield Input(placeholder="/ search question, golds, prediction (as you type; escape closes)",
                    id="search", classes="hidden", compact=True)
        yield StatusLine(id="status")
        yield Static(id="items-empty")
        with Horizontal(id="browser-body"):
            with Horizontal(id="items-pane"):  # the bar stays beside the list when facets go below it
                yield SelectableItemTable(self.is_selected, id="items")
                yield ResultBar(id="result-bar")
            yield FacetPanel(id="facets")
            yield ItemPreview(id="preview")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.qa_app.remember_filter(self.filter)
        self.query_one("#items-empty").display = False
        table = self.query_one(ItemTable)
        table.focus()
        self.watch(table, "scroll_y", lambda *_: self.show_place(), init=False)  # wheel scrolling moves the bar too
        # A sideways scrollbar appearing (columns wider than the table) takes a row from the window.
        def show_place_later(*_: object) -> None:
            self.call_after_refresh(self.show_place)

        self.watch(table, "show_horizontal_scrollbar", show_place_later, init=False)
        self.load_info(self.filter)

    # -- workers -----------------------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="info")
    def load_info(self, f: Filter) -> None:
        with self.db.connect() as conn:
            info = browse_info(conn, f.run, f.dataset)
        if not get_current_worker().is_cancelled:
            self.post_message(InfoLoaded(info))

    def on_info_loaded(self, message: InfoLoaded) -> None:
        info = self.info = message.info
        if self.filter.dataset is None and info.dataset:
            self.filter = self.filter.with_(dataset=info.dataset)
        self.refresh_items(cursor=0)

    @work(thread=True, exclusive=True, exit_on_error=False, group="window")
    def load_window(self, generation: int, f: Filter, start: int, cursor: int) -> None:
        with self.db.connect() as conn:
            rows = query.page(conn, f, start, WINDOW)
        if not get_current_worker().is_cancelled:
            self.post_message(WindowLoaded(generation, f, start, rows, cursor))

    @work(thread=True, exclusive=True, exit_on_error=False, group="window")  # one window load at a time
    def load_position(self, generation: int, f: Filter, item_id: int, near: int | None = None) -> None:
        """The window around `item_id`'s row. `near`: where it was (a flag marked, the data
        re-read): that window is looked at first, a page walk; ranking every item of the filter
        to find the row (seconds at a million) only when it moved out of it."""
        with self.db.connect() as conn:
            start = max(0, (near or 0) - WINDOW // 2)
            rows = query.page(conn, f, start, WINDOW) if near is not None else []
            ids = [r.item_id for r in rows]
            if item_id in ids:
                pos = start + ids.index(item_id)
            else:
                found = query.position(conn, f, item_id)
                pos = 0 if found is None else found
                start = max(0, pos - WINDOW // 2)
                rows = query.page(conn, f, start, WINDOW)
        if not get_current_worker().is_cancelled:
            self.post_message(WindowLoaded(generation, f, start, rows, pos))

    # -- state -------------------------------------------------------------------------------
    def set_filter(self, f: Filter, *, keep_item: int | None = None) -> None:
        """Apply a new filter: columns if the run or comparison changed, then count and rows."""
        run_changed = f.run != self.filter.run
        self.filter = f
        self.qa_app.remember_filter(f)
        if run_changed:
            self.load_info(f)
            return
        self.refresh_items(cursor=0, keep_item=keep_item, same_data=True)

    def refresh_items(self, cursor: int = 0, keep_item: int | None = None, *, same_data: bool = False) -> None:
        """Start the workers first (they wait for the UI thread otherwise), then update widgets.
        Only a new filter keeps the cached counts (`same_data`): flags may change the counts."""
        self.generation += 1
        self.total = None
        self.metrics = self.compare_metrics = None  # the old filter's numbers are not shown beside "counting…"
        if not same_data:
            self.forget_counts()
        self.start_count(self.generation, self.filter)
        if keep_item is not None:
            table = self.query_one(ItemTable)
            here = table.current is not None and table.current.item_id == keep_item
            self.load_position(self.generation, self.filter, keep_item, table.absolute_cursor if here else None)
        else:
            self.load_window(self.generation, self.filter, 0, cursor)
        self.rebuild_columns(refill=False)
        self.show_status()
        self.query_one(FilterBar).show(self.filter, self.size.width)
        self.follow_facets()
        self.follow_compare()  # browser_delta: the compared pair's Δ order, built once

    def rebuild_columns(self, *, refill: bool = True) -> None:
        if self.info is None:
            return
        table = self.query_one(ItemTable)
        width = table.size.width or self.size.width or self.app.size.width  # less while the facet panel is beside it
        cols = self.fit_columns(width)  # browser_layout: the user's choice (k), or what fits
        table.set_columns(cols,
                          self.filter.sort, self.filter.descending, refill=refill)
        self._last_width = self.size.width

    def show_status(self) -> None:
        table = self.query_one(ItemTable)
        label = SORT_LABELS.get(self.filter.sort, self.filter.sort) + (" ↓" if self.filter.descending else " ↑")
        metrics, compare = self.stale_metrics(self.metrics, self.compare_metrics if self.filter.compare else None)
        self.query_one(StatusLine).show(
            self.total, self.info.items if self.info else None, metrics, compare, label,
            table.absolute_cursor if table.win_rows else None,
            extra=self.stale_status_parts(), notice=self.hidden_columns_parts(),
        )
        self.show_place()

    def show_place(self) -> None:
        """The result bar: where the rows on screen sit among all the filter's items."""
        table = self.query_one(ItemTable)
        shown = max(1, table.scrollable_content_region.height - 1)
        total = self.total if self.total is not None else table.win_total
        self.query_one(ResultBar).show(total, table.win_start + int(table.scroll_y), min(shown, total))

    # -- messages ----------------------------------------------------------------------------
    def on_count_loaded(self, message: CountLoaded) -> None:
        if message.generation != self.generation:
            return
        self.count_generation = message.generation
        self.total = message.total
        self.metrics = message.metrics
        self.compare_metrics = message.metrics.extra.get("compare")
        table = self.query_one(ItemTable)
        table.win_total = message.total
        self.show_status()
        self._show_empty(message.total == 0)
        detail = self.app.screen
        if isinstance(detail, DetailScreen) and detail.total is None and detail.filter == self.filter:
            detail.post_message(TotalLoaded(message.total))  # it was opened before the count came

    def _show_empty(self, empty: bool) -> None:
        """An empty result says so and how to get out of it (not a bare table)."""
        line = self.query_one("#items-empty", Static)
        line.display = empty
        if empty:
            line.update(Content.assemble(
                ("No items match this filter.", "bold $warning"),
                ("  x clears every filter but the run · f opens the filters · / searches", "$foreground-muted")))

    def on_window_loaded(self, message: WindowLoaded) -> None:
        if message.generation != self.generation:
            return
        self.window_generation = message.generation
        table = self.query_one(ItemTable)
        total = self.total if self.total is not None else max(message.start + len(message.rows), table.win_total)
        table.show_window(message.start, message.rows, message.cursor, total)
        self.show_status()

    def on_item_table_need_window(self, message: ItemTable.NeedWindow) -> None:
        self.load_window(self.generation, self.filter, message.start, message.cursor)

    def on_item_table_sort(self, message: ItemTable.Sort) -> None:
        same = message.sort == self.filter.sort
        self.set_filter(self.filter.with_(sort=message.sort, descending=not self.filter.descending if same else False))

    @on(ItemTable.RowHighlighted)
    def _row_moved(self) -> None:
        self.show_status()
        self.follow_preview()

    @on(ItemTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_open()

    def on_resize(self, event: Resize) -> None:
        self.follow_preview()
        if self.info is not None and abs(event.size.width - self._last_width) > 0:
            table = self.query_one(ItemTable)
            self.rebuild_columns()
            if table.win_rows:
                table.show_window(table.win_start, table.win_rows, table.absolute_cursor, table.win_total)

    # -- actions -----------------------------------------------------------------------------
    def label_scope(self) -> tuple[str | None, list[int] | None, Filter | None, bool]:
        """Labels act on the selection when there is one, else on the row under the cursor."""
        if self.select_filter is not None:
            return self.filter.run, None, self.filter, True
        if self.selected_ids:
            return self.filter.run, sorted(self.selected_ids), None, True
        row = self.query_one(ItemTable).current
        return self.filter.run, [row.item_id] if row is not None else None, None, False

    def action_open(self) -> None:
        row = self.query_one(ItemTable).current
        if row is None:
            return
        table = self.query_one(ItemTable)
        nav = [r.item_id for r in table.win_rows]
        screen = DetailScreen(self.filter, row.item_id, nav=nav, nav_start=table.win_start, total=self.total,
                              total_coming=self.total is None)
        self.app.push_screen(screen, lambda item_id: self._back_from_detail(item_id, screen.position))

    def _back_from_detail(self, item_id: int | None, position: int | None = None) -> None:
        """n/p may have moved on in the detail view: follow it in the table (at the row the detail
        counted it at: finding an item's row anew ranks every item of the filter, seconds at 1M)."""
        if self.stale_refresh_if_outdated(item_id):  # a flag changed there: reload rows and numbers
            return
        table = self.query_one(ItemTable)
        if item_id is None or (table.current is not None and table.current.item_id == item_id):
            return
        ids = [r.item_id for r in table.win_rows]
        if item_id in ids:
            table.move_cursor(row=ids.index(item_id))
            return
        self.generation += 1
        self.start_count(self.generation, self.filter)
        if position is not None:
            self.load_window(self.generation, self.filter, max(0, position - WINDOW // 2), position)
        else:
            self.load_position(self.generation, self.filter, item_id)

    def action_search(self) -> None:
        box = self.query_one("#search", Input)
        box.remove_class("hidden")
        box.value = self.filter.search
        box.focus()

    @on(Input.Changed, "#search")
    def _search_typed(self, event: Input.Changed) -> None:
        """Search as you type, once typing pauses (each keystroke would start a full query)."""
        if self._search_timer is not None:
            self._search_timer.stop()
        value = event.value.strip()
        if value != self.filter.search:
            self._search_timer = self.set_timer(0.35, lambda: self.set_filter(self.filter.with_(search=value)))

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
        if event.value.strip() != self.filter.search:
            self.set_filter(self.filter.with_(search=event.value.strip()))
        self.query_one(ItemTable).focus()

    def _close_search(self) -> None:
        box = self.query_one("#search", Input)
        if not self.filter.search:
            box.add_class("hidden")
        self.query_one(ItemTable).focus()

    def action_back(self) -> None:
        if self.focused is self.query_one("#search", Input):
            self._close_search()
            return
        self.dismiss(None)

    def action_filters(self) -> None:
        def done(f: Filter | None) -> None:
            if f is not None:
                self.set_filter(f)

        self.app.push_screen(FilterScreen(self.filter), done)

    def action_choose_run(self) -> None:
        def done(run: str | None) -> None:
            if run and run != self.filter.run:
                cmp_ = None if self.filter.compare == run else self.filter.compare
                keep = dict(splits=(), tags=(), answer_types=()) if self._other_dataset(run) else {}
                self.set_filter(self.filter.with_(run=run, compare=cmp_, dataset=None, **keep))

        self.app.push_screen(RunPicker("Show run", self.filter.run, None), done)

    def _other_dataset(self, run: str) -> bool:
        return self.info is None or run not in self.info.runs

    def action_compare_columns(self) -> None:
        if self.info is None:
            return

        def done(run: str | None) -> None:
            if run is None:
                return
            value = None if run == "" else run
            self.set_filter(self.filter.with_(compare=value, only_disagree=self.filter.only_disagree and bool(value)))

        others = [r for r in self.info.runs if r != self.filter.run]
        if not others:
            self.notify("No other run on this dataset to compare with.", severity="warning")
            return
        self.app.push_screen(RunPicker("Compare with", self.filter.compare, others, allow_none=True), done)

    def action_toggle_disagree(self) -> None:
        if not self.filter.compare:
            self.notify("Disagreement needs a run B: press C to add its columns.", severity="warning")
            return
        self.set_filter(self.filter.with_(only_disagree=not self.filter.only_disagree))

    def action_toggle_errors(self) -> None:
        f = self.filter
        cdqa = self.info is not None and is_cdqa(self.info.scorer, self.info.family)
        if cdqa:
            on_ = f.f1_max is not None
            self.set_filter(f.with_(f1_max=None if on_ else 0.999999, refused=None))
        else:
            self.set_filter(f.with_(em=None if f.em == 0 else 0))

    def action_sort(self) -> None:
        table = self.query_one(ItemTable)
        choices = [c.sort for c in table.cols if c.sort]
        labels = {c.sort: c.label for c in table.cols if c.sort}

        def done(sort: str | None) -> None:
            if sort:
                self.on_item_table_sort(ItemTable.Sort(sort))

        self.app.push_screen(RunPicker("Sort by (again: reverse)", self.filter.sort, choices, labels=labels), done)

    def action_reverse(self) -> None:
        self.set_filter(self.filter.with_(descending=not self.filter.descending))

    def action_clear(self) -> None:
        f = self.filter
        box = self.query_one("#search", Input)
        box.value = ""
        box.add_class("hidden")
        self.set_filter(Filter(dataset=f.dataset, run=f.run, compare=f.compare, sort=f.sort, descending=f.descending))
