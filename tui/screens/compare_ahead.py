"""The compare screen's tests computed beside its counts (`report.ahead_tests`), handed from the
worker that computes them to the one that shows the diff's statistics.

At a million items the counts are seconds of SQLite and the statistics seconds of numpy; the
screen starts both at once (two cores), and the statistics' worker waits here for the tests of
its generation, then picks the diff's rows (`report.diff_significance(…, ahead=…)`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from qa_inspect.core import report
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import Filter

if TYPE_CHECKING:
    from qa_inspect.core.report import AheadTests

    from ..workers import Db


class AheadSlot:
    """The tests of the newest generation: set once computed (or failed), waited for."""

    def __init__(self) -> None:
        self._slots: dict[int, tuple[threading.Event, list[AheadTests | None]]] = {}

    def start(self, generation: int) -> None:
        """A new comparison: older generations' tests are dropped."""
        self._slots = {generation: (threading.Event(), [None])}

    def compute(self, db: Db, generation: int, run_a: str, run_b: str, within: Filter | None,
                resamples: Callable[[int], int], stop: Callable[[], bool]) -> None:
        """In a worker: every slice's test of A and B (`resamples`: the count for a number of
        common items). Whatever happens, the generation's event is set: nobody waits forever."""
        event, result = self._slots.get(generation, (threading.Event(), [None]))
        try:
            with db.connect() as conn:
                result[0] = report.ahead_tests(conn, run_a, run_b,
                                               lambda n: report.StatOptions(resamples=resamples(n)),
                                               within=within, stop=stop)
        except QAInspectError:
            result[0] = None  # the counts' worker says what is wrong; the statistics compute as before
        finally:
            event.set()

    def wait(self, generation: int, stop: Callable[[], bool]) -> AheadTests | None:
        """The tests of `generation` once they are in (None: none, or `stop` said so)."""
        event, result = self._slots.get(generation, (None, [None]))
        while event is not None and not event.wait(0.05):
            if stop() or generation not in self._slots:  # cancelled, or a newer comparison started
                return None
        return result[0]
