"""Item browser: the items of a run under a filter, with the slice's count and metrics.

Every filter change bumps `generation` and starts two exclusive workers — count + metrics, and
the first window of rows — so a fast typist never sees an older filter's answer land last.

The screen holds the filter and its counts (vars); what it does besides lives in objects it owns
(see the `tui.screens` face): windows, counts, Δ order, columns, split view, export, filter keys,
labels, and from `tui.stale` the selection, the excluded metrics and `StaleActions`.

Following `s` (mark a gold stale) from a browser row, six files:
  1. `stale/keys.py` — `BROWSER_STALE_BINDINGS`: `s` is the action `mark_stale`;
  2. `screens/browser.py` — `BrowserScreen.action_mark_stale`: the selection, else the row under the
     cursor, goes to `self.stale` (`open_form`, or `bulk` for a selection);
  3. `stale/screen.py` — `StaleScreen`, the browser's base, builds `self.stale` with the browser's
     `stale_changed` as what to do after a write;
  4. `stale/actions.py` — `StaleActions` reads the form's data in a worker, opens `StaleForm`,
     queues the write and, once written, calls `stale_changed` (back in browser.py: rows and
     numbers again, the cursor kept);
  5. `stale/jobs.py` — `form_data` and `mark_job`: what runs on the connection (over `core.flags`);
  6. `stale/form.py` — `StaleForm`: the dialog that says which gold, why, and what replaces it.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.events import Resize
from textual.reactive import var
from textual.widgets import Header, Static

from qa_inspect.core.query import Filter, ItemRow, SliceMetrics
from qa_inspect.core.report import BrowseInfo

from ..dialogs import SaveSliceDialog
from ..stale import ExcludedMetrics, Selection, StaleScreen
from ..text import clean
from ..widgets import (
    TABLE_KEYS,
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
from .browser_keys import BROWSER_BINDINGS, SORT_LABELS
from .column_fit import ColumnFit
from .compare import open_compare
from .compare_tables import scope_of
from .delta_order import DeltaOrder
from .detail import DetailScreen, TotalLoaded
from .distribution import DistributionScreen
from .filter_keys import FilterKeys, cleared, errors_toggled, sorted_by, with_pair
from .item_counts import ItemCounts
from .item_export import ItemExport, export_name
from .item_windows import ItemWindows
from .aliases import AliasActions
from .labels import LabelActions, LabelScope
from .search_box import SearchBox
from .split_view import SplitView


class BrowserScreen(StaleScreen):
    """Filter bar, status line and the item table of one run."""

    HELP_TITLE = "Item browser"
    HELP_EXTRA = TABLE_KEYS
    HELP_WIDGETS = (("Facet panel (ctrl+f)", FacetList),)
    BINDINGS: ClassVar[list[BindingType]] = BROWSER_BINDINGS

    filter: var[Filter] = var(Filter, init=False)
    """What the table shows: run, compared run, sort and every filter (`set_filter` applies one)."""
    total: var[int | None] = var(None, init=False)
    """The filter's item count (None while counting)."""
    metrics: var[SliceMetrics | None] = var(None, init=False)
    compare_metrics: var[SliceMetrics | None] = var(None, init=False)
    """Run A's and run B's numbers over the filter (None while counting)."""

    def __init__(self, f: Filter, *, slice_name: str | None = None) -> None:
        super().__init__()
        self.filter = f
        self.slice_name = slice_name
        """The saved slice this browser shows (opened from it, or saved here); export names files after it."""
        self.slice_filter = f if slice_name is not None else None
        self.generation = 0
        self.count_generation = -1  # the generation whose count/rows are on screen (tests, bench)
        self.window_generation = -1
        self.info: BrowseInfo | None = None
        self._last_width = 0
        self.windows = ItemWindows(self, self.info_loaded, self.window_loaded, lambda f: self.columns.wanted(f),
                                   self.window_placed)
        self.counts = ItemCounts(self, self.counted)
        self.delta_order = DeltaOrder(self)
        self.columns = ColumnFit(self)
        self.split_view = SplitView(self)
        self.export = ItemExport(self)
        self.selection = Selection(lambda: self.filter)
        self.excluded = ExcludedMetrics(self, self.show_status)
        self.label_actions = LabelActions(self, self.stale, self.label_scope)
        self.alias_actions = AliasActions(self, self.stale, self.label_scope)
        self.filter_keys = FilterKeys(self, lambda: self.filter, lambda: self.info, self.set_filter)

    def compose(self) -> ComposeResult:
        yield Header()
        yield FilterBar(id="filter-bar")
        yield SearchBox(id="search")
        yield StatusLine(id="status")
        yield Static(id="items-empty")
        with Horizontal(id="browser-body"):
            with Horizontal(id="items-pane"):  # the bar stays beside the list when facets go below it
                yield SelectableItemTable(self.selection.has, id="items")
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
        self.watch(table, "show_horizontal_scrollbar", self._place_after_refresh, init=False)
        self.windows.info(self.filter)

    def info_loaded(self, info: BrowseInfo) -> None:
        """What the browser needs before its first query: runs, scorer, label values, id width."""
        self.filter = self.filter_keys.arrived(self.filter, self.info, info)  # chips say what the rows are
        self.info = info
        self.refresh_items(cursor=0)

    # -- state -------------------------------------------------------------------------------
    def set_filter(self, f: Filter, *, keep_item: int | None = None) -> None:
        """Apply a new filter: columns if the run or comparison changed, then count and rows."""
        run_changed = f.run != self.filter.run
        self.filter = f
        self.qa_app.remember_filter(f)
        if run_changed:
            self.windows.info(f)
            return
        self.refresh_items(cursor=0, keep_item=keep_item, same_data=True)

    def refresh_items(self, cursor: int = 0, keep_item: int | None = None, *, same_data: bool = False) -> None:
        """Start the workers first (they wait for the UI thread otherwise), then update widgets.
        Only a new filter keeps the cached counts (`same_data`): flags may change the counts."""
        self.generation += 1
        self.total = None
        self.metrics = self.compare_metrics = None  # the old filter's numbers are not shown beside "counting…"
        if not same_data:
            self.counts.forget()
        self.counts.start(self.generation, self.filter)
        if keep_item is not None:
            table = self.query_one(ItemTable)
            here = table.current is not None and table.current.item_id == keep_item
            self.windows.around(self.generation, self.filter, keep_item, table.absolute_cursor if here else None)
        else:
            self.windows.window(self.generation, self.filter, 0, cursor)
        self.rebuild_columns(refill=False)
        self.show_status()
        self.query_one(FilterBar).show(self.filter, self.size.width)
        self.query_one(FacetPanel).follow(self.filter)  # counts again (debounced, in its worker) if shown
        self.delta_order.follow(self.filter)  # the compared pair's Δ order, built once

    def rebuild_columns(self, *, refill: bool = True) -> None:
        if self.info is None:
            return
        table = self.query_one(ItemTable)
        width = table.size.width or self.size.width or self.app.size.width  # less while the facet panel is beside it
        cols = self.columns.fit(self.info, self.filter, width)  # the user's choice (k), or what fits
        table.set_columns(cols, self.filter.sort, self.filter.descending, refill=refill)
        self._last_width = self.size.width

    def show_status(self) -> None:
        table = self.query_one(ItemTable)
        label = SORT_LABELS.get(self.filter.sort, self.filter.sort) + (" ↓" if self.filter.descending else " ↑")
        metrics, compare = self.excluded.shown(self.generation, self.metrics,
                                               self.compare_metrics if self.filter.compare else None)
        self.query_one(StatusLine).show(
            self.total, self.info.items if self.info else None, metrics, compare, label,
            table.known_cursor,
            extra=self.excluded.status_parts(self.generation) + self.selection.status_parts(self.total),
            notice=self.columns.hidden_parts(),
        )
        self.show_place()

    def _place_after_refresh(self) -> None:
        self.call_after_refresh(self.show_place)

    def show_place(self) -> None:
        """The result bar: where the rows on screen sit among all the filter's items."""
        table = self.query_one(ItemTable)
        shown = max(1, table.scrollable_content_region.height - 1)
        total = (self.total if self.total is not None else table.win_total) if table.win_known else 0  # unplaced: no bar
        self.query_one(ResultBar).show(total, table.win_start + int(table.scroll_y), min(shown, total))

    # -- messages ----------------------------------------------------------------------------
    def counted(self, generation: int, f: Filter, metrics: SliceMetrics) -> None:
        """`ItemCounts` has the count of `f`: show it if it is still the filter's on screen."""
        if generation != self.generation:
            return
        self.count_generation = generation
        self.total = metrics.items
        self.metrics = metrics
        self.compare_metrics = metrics.extra.get("compare")
        table = self.query_one(ItemTable)
        table.win_total = metrics.items
        self.show_status()
        self._show_empty(metrics.items == 0)
        detail = self.app.screen
        if isinstance(detail, DetailScreen) and detail.total is None and detail.filter == self.filter:
            detail.post_message(TotalLoaded(metrics.items))  # it was opened before the count came
        self.excluded.start(generation, f)  # in excluded mode, re-score the slice too

    def _show_empty(self, empty: bool) -> None:  # an empty result says so and how to get out of it
        line = self.query_one("#items-empty", Static)
        line.display = empty
        if empty:
            line.update(Content.assemble(
                ("No items match this filter.", "bold $warning"),
                ("  x clears every filter but the run · f opens the filters · / searches", "$foreground-muted")))

    def window_loaded(self, generation: int, f: Filter, start: int | None, rows: list[ItemRow], cursor: int) -> None:
        if generation != self.generation:
            return
        self.window_generation = generation
        table = self.query_one(ItemTable)
        total = self.total if self.total is not None else max((start or 0) + len(rows), table.win_total)
        table.show_window(start, rows, cursor, total)
        self.show_status()

    def window_placed(self, generation: int, item_id: int, position: int | None) -> None:  # after an unplaced window
        if generation == self.generation and self.query_one(ItemTable).place(item_id, position):
            self.show_status()

    def on_item_table_need_window(self, message: ItemTable.NeedWindow) -> None:
        self.windows.window(self.generation, self.filter, message.start, message.cursor)

    def on_item_table_sort(self, message: ItemTable.Sort) -> None:
        self.set_filter(sorted_by(self.filter, message.sort))

    @on(ItemTable.RowHighlighted)
    def _row_moved(self) -> None:
        self.show_status()
        self.split_view.follow(self.filter.run)

    @on(ItemTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_open()

    def on_resize(self, event: Resize) -> None:
        self.split_view.follow(self.filter.run)
        if self.info is not None and abs(event.size.width - self._last_width) > 0:
            self._relayout()

    def _relayout(self) -> None:
        """The columns laid out for the table's width, the rows on screen drawn in them."""
        table = self.query_one(ItemTable)
        self.rebuild_columns()
        if table.win_rows:
            table.show_window(table.known_start, table.win_rows, table.absolute_cursor, table.win_total)

    # -- actions -----------------------------------------------------------------------------
    def label_scope(self) -> LabelScope:
        """Labels act on the selection when there is one, else on the row under the cursor."""
        if self.selection.every is not None:
            return self.filter.run, None, self.filter, True
        if self.selection.ids:
            return self.filter.run, sorted(self.selection.ids), None, True
        row = self.query_one(ItemTable).current
        return self.filter.run, [row.item_id] if row is not None else None, None, False

    def action_open(self) -> None:
        row = self.query_one(ItemTable).current
        if row is None:
            return
        table = self.query_one(ItemTable)
        nav = [r.item_id for r in table.win_rows] if table.win_known else []  # unplaced: the detail counts
        screen = DetailScreen(self.filter, row.item_id, nav=nav, nav_start=table.win_start, total=self.total,
                              total_coming=self.total is None)
        self.app.push_screen(screen, lambda item_id: self._back_from_detail(item_id, screen.position))

    def _back_from_detail(self, item_id: int | None, position: int | None = None) -> None:
        """n/p may have moved on in the detail view: follow it in the table (at the row the detail
        counted it at: finding an item's row anew ranks every item of the filter, seconds at 1M)."""
        if self.stale.outdated():  # a flag changed there: reload rows and numbers, cursor on `item_id`
            self.stale.shown()
            self._reload(item_id)
            return
        table = self.query_one(ItemTable)
        if item_id is None or (table.current is not None and table.current.item_id == item_id):
            return
        ids = [r.item_id for r in table.win_rows]
        if item_id in ids:
            table.move_cursor(row=ids.index(item_id))
            return
        self.generation += 1
        self.counts.start(self.generation, self.filter)
        self.windows.around(self.generation, self.filter, item_id, position)  # the page there, else by keyset

    def action_search(self) -> None:
        self.query_one(SearchBox).open(self.filter.search)

    def on_search_box_search(self, message: SearchBox.Search) -> None:
        if message.text != self.filter.search:
            self.set_filter(self.filter.with_(search=message.text))
        if message.submitted:
            self.query_one(ItemTable).focus()

    def action_back(self) -> None:
        box = self.query_one(SearchBox)
        if self.focused is box:
            box.close(self.filter.search)
            self.query_one(ItemTable).focus()
            return
        self.dismiss(None)

    def action_filters(self) -> None:
        self.filter_keys.filters()

    def action_choose_run(self) -> None:
        self.filter_keys.choose_run()

    def action_compare_columns(self) -> None:
        self.filter_keys.choose_compare()

    def action_toggle_disagree(self) -> None:
        self.filter_keys.toggle_disagree()

    def action_toggle_errors(self) -> None:
        self.set_filter(errors_toggled(self.filter, self.info))

    def action_sort(self) -> None:
        self.filter_keys.choose_sort(self.query_one(ItemTable).cols)

    def action_reverse(self) -> None:
        self.set_filter(self.filter.with_(descending=not self.filter.descending))

    def action_clear(self) -> None:
        self.query_one(SearchBox).clear()
        self.set_filter(cleared(self.filter))

    # -- stale flags and labels (u, U, m: StaleScreen) ---------------------------------------
    def action_mark_stale(self) -> None:
        self._stale_act("mark")

    def action_unmark_stale(self) -> None:
        self._stale_act("unmark")

    def _stale_act(self, action: str) -> None:
        """`s` / `S` on the selection (every item of the filter, or some), else on the row."""
        if self.selection.every is not None:
            self.stale.bulk(action, f=self.filter)
        elif self.selection.ids:
            self.stale.bulk(action, item_ids=sorted(self.selection.ids))
        elif (row := self.query_one(ItemTable).current) is not None:
            if action == "mark":
                self.stale.open_form(row.item_id)
            else:
                self.stale.unmark_item(row.item_id)

    def action_toggle_select(self) -> None:
        table = self.query_one(ItemTable)
        row = table.current
        if row is None:
            return
        if self.selection.every is not None:
            self.notify("Every item of the filter is selected; ctrl+a clears the selection.")
            return
        self.selection.toggle(row.item_id)
        self._redraw_marks(table.cursor_row)
        table.action_cursor_down()

    def action_select_all(self) -> None:
        if self.selection:
            self.unselect_all()
            return
        self.selection.select_every()
        self._redraw_marks()

    def unselect_all(self) -> None:
        self.selection.clear()
        self._redraw_marks()

    def _redraw_marks(self, row: int | None = None) -> None:
        self.query_one(SelectableItemTable).refresh_marks(row)
        self.show_status()

    def stale_bulk_done(self) -> None:
        self.unselect_all()

    def stale_changed(self) -> None:
        row = self.query_one(ItemTable).current
        self._reload(row.item_id if row is not None else None)

    def _reload(self, item_id: int | None) -> None:
        """Flags changed: rows and numbers again, the cursor on `item_id` (else the row under it);
        flags are a facet (and stale golds change error counts): the panel counts again."""
        if item_id is None and (row := self.query_one(ItemTable).current) is not None:
            item_id = row.item_id
        self.refresh_items(keep_item=item_id)
        self.query_one(FacetPanel).follow(self.filter, data_changed=True)

    def stale_mode_changed(self) -> None:
        self.excluded.forget()
        self.excluded.start(self.generation, self.filter)
        self.show_status()

    def action_label_dialog(self) -> None:
        self.label_actions.pick()

    def action_label_toggle(self, n: int) -> None:
        self.label_actions.toggle(n)

    def action_accept_alias(self) -> None:
        self.alias_actions.accept()

    # -- layout: columns, split view, distribution --------------------------------------------
    def action_columns(self, what: str = "choose") -> None:
        """`k`: choose and order the columns (kept per dataset); `F` a frequency table, `|` an expression."""
        if self.info is not None and self.query_one(ItemTable).cols:
            self.columns.act(what, self.info, self.filter, self.set_filter, lambda: self._reload(None))

    def action_toggle_split(self) -> None:
        self.split_view.toggle()
        self.split_view.follow(self.filter.run)

    def action_distribution(self) -> None:
        """`D`: the score histogram of this filter's items (and the A-vs-B grid with run B)."""
        if self.filter.run is None:
            self.notify("A distribution needs a run: press r to choose one.", severity="warning")
            return
        self.app.push_screen(DistributionScreen(self.filter))

    def on_item_table_resized(self, message: ItemTable.Resized) -> None:
        """The panel took or gave back width, or the terminal changed: once the table has its new
        size, lay its columns out for it (the screen's own resize handler sees the old size)."""
        if self.info is not None and self.query_one(ItemTable).cols:
            self._relayout()

    # -- triage: compare, facets, saved slices, export -----------------------------------------
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
        open_compare(self, f.run, list(self.info.runs), run_b=f.compare, scope=scope, done=self._compared)

    def _compared(self, result: Filter | None) -> None:
        """`b` on the compare screen: keep this filter, show runs A and B as compared there."""
        if result is not None:
            self.set_filter(with_pair(self.filter, result))

    def action_toggle_facets(self) -> None:
        """`ctrl+f`: show the facet panel and move into it; again: hide it."""
        panel = self.query_one(FacetPanel)
        if panel.shown and not panel.query_one(FacetList).has_focus:
            panel.query_one(FacetList).focus()
            return
        panel.follow(self.filter)
        panel.show(not panel.shown)
        (panel.query_one(FacetList) if panel.shown else self.query_one(ItemTable)).focus()
        self.split_view.follow(self.filter.run)  # the facet panel takes the split view's place while shown

    def on_facet_panel_selected(self, message: FacetPanel.Selected) -> None:
        self.set_filter(message.filter)

    def on_facet_panel_leave(self, message: FacetPanel.Leave) -> None:
        self.query_one(ItemTable).focus()

    def action_save_slice(self) -> None:
        """`ctrl+s`: name the current filter."""
        f = self.filter

        def done(name: str | None) -> None:
            if name:
                self.slice_name, self.slice_filter = name, f
                self.notify(f"Saved slice {clean(name)} (ctrl+o lists saved slices).", markup=False)

        self.app.push_screen(SaveSliceDialog(f, self.slice_name or ""), done)

    def action_export(self) -> None:
        """`e`: write the current item list to a file (format from the extension)."""
        self.export.ask(self.filter, export_name(self.filter, self.slice_name, self.slice_filter), self.total)
