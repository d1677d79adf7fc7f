"""Accept the run's answer as correct for the item (an alias), from the detail and the browser row.

`A` writes an `alias` journal entry (`core.flags.accept_answer`): the answer of the run shown (the
browser's run A) on the item shown, or on the row under the cursor, with that run as provenance.
It goes through the stale actions' write queue (`StaleActions.stale_write`), so it shares the one
undo stack (`u`/`U`) and refresh path with flags and labels. Official scores never change; the
numbers that count aliases are `qa-inspect report --adjudicated` and its kin.
"""

from __future__ import annotations

import sqlite3
from functools import partial
from typing import TYPE_CHECKING, Any

from qa_inspect.core import flags as F
from qa_inspect.core.query import Filter
from textual.binding import Binding, BindingType

from ..stale.jobs import JobResult
from ..text import clean, truncate

ALIAS_BINDINGS: list[BindingType] = [
    Binding("A", "accept_alias", "Accept answer", id="aliases.accept", show=False,
            tooltip="Accept the run's answer as correct for this item (an alias beside the golds; u undoes)"),
]


def accept_job(run: str, item_id: int, conn: sqlite3.Connection, on_busy: Any) -> JobResult:
    """Accept what `run` answered on the item as an alias of it; a notice either way."""
    ref = F.item_by_id(conn, item_id)
    if ref is None:
        return JobResult("This item is no longer in the database.", False, "error")
    entry = F.accept_answer(conn, run, ref.key, on_busy=on_busy)
    if entry is None:
        return JobResult(f"Already accepted for {truncate(clean(ref.key), 24)}.", False, "warning")
    return JobResult(f"Accepted {truncate(clean(entry.gold_text), 40)!r} for {truncate(clean(ref.key), 24)}"
                     " as an alias (adjudicated numbers count it; u undoes)")


class AliasActions:
    """Mixed into the browser and the detail screens (next to `LabelActions`, whose scope it reads)."""

    if TYPE_CHECKING:  # provided by the screen (LabelActions, StaleActions, BaseScreen)
        def notify(self, *args: Any, **kwargs: Any) -> None: ...
        def stale_write(self, job: Any, on_done: Any = None) -> None: ...
        def label_scope(self) -> tuple[str | None, list[int] | None, Filter | None, bool]: ...

    def action_accept_alias(self) -> None:
        run, ids, _, selection = self.label_scope()
        if not run:
            self.notify("Choose a run first (r): the answer accepted is a run's.", severity="warning")
            return
        if selection or not ids or len(ids) != 1:
            self.notify("A accepts one answer: open the item, or clear the selection.", severity="warning")
            return
        self.stale_write(partial(accept_job, run, ids[0]))
