"""The runs overview's stale part: numbers in each metrics mode (all golds, stale golds excluded,
adjudicated), the mode and stale counts in the dataset titles. `StaleTitles` is owned by the
overview screen; `adjust` runs in its worker."""

from __future__ import annotations

import sqlite3

from textual.worker import get_current_worker

from qa_inspect.core import report  # the lazy face: overview_adjudicated (numpy) loads when first used
from qa_inspect.core.report import (
    DatasetOverview,
    StaleCounts,
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
        """The core keeps its answers (and, between a quick and a full pass, the re-scored item
        frame): a switch it has answered before re-scores nothing, so no frame is built here."""
        return overview_excluding_stale(conn, datasets, slices=slices)

    def warm(self, conn: sqlite3.Connection, quick: list[DatasetOverview], full: list[DatasetOverview]) -> None:
        """Worker thread, after the overview is on screen in all-golds mode: re-score it with stale
        golds excluded ahead of time (when some gold is flagged), so the first `m` finds it kept."""
        if exclude_stale(self.host.qa_app) or self.host.qa_app.adjudicated:
            return
        if not any(c.golds for c in stale_counts(conn).values()):
            return
        for datasets, slices in ((quick, False), (full, True)):
            if get_current_worker().is_cancelled:
                return
            overview_excluding_stale(conn, datasets, slices=slices)

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
