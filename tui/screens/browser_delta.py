"""The browser's Δ order: when a compare run is chosen, the pair's stored Δ order is built in a
worker (`core.query.build_delta_order`; seconds at a million items, once per pair the user
compares), so pages sorted by Δ walk an index instead of sorting every item. Meanwhile, and
wherever it cannot be built (a read-only database), Δ pages come from the sorted query: the
same rows, only slower; the browser stays usable throughout.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from textual import work

from qa_inspect.core import query
from qa_inspect.core.query import Filter

from ..workers import Db

__all__ = ["BrowserDeltaOrder"]


class BrowserDeltaOrder:
    """Mixed into `BrowserScreen` before `BaseScreen`."""

    if TYPE_CHECKING:  # provided by BrowserScreen / BaseScreen
        db: Db
        filter: Filter
        __dict__: dict[str, Any]

    def follow_compare(self) -> None:
        """Every filter change: a pair (run, compare run) not asked for yet on this screen gets
        its Δ order built (a fresh stored one is only checked: well under a millisecond)."""
        f = self.filter
        pair = (f.run, f.compare)
        if not f.run or not f.compare or f.run == f.compare or pair in self.__dict__.setdefault("_ordered", set()):
            return
        self.__dict__["_ordered"].add(pair)
        self.build_delta_order(f)

    @work(thread=True, exclusive=False, exit_on_error=False, group="delta-order")
    def build_delta_order(self, f: Filter) -> None:
        try:
            with self.db.connect() as conn:
                query.build_delta_order(conn, f)
        except sqlite3.Error:  # interrupted (the app closed) or the database went away: no order, no harm
            self.__dict__.get("_ordered", set()).discard((f.run, f.compare))
