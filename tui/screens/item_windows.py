"""The item browser's reads in workers: what it needs before its first query (`browse_info`) and
windows of rows (`core.query.page`): at the top, where the user scrolled, or around an item.
Each answer comes back on the UI thread with the generation it was asked for, so the screen
drops what a newer filter made useless."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.worker import get_current_worker

from qa_inspect.core import query
from qa_inspect.core.query import Filter, ItemRow
from qa_inspect.core.report import BrowseInfo, browse_info

from ..base import BaseScreen
from ..widgets import WINDOW

WindowLoaded = Callable[[int, Filter, int, list[ItemRow], int], None]
"""(generation, filter, start, rows `start … start+len(rows)`, row (absolute) for the cursor)."""


class ItemWindows:
    """Runs one info read and one window read at a time on the screen's workers."""

    def __init__(self, host: BaseScreen, info_loaded: Callable[[BrowseInfo], None], loaded: WindowLoaded,
                 columns: Callable[[Filter], tuple[str, ...]] = lambda f: ()) -> None:
        """`columns`: the registry columns the table shows for a filter (a window reads their values too)."""
        self.host = host
        self.info_loaded = info_loaded
        self.loaded = loaded
        self.columns = columns

    def _run(self, job: Callable[[], None], group: str) -> None:
        self.host.run_worker(job, thread=True, exclusive=True, exit_on_error=False, group=group)

    def info(self, f: Filter) -> None:
        """Runs, scorer, label values and id width of `f`'s run (or dataset)."""
        self._run(partial(self._info, f), "info")

    def _info(self, f: Filter) -> None:
        with self.host.db.connect() as conn:
            info = browse_info(conn, f.run, f.dataset)
        if not get_current_worker().is_cancelled:
            self.host.call_later(self.info_loaded, info)

    def window(self, generation: int, f: Filter, start: int, cursor: int) -> None:
        """Rows from `start`, the cursor on row `cursor`."""
        self._run(partial(self._window, generation, f, start, cursor, self.columns(f)), "window")

    def _window(self, generation: int, f: Filter, start: int, cursor: int, columns: tuple[str, ...]) -> None:
        with self.host.db.connect() as conn:
            rows = query.page(conn, f, start, WINDOW, columns)
        if not get_current_worker().is_cancelled:
            self.host.call_later(self.loaded, generation, f, start, rows, cursor)

    def around(self, generation: int, f: Filter, item_id: int, near: int | None = None) -> None:
        """The window around `item_id`'s row (one window load at a time, as `window`)."""
        self._run(partial(self._around, generation, f, item_id, near, self.columns(f)), "window")

    def _around(self, generation: int, f: Filter, item_id: int, near: int | None, columns: tuple[str, ...]) -> None:
        """`near`: where it was (a flag marked, the data re-read): that window is looked at first,
        a page walk; ranking every item of the filter to find the row (seconds at a million) only
        when it moved out of it."""
        with self.host.db.connect() as conn:
            start = max(0, (near or 0) - WINDOW // 2)
            rows = query.page(conn, f, start, WINDOW, columns) if near is not None else []
            ids = [r.item_id for r in rows]
            if item_id in ids:
                pos = start + ids.index(item_id)
            else:
                found = query.position(conn, f, item_id)
                pos = 0 if found is None else found
                start = max(0, pos - WINDOW // 2)
                rows = query.page(conn, f, start, WINDOW, columns)
        if not get_current_worker().is_cancelled:
            self.host.call_later(self.loaded, generation, f, start, rows, pos)


__all__ = ["ItemWindows", "WindowLoaded"]
