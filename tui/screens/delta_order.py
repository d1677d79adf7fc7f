"""The browser's Δ order: when a compare run is chosen, the pair's stored Δ order is built in a
worker (`core.query.build_delta_order`; seconds at a million items, once per pair the user
compares), so pages sorted by Δ walk an index instead of sorting every item. Meanwhile, and
wherever it cannot be built (a read-only database), Δ pages come from the sorted query: the
same rows, only slower; the browser stays usable throughout.
"""

from __future__ import annotations

import sqlite3
from functools import partial

from qa_inspect.core import query
from qa_inspect.core.query import Filter

from ..base import BaseScreen


class DeltaOrder:
    """The (run, compare run) pairs one browser asked to have ordered."""

    def __init__(self, host: BaseScreen) -> None:
        self.host = host
        self.asked: set[tuple[str | None, str | None]] = set()

    def follow(self, f: Filter) -> None:
        """Every filter change: a pair (run, compare run) not asked for yet on this screen gets
        its Δ order built (a fresh stored one is only checked: well under a millisecond)."""
        pair = (f.run, f.compare)
        if not f.run or not f.compare or f.run == f.compare or pair in self.asked:
            return
        self.asked.add(pair)
        self.host.run_worker(partial(self._build, f), thread=True, exclusive=False, exit_on_error=False,
                             group="delta-order")

    def _build(self, f: Filter) -> None:
        try:
            with self.host.db.connect() as conn:
                query.build_delta_order(conn, f)
        except sqlite3.Error:  # interrupted (the app closed) or the database went away: no order, no harm
            self.asked.discard((f.run, f.compare))


__all__ = ["DeltaOrder"]
