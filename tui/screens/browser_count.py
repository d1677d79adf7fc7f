"""The item browser's count and metrics: cached per set of items, else counted in a worker while
the first page already shows ("counting…"); a count a newer filter made useless is interrupted.

At a million items a count is a pass over every matching item (seconds); a page is an index walk
(milliseconds, `core.query.paging`). So the page never waits for the count, a sort or a filter
toggled back (`w` twice) never recounts, and typing never leaves a queue of counts running.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import work
from textual.message import Message
from textual.worker import get_current_worker

from qa_inspect.core import query
from qa_inspect.core.query import Filter, SliceMetrics

from ..workers import Db

__all__ = ["BrowserCount", "CountCached", "CountLoaded"]


@dataclass
class CountLoaded(Message):
    """Count and slice metrics of a filter; `generation` lets the screen drop stale answers."""

    generation: int
    filter: Filter
    total: int
    metrics: SliceMetrics


@dataclass
class CountCached(Message):
    """A finished count, kept for the filter's set of items (a cancelled worker's too)."""

    filter: Filter
    metrics: SliceMetrics
    epoch: int


class BrowserCount:
    """Mixed into `BrowserScreen` before `BaseScreen`."""

    if TYPE_CHECKING:  # provided by BrowserScreen / BaseScreen
        db: Db
        __dict__: dict[str, Any]

        def post_message(self, message: Message) -> bool: ...

    def init_counts(self) -> None:
        self._counts: dict[Filter, SliceMetrics] = {}
        """By set of items (the filter, sort aside), until the data changes (`forget_counts`)."""
        self._count_epoch = 0
        self._count_lock = threading.Lock()
        self._count_conn: sqlite3.Connection | None = None

    def forget_counts(self) -> None:
        """Flags changed what items count as: counts of before are not reused (nor kept when a
        worker started before finishes after)."""
        self._counts.clear()
        self._count_epoch += 1

    def start_count(self, generation: int, f: Filter) -> None:
        """Count and metrics of `f`: from the cache when this set of items was counted before (a
        sort, or `w` twice, never recounts), else in a worker while the first page shows
        ("counting…"); a count a newer filter made useless is interrupted, not left running."""
        cached = self._counts.get(f.with_(sort="key", descending=False))
        self._interrupt_count()
        if cached is not None:
            self.post_message(CountLoaded(generation, f, cached.items, cached))
            return
        self.load_count(generation, f)

    def _interrupt_count(self) -> None:
        with self._count_lock:
            if self._count_conn is not None:
                self._count_conn.interrupt()

    @work(thread=True, exclusive=True, exit_on_error=False, group="count")
    def load_count(self, generation: int, f: Filter) -> None:
        epoch = self._count_epoch
        try:
            with self.db.connect() as conn:
                with self._count_lock:
                    self._count_conn = conn
                try:
                    m, b = query.metrics_ab(conn, f)  # one pass: A, B and the item count
                finally:
                    with self._count_lock:
                        self._count_conn = None if self._count_conn is conn else self._count_conn
        except sqlite3.OperationalError as exc:
            if "interrupted" not in str(exc):  # else a newer filter asked for its own count
                raise
            return
        m.extra["compare"] = b
        self.post_message(CountCached(f, m, epoch))
        if not get_current_worker().is_cancelled:
            self.post_message(CountLoaded(generation, f, m.items, m))

    def on_count_cached(self, message: CountCached) -> None:
        if message.epoch != self._count_epoch or len(self._counts) > 64:
            return
        self._counts[message.filter.with_(sort="key", descending=False)] = message.metrics

