"""The item browser's count and metrics: cached per set of items, else counted in a worker while
the first page already shows ("counting…"); a count a newer filter made useless is interrupted.

At a million items a count is a pass over every matching item (seconds); a page is an index walk
(milliseconds, `core.query.paging`). So the page never waits for the count, a sort or a filter
toggled back (`w` twice) never recounts, and typing never leaves a queue of counts running.
Once a big run's first count is in, its count frame is read in the background
(`core.query.count_frame`): later filters of labels and run A's scores count from it in
milliseconds instead of a pass.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from functools import partial

from textual.worker import get_current_worker

from qa_inspect.core import query
from qa_inspect.core.query import Filter, SliceMetrics

from ..base import BaseScreen

Counted = Callable[[int, Filter, SliceMetrics], None]
"""(generation, filter, metrics with `extra["compare"]` = run B's): the count is in."""


class ItemCounts:
    """Counts and metrics of the filters a browser showed, by set of items; `counted` gets each
    answer on the UI thread (the generation tells the screen whether it is still wanted)."""

    def __init__(self, host: BaseScreen, counted: Counted) -> None:
        self.host = host
        self.counted = counted
        self._cache: dict[Filter, SliceMetrics] = {}
        """By set of items (the filter, sort aside), until the data changes (`forget`)."""
        self._epoch = 0
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._framed: set[str] = set()
        """Runs whose count frame this browser asked for (read once per run and process)."""

    def forget(self) -> None:
        """Flags changed what items count as: counts of before are not reused (nor kept when a
        worker started before finishes after)."""
        self._cache.clear()
        self._epoch += 1

    def start(self, generation: int, f: Filter) -> None:
        """Count and metrics of `f`: from the cache when this set of items was counted before (a
        sort, or `w` twice, never recounts), else in a worker while the first page shows
        ("counting…"); a count a newer filter made useless is interrupted, not left running."""
        cached = self._cache.get(f.with_(sort="key", descending=False))
        self._interrupt()
        if cached is not None:
            self.host.call_later(self.counted, generation, f, cached)
            return
        self.host.run_worker(partial(self._count, generation, f, self._epoch), thread=True, exclusive=True,
                             exit_on_error=False, group="count")

    def _interrupt(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.interrupt()

    def _count(self, generation: int, f: Filter, epoch: int) -> None:
        try:
            with self.host.db.connect() as conn:
                with self._lock:
                    self._conn = conn
                try:
                    m, b = query.metrics_ab(conn, f)  # one pass: A, B and the item count
                finally:
                    with self._lock:
                        self._conn = None if self._conn is conn else self._conn
        except sqlite3.OperationalError as exc:
            if "interrupted" not in str(exc):  # else a newer filter asked for its own count
                raise
            return
        m.extra["compare"] = b
        self.host.call_later(self._keep, f, m, epoch)
        if not get_current_worker().is_cancelled:
            self.host.call_later(self.counted, generation, f, m)

    def _keep(self, f: Filter, metrics: SliceMetrics, epoch: int) -> None:
        """A finished count, kept for the filter's set of items (a cancelled worker's too)."""
        if epoch != self._epoch or len(self._cache) > 64:
            return
        self._cache[f.with_(sort="key", descending=False)] = metrics
        if f.run and f.run not in self._framed:
            self._framed.add(f.run)
            self.host.run_worker(partial(self._frame, f), thread=True, exclusive=True, exit_on_error=False,
                                 group="count-frame")

    def _frame(self, f: Filter) -> None:
        """The run's count frame read (when its dataset is big), for the filters that follow."""
        with self.host.db.connect() as conn:
            query.count_frame(conn, f, min_items=query.COUNT_FRAME_MIN_ITEMS)


__all__ = ["Counted", "ItemCounts"]
