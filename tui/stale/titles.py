"""The runs overview's stale part: numbers in each metrics mode (all golds, stale golds excluded,
adjudicated), the mode and stale counts in the dataset titles. `StaleTitles` is owned by the
overview screen; `adjust` runs in its worker."""

from __future__ import annotations

import sqlite3
from typing import Any

from textual.worker import get_current_worker

from qa_inspect.core import report  # the lazy face: overview_adjudicated (numpy) loads when first used
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
        self.changed: set[str] = set()
        """Datasets whose numbers the mode changed (stale flags, aliases): their intervals, of the
        official numbers, are not shown beside them; every other dataset keeps its intervals."""

    def _set_changed(self, changed: set[str]) -> None:
        self.changed = changed

    def _set_counts(self, counts: dict[str, StaleCounts]) -> None:
        self.counts = counts

    def adjust(self, conn: sqlite3.Connection, datasets: list[DatasetOverview], *,
               slices: bool = True) -> list[DatasetOverview]:
        """Worker thread: hand the screen the stale counts, and re-score in excluded or adjudicated mode."""
        self.host.call_later(self._set_counts, stale_counts(conn))
        if self.host.qa_app.adjudicated:
            out = report.overview_adjudicated(conn, datasets, slices=slices)
        elif exclude_stale(self.host.qa_app):
            out = self._excluding(conn, datasets, slices=slices)
        else:
            out = datasets
        changed = {d.name for d, o in zip(datasets, out) if scores_key(d) != scores_key(o)}
        self.host.call_later(self._set_changed, changed)
        return out

    def _excluding(self, conn: sqlite3.Connection, datasets: list[DatasetOverview], *,
                   slices: bool) -> list[DatasetOverview]:
        worker = get_current_worker()
        cached = self._frame  # only this worker's thread reads or writes it
        if cached is None or cached[0] is not worker:
            cached = self._frame = (worker, item_frame_excluding_stale(conn, None, human=True))
        out = overview_excluding_stale(conn, datasets, slices=slices, frame=cached[1])
        if slices:  # the full pass comes last: free the frame
            self._frame = None
        return out

    def title_parts(self, dataset: str) -> list[tuple[str, str]]:
        """For a dataset's title: the adjudicated mode, its stale golds, and what excluded mode leaves out."""
        if self.host.qa_app.adjudicated:
            return [("  adjudicated (accepted aliases count as golds)", "bold $accent")]
        c = self.counts.get(dataset)
        if c is None or not c.golds:
            return []
        if exclude_stale(self.host.qa_app):
            text = f"  ⚑ {c.golds} stale excluded" + (f", {plural(c.dropped, 'item')} dropped" if c.dropped else "")
            return [(text, "$warning")]
        return [(f"  ⚑ {c.golds} stale", "$warning")]

    def interval_note(self, dataset: str) -> list[tuple[str, str]]:
        """Why a dataset's ± and vs-best columns are empty in this mode (they are the official
        numbers' intervals); nothing when its numbers are the official ones."""
        if dataset not in self.changed:
            return []
        return [("  ± and vs best: official numbers only", "$foreground-muted")]

    def mode_parts(self) -> list[tuple[str, str]]:
        return [(" · ", "$foreground-muted"), *mode_parts(self.host.qa_app)]


def _same(x: float | None) -> float | None:
    """A number as far as it is a result: re-aggregating the same scores in another order (a mode's
    frame, SQL's sum) moves the last bit, which must not count as other numbers."""
    return None if x is None else round(x, 9)


def scores_key(ds: DatasetOverview) -> tuple[object, ...]:
    """What a dataset's intervals depend on: each run and its overall numbers (to 9 decimals)."""
    return tuple((r.name, r.predictions, *(_same(x) for x in (r.overall.em, r.overall.f1, r.overall.f1_recall,
                                                                 r.overall.answer_rate)))
                 for r in ds.runs)


__all__ = ["StaleTitles", "scores_key"]
