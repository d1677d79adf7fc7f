"""Accept the run's answer as correct for the item (an alias), from the detail and the browser row.

`A` writes an `alias` journal entry (`core.flags.accept_answer`): the answer of the run shown (the
browser's run A) on the item shown, or on the row under the cursor, with that run as provenance.
It goes through the screen's `StaleActions` write queue, so it shares the one undo stack (`u`/`U`)
and refresh path with flags and labels. Official scores never change; the
numbers that count aliases are `qa-inspect report --adjudicated` and its kin.
"""

from __future__ import annotations

import sqlite3
from functools import partial
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from qa_inspect.core import flags as F
from textual.binding import Binding, BindingType

from ..stale.jobs import JobResult
from ..text import clean, truncate

if TYPE_CHECKING:
    from ..base import BaseScreen
    from ..stale import StaleActions
    from .labels import LabelScope

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
    """`A` on one screen (the browser or the detail): what it acts on is the screen's label scope
    (`LabelScope`: the run, the item under the cursor or shown, whether a selection is active);
    writes go through the screen's `StaleActions`."""

    def __init__(self, host: BaseScreen, stale: StaleActions, scope: Callable[[], LabelScope]) -> None:
        self.host = host
        self.stale = stale
        self.scope = scope

    def accept(self) -> None:
        """Accept the run's answer on the one item in scope as an alias of it."""
        run, ids, _, selection = self.scope()
        if not run:
            self.host.notify("Choose a run first (r): the answer accepted is a run's.", severity="warning")
            return
        if selection or not ids or len(ids) != 1:
            self.host.notify("A accepts one answer: open the item, or clear the selection.", severity="warning")
            return
        self.stale.write(partial(accept_job, run, ids[0]))
