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

WindowLoaded = Callable[[int, Filter, int | None, list[ItemRow], int], None]
"""(generation, filter, start, rows `start … start+len(rows)`, row (absolute) for the cursor);
start None: a window around an item not yet placed, the cursor its index in the rows."""
WindowPlaced = Callable[[int, int, int | None], None]
"""(generation, item id, its position): the start of the unplaced window shown last, counted."""


class ItemWindows:
    """Runs one info read and one window read at a time on the screen's workers."""

    def __init__(self, host: BaseScreen, info_loaded: Callable[[BrowseInfo], None], loaded: WindowLoaded,
                 columns: Callable[[Filter], tuple[str, ...]] = lambda f: (),
                 placed: WindowPlaced = lambda generation, item_id, position: None) -> None:
        """`columns`: the registry columns the table shows for a filter (a window reads their values too);
        `placed`: the position of a window around an item, counted after it showed."""
        self.host = host
        self.placed = placed
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
        a page walk. Else (or when it moved out of it) the rows each side of the item by keyset on
        the sort key are shown at once with the cursor on it, unplaced; its position (a count of
        the rows before it, a second at a million items) follows."""
        with self.host.db.connect() as conn:
            if near is not None:
                start = max(0, near - WINDOW // 2)
                rows = query.page(conn, f, start, WINDOW, columns)
                ids = [r.item_id for r in rows]
                if item_id in ids:
                    self._post(self.loaded, generation, f, start, rows, start + ids.index(item_id))
                    return
            found = query.rows_around(conn, f, item_id, WINDOW // 2, WINDOW - WINDOW // 2 - 1, columns)
            if found is None:  # the item is gone and nothing is around it: the top of the filter
                self._post(self.loaded, generation, f, 0, query.page(conn, f, 0, WINDOW, columns), 0)
                return
            rows, index = found
            self._post(self.loaded, generation, f, None, rows, index)
            anchor = rows[index].item_id  # the cursor's row: the item, or where it would stand
            self._post(self.placed, generation, anchor, query.position(conn, f, anchor))

    def _post(self, callback: Callable[..., None], *args: object) -> None:
        if not get_current_worker().is_cancelled:
            self.host.call_later(callback, *args)


__all__ = ["ItemWindows", "WindowLoaded", "WindowPlaced"]
