"""The runs overview's stale part: numbers in either metrics mode, the mode and stale counts in
the dataset titles. `StaleTitles` is owned by the overview screen; `adjust` runs in its worker."""

from __future__ import annotations

import sqlite3
from typing import Any

from textual.worker import get_current_worker

from qa_inspect.core.report import (
    DatasetOverview,
    StaleCounts,
    item_frame_excluding_stale,
    overview_excluding_stale,
    stale_counts,
)

from ..base import BaseScreen
from .actions import exclude_stale, mode_parts
from .jobs import plural


class StaleTitles:
    """Stale golds per dataset (for the titles) and the overview re-scored in excluded mode."""

    def __init__(self, host: BaseScreen) -> None:
        self.host = host
        self.counts: dict[str, StaleCounts] = {}
        self._frame: tuple[Any, Any] | None = None
        """(worker, re-scored item frame): shared by one worker's quick and full pass only."""

    def _set_counts(self, counts: dict[str, StaleCounts]) -> None:
        self.counts = counts

    def adjust(self, conn: sqlite3.Connection, datasets: list[DatasetOverview], *,
               slices: bool = True) -> list[DatasetOverview]:
        """Worker thread: hand the screen the stale counts, and re-score in excluded mode."""
        self.host.call_later(self._set_counts, stale_counts(conn))
        if not exclude_stale(self.host.qa_app):
            return datasets
        worker = get_current_worker()
        cached = self._frame  # only this worker's thread reads or writes it
        if cached is None or cached[0] is not worker:
            cached = self._frame = (worker, item_frame_excluding_stale(conn, None, human=True))
        out = overview_excluding_stale(conn, datasets, slices=slices, frame=cached[1])
        if slices:  # the full pass comes last: free the frame
            self._frame = None
        return out

    def title_parts(self, dataset: str) -> list[tuple[str, str]]:
        """For a dataset's title: its stale golds, and what excluded mode leaves out."""
        c = self.counts.get(dataset)
        if c is None or not c.golds:
            return []
        if exclude_stale(self.host.qa_app):
            text = f"  ⚑ {c.golds} stale excluded" + (f", {plural(c.dropped, 'item')} dropped" if c.dropped else "")
            return [(text, "$warning")]
        return [(f"  ⚑ {c.golds} stale", "$warning")]

    def mode_parts(self) -> list[tuple[str, str]]:
        return [(" · ", "$foreground-muted"), *mode_parts(self.host.qa_app)]


__all__ = ["StaleTitles"]
