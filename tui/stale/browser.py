"""The item browser's stale part: a selection (`space`, `ctrl+a`), marking or clearing it in bulk,
and the slice's metrics without stale golds in the status line (`m`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work
from textual.worker import get_current_worker

from qa_inspect.core.query import Filter, SliceMetrics
from qa_inspect.core.report import StaleSlice, rescored_rows, slice_metrics_excluding_stale

from ..widgets import FacetPanel, ItemTable, SelectableItemTable
from .actions import StaleActions, exclude_stale, mode_parts
from .jobs import plural
from .messages import StaleMetricsLoaded

RescoreKey = tuple[int, str | None, str | None]
"""(writes so far, run, compare run): while it holds, the re-scored rows can be reused."""


class BrowserStale(StaleActions):
    """Mixed into `BrowserScreen` before `BaseScreen`: selection, bulk marking, excluded metrics."""

    filter: Filter
    generation: int

    if TYPE_CHECKING:  # provided by BrowserScreen
        total: int | None

        def query_one(self, *args: Any, **kwargs: Any) -> Any: ...
        def query(self, *args: Any, **kwargs: Any) -> Any: ...
        def refresh_items(self, cursor: int = 0, keep_item: int | None = None) -> None: ...
        def show_status(self) -> None: ...

    # -- selection ---------------------------------------------------------------------------
    @property
    def selected_ids(self) -> set[int]:
        s = self.__dict__.get("_stale_selected")
        if s is None:
            s = self.__dict__["_stale_selected"] = set()
        return s

    @property
    def select_filter(self) -> Filter | None:
        """"Every item matching the filter" is selected (only while the filter stays the same)."""
        f = self.__dict__.get("_stale_select_filter")
        return f if f is not None and f.same_items(self.filter) else None

    def is_selected(self, item_id: int) -> bool:
        return self.select_filter is not None or item_id in self.selected_ids

    def _table(self) -> ItemTable:
        return self.query_one(ItemTable)

    def _redraw_marks(self, row: int | None = None) -> None:
        table = self._table()
        if isinstance(table, SelectableItemTable):
            table.refresh_marks(row)
        self.show_status()

    def action_toggle_select(self) -> None:
        table = self._table()
        row = table.current
        if row is None:
            return
        if self.select_filter is not None:
            self.notify("Every item of the filter is selected; ctrl+a clears the selection.")
            return
        self.__dict__["_stale_select_filter"] = None
        ids = self.selected_ids
        ids.symmetric_difference_update({row.item_id})
        self._redraw_marks(table.cursor_row)
        table.action_cursor_down()

    def action_select_all(self) -> None:
        if self.select_filter is not None or self.selected_ids:
            self.stale_clear_selection()
            return
        self.__dict__["_stale_select_filter"] = self.filter
        self._redraw_marks()

    def stale_clear_selection(self) -> None:
        self.selected_ids.clear()
        self.__dict__["_stale_select_filter"] = None
        self._redraw_marks()

    def stale_bulk_done(self) -> None:
        self.stale_clear_selection()

    # -- marking -----------------------------------------------------------------------------
    def action_mark_stale(self) -> None:
        self._stale_act("mark")

    def action_unmark_stale(self) -> None:
        self._stale_act("unmark")

    def _stale_act(self, action: str) -> None:
        if self.select_filter is not None:
            self.stale_bulk(action, f=self.filter)
        elif self.selected_ids:
            self.stale_bulk(action, item_ids=sorted(self.selected_ids))
        else:
            row = self._table().current
            if row is None:
                return
            if action == "mark":
                self.stale_open_form(row.item_id)
            else:
                self.stale_unmark_item(row.item_id)

    def stale_changed(self) -> None:
        row = self._table().current
        self.refresh_items(keep_item=row.item_id if row is not None else None)
        self._facets_changed()

    def _facets_changed(self) -> None:
        """Flags are a facet (and stale golds change error counts): the panel counts again."""
        panels = self.query(FacetPanel)
        if panels:
            panels.first().follow(self.filter, data_changed=True)

    def stale_refresh_if_outdated(self, item_id: int | None) -> bool:
        """Back from the detail view: a flag changed there, reload rows and numbers (cursor on `item_id`)."""
        if not self.stale_outdated():
            return False
        self.stale_seen = self.stale_version()
        if item_id is None:
            row = self._table().current
            item_id = row.item_id if row is not None else None
        self.refresh_items(keep_item=item_id)
        self._facets_changed()
        return True

    # -- excluded metrics --------------------------------------------------------------------
    def stale_mode_changed(self) -> None:
        self.__dict__["_stale_slice"] = None
        if exclude_stale(self.qa_app):
            self._stale_slice_start(self.generation, self.filter)
        self.show_status()

    def on_count_loaded(self, message: Any) -> None:
        """After the browser's own handler: in excluded mode, re-score the slice too."""
        if exclude_stale(self.qa_app) and message.generation == self.generation:
            self._stale_slice_start(message.generation, message.filter)

    def _stale_slice_start(self, generation: int, f: Filter) -> None:
        key: RescoreKey = (self.stale_version()[0], f.run, f.compare)
        cached = self.__dict__.get("_stale_rescored")
        self._stale_slice_worker(generation, f, key, cached[1] if cached and cached[0] == key else None)

    @work(thread=True, exclusive=True, exit_on_error=False, group="stale-metrics")
    def _stale_slice_worker(self, generation: int, f: Filter, key: RescoreKey, rescored: Any) -> None:
        with self.db.connect() as conn:
            if rescored is None:
                rescored = rescored_rows(conn, [r for r in (f.run, f.compare) if r])
            result = slice_metrics_excluding_stale(conn, f, rescored)
        if not get_current_worker().is_cancelled:
            self.post_message(StaleMetricsLoaded(generation, result, (key, rescored)))

    def on_stale_metrics_loaded(self, message: StaleMetricsLoaded) -> None:
        if message.rescored is not None:
            self.__dict__["_stale_rescored"] = message.rescored
        if message.generation == self.generation:
            self.__dict__["_stale_slice"] = (message.generation, message.result)
            self.show_status()

    @property
    def stale_slice(self) -> StaleSlice | None:
        """The excluded-mode numbers of the filter on screen (None while computing or in all-golds mode)."""
        got = self.__dict__.get("_stale_slice")
        if not exclude_stale(self.qa_app) or got is None or got[0] != self.generation:
            return None
        return got[1]

    def stale_metrics(self, metrics: SliceMetrics | None,
                      compare: SliceMetrics | None) -> tuple[SliceMetrics | None, SliceMetrics | None]:
        """The metrics the status line shows in the current mode (None while being computed)."""
        if not exclude_stale(self.qa_app):
            return metrics, compare
        s = self.stale_slice
        if s is None:
            return None, None
        return s.metrics, s.compare if compare is not None else None

    def stale_status_parts(self) -> list[tuple[str, str]]:
        """Mode and selection, for the status line."""
        sep = ("  │  ", "$foreground-muted")
        parts: list[tuple[str, str]] = [sep, *mode_parts(self.qa_app)]
        if exclude_stale(self.qa_app):
            s = self.stale_slice
            if s is None:
                parts.append(("…", "$foreground-muted"))
            elif s.dropped:
                parts.append((f" · {plural(s.dropped, 'item')} dropped", "$foreground-muted"))
        parts.append((" (m)", "$foreground-muted"))
        if self.select_filter is not None:
            total = self.total
            parts += [sep, (f"all {total:,} selected" if total is not None else "all selected", "bold $warning")]
        elif self.selected_ids:
            parts += [sep, (f"{len(self.selected_ids):,} selected", "bold $warning")]
        return parts
