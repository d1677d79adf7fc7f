"""The item browser's slice metrics without stale golds (`m`): re-scored in a worker for the
filter on screen, the re-scored rows reused while no flag changes."""

from __future__ import annotations

from functools import partial
from typing import Any

from textual.worker import get_current_worker

from qa_inspect.core.query import Filter, SliceMetrics
from qa_inspect.core.report import (
    StaleSlice,
    rescored_rows,
    slice_metrics_excluding_stale,
)

from ..base import BaseScreen
from .actions import Hook, exclude_stale, mode_parts
from .jobs import plural

RescoreKey = tuple[int, str | None, str | None]
"""(writes so far, run, compare run): while it holds, the re-scored rows can be reused."""


class ExcludedMetrics:
    """The excluded-mode numbers of one browser, by the generation of the filter they are of."""

    def __init__(self, host: BaseScreen, loaded: Hook) -> None:
        self.host = host
        self.loaded = loaded
        self._slice: tuple[int, StaleSlice] | None = None
        self._rescored: tuple[RescoreKey, Any] | None = None

    @property
    def on(self) -> bool:
        return exclude_stale(self.host.qa_app)

    def forget(self) -> None:
        """The mode changed: the numbers on screen are no longer these."""
        self._slice = None

    def start(self, generation: int, f: Filter) -> None:
        """Re-score `f` (only in excluded mode); `loaded` runs when its numbers are in."""
        if not self.on:
            return
        key: RescoreKey = (self.host.qa_app.stale_version, f.run, f.compare)
        cached = self._rescored[1] if self._rescored and self._rescored[0] == key else None
        self.host.run_worker(partial(self._worker, generation, f, key, cached), thread=True, exclusive=True,
                             exit_on_error=False, group="stale-metrics")

    def _worker(self, generation: int, f: Filter, key: RescoreKey, rescored: Any) -> None:
        with self.host.db.connect() as conn:
            if rescored is None:
                rescored = rescored_rows(conn, [r for r in (f.run, f.compare) if r])
            result = slice_metrics_excluding_stale(conn, f, rescored)
        if not get_current_worker().is_cancelled:
            self.host.call_later(self._done, generation, result, (key, rescored))

    def _done(self, generation: int, result: StaleSlice, rescored: tuple[RescoreKey, Any]) -> None:
        self._rescored = rescored
        self._slice = (generation, result)
        self.loaded()

    def of(self, generation: int) -> StaleSlice | None:
        """The excluded-mode numbers of that filter (None while computing or in all-golds mode)."""
        got = self._slice
        if not self.on or got is None or got[0] != generation:
            return None
        return got[1]

    def shown(self, generation: int, metrics: SliceMetrics | None,
              compare: SliceMetrics | None) -> tuple[SliceMetrics | None, SliceMetrics | None]:
        """The metrics the status line shows in the current mode (None while being computed)."""
        if not self.on:
            return metrics, compare
        s = self.of(generation)
        if s is None:
            return None, None
        return s.metrics, s.compare if compare is not None else None

    def status_parts(self, generation: int) -> list[tuple[str, str]]:
        """The mode (and what excluding dropped), for the status line."""
        parts: list[tuple[str, str]] = [("  │  ", "$foreground-muted"), *mode_parts(self.host.qa_app)]
        if self.on:
            s = self.of(generation)
            if s is None:
                parts.append(("…", "$foreground-muted"))
            elif s.dropped:
                parts.append((f" · {plural(s.dropped, 'item')} dropped", "$foreground-muted"))
        elif self.host.qa_app.adjudicated:  # the overview's numbers are; a slice's here are not yet
            parts.append((" on the overview · these official", "$foreground-muted"))
        parts.append((" (m)", "$foreground-muted"))
        return parts


__all__ = ["ExcludedMetrics"]
