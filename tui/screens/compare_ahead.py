"""The compare screen's per-item arrays and tests computed beside its counts, handed from the worker
that computes them to the ones that show the diff and its statistics.

At a million items the counts and the statistics read the same items: the tests' worker reads
them once (`report.comparison_arrays`), hands them to the counts' worker (which sums the diff
from them, `report.diff_runs(…, arrays=…)`) and tests every slice meanwhile
(`report.ahead_tests`); the statistics' worker waits here for the tests of its generation, then
picks the diff's rows (`report.diff_significance(…, ahead=…)`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from qa_inspect.core import report
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import Filter

if TYPE_CHECKING:
    from qa_inspect.core.report import AheadTests, PairArrays

    from ..workers import Db


@dataclass
class _Slot:
    """One generation's arrays and tests, each with the event that says it is settled."""

    arrays_in: threading.Event = field(default_factory=threading.Event)
    tests_in: threading.Event = field(default_factory=threading.Event)
    arrays: PairArrays | None = None
    tests: AheadTests | None = None


class AheadSlot:
    """The arrays and tests of the newest generation: set once computed (or failed), waited for."""

    def __init__(self) -> None:
        self._slots: dict[int, _Slot] = {}

    def start(self, generation: int) -> None:
        """A new comparison: older generations' arrays and tests are dropped."""
        self._slots = {generation: _Slot()}

    def compute(self, db: Db, generation: int, run_a: str, run_b: str, within: Filter | None,
                resamples: Callable[[int], int], stop: Callable[[], bool]) -> None:
        """In a worker: the comparison's arrays (handed to the counts at once), then every slice's
        test of A and B (`resamples`: the count for a number of common items). Whatever happens,
        both events are set: nobody waits forever."""
        slot = self._slots.get(generation, _Slot())
        try:
            with db.connect() as conn:
                held = [report.comparison_arrays(conn, run_a, run_b, within=within)]
                slot.arrays = held[0]  # until the counts take them
                slot.arrays_in.set()
                slot.tests = report.ahead_tests(conn, run_a, run_b,
                                                lambda n: report.StatOptions(resamples=resamples(n)),
                                                within=within, stop=stop, arrays=held.pop())
        except QAInspectError:
            slot.tests = None  # the counts' worker says what is wrong; the statistics compute as before
        finally:
            slot.arrays_in.set()
            slot.tests_in.set()

    def _wait(self, generation: int, event_of: Callable[[_Slot], threading.Event], stop: Callable[[], bool]) -> Any:
        """The generation's slot once `event_of` it is set (None: no such slot, or `stop`)."""
        slot = self._slots.get(generation)
        while slot is not None and not event_of(slot).wait(0.05):
            if stop() or generation not in self._slots:  # cancelled, or a newer comparison started
                return None
        return slot

    def arrays(self, generation: int, stop: Callable[[], bool]) -> PairArrays | None:
        """The arrays of `generation` once read (None: none, or `stop` said so); the slot lets them go."""
        slot = self._wait(generation, lambda s: s.arrays_in, stop)
        if slot is None:
            return None
        arrays, slot.arrays = slot.arrays, None
        return arrays

    def wait(self, generation: int, stop: Callable[[], bool]) -> AheadTests | None:
        """The tests of `generation` once they are in (None: none, or `stop` said so)."""
        slot = self._wait(generation, lambda s: s.tests_in, stop)
        return None if slot is None else slot.tests
