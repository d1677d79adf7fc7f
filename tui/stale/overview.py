"""The runs overview's stale part: numbers in either metrics mode, the mode and stale counts in
the titles."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from qa_inspect.core.report import (
    DatasetOverview,
    StaleCounts,
    item_frame_excluding_stale,
    overview_excluding_stale,
    stale_counts,
)

from .actions import StaleActions, exclude_stale, mode_parts
from .jobs import plural
from .messages import StaleOverviewCounts


class OverviewStale(StaleActions):
    """Mixed into `OverviewScreen` before `BaseScreen`."""

    if TYPE_CHECKING:  # provided by OverviewScreen
        def load(self) -> object: ...  # a @work worker

    def stale_adjust(self, conn: sqlite3.Connection, datasets: list[DatasetOverview], *,
                     slices: bool = True) -> list[DatasetOverview]:
        """Worker thread: tell the screen the stale counts, and re-score in excluded mode."""
        self.post_message(StaleOverviewCounts(stale_counts(conn)))
        if not exclude_stale(self.qa_app):
            return datasets
        worker = get_current_worker()
        cached = self.__dict__.get("_stale_frame")  # only this worker's thread reads or writes it
        if cached is None or cached[0] is not worker:
            cached = self.__dict__["_stale_frame"] = (worker, item_frame_excluding_stale(conn, None, human=True))
        out = overview_excluding_stale(conn, datasets, slices=slices, frame=cached[1])
        if slices:  # the full pass comes last: free the frame
            self.__dict__.pop("_stale_frame", None)
        return out

    @property
    def stale_counts(self) -> dict[str, StaleCounts]:
        return self.__dict__.get("_stale_counts", {})

    def on_stale_overview_counts(self, message: StaleOverviewCounts) -> None:
        self.__dict__["_stale_counts"] = message.counts

    def stale_title_parts(self, dataset: str) -> list[tuple[str, str]]:
        """For a dataset's title: its stale golds, and what excluded mode leaves out."""
        c = self.stale_counts.get(dataset)
        if c is None or not c.golds:
            return []
        if exclude_stale(self.qa_app):
            text = f"  ⚑ {c.golds} stale excluded" + (f", {plural(c.dropped, 'item')} dropped" if c.dropped else "")
            return [(text, "$warning")]
        return [(f"  ⚑ {c.golds} stale", "$warning")]

    def stale_mode_parts(self) -> list[tuple[str, str]]:
        return [(" · ", "$foreground-muted"), *mode_parts(self.qa_app)]

    def stale_changed(self) -> None:
        self.load()

    def stale_mode_changed(self) -> None:
        self.load()
