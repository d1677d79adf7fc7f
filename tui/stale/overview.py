"""The runs overview's stale part: numbers in either metrics mode, the mode and stale counts in
the titles."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from qa_inspect.core.report import (
    DatasetOverview,
    StaleCounts,
    overview_excluding_stale,
    stale_counts,
)

from .actions import StaleActions, exclude_stale, mode_parts
from .jobs import plural
from .messages import StaleOverviewCounts


class OverviewStale(StaleActions):
    """Mixed into `OverviewScreen` before `BaseScreen`."""

    if TYPE_CHECKING:  # provided by OverviewScreen
        def load(self) -> None: ...

    def stale_adjust(self, conn: sqlite3.Connection, datasets: list[DatasetOverview], *,
                     slices: bool = True) -> list[DatasetOverview]:
        """Worker thread: tell the screen the stale counts, and re-score in excluded mode."""
        self.post_message(StaleOverviewCounts(stale_counts(conn)))
        if not exclude_stale(self.qa_app):
            return datasets
        # kept by core under a stamp of the data and the journal: toggling re-scores nothing
        return overview_excluding_stale(conn, datasets, slices=slices)

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
