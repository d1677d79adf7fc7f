"""What the stale actions do on a connection, in a thread worker: plain functions over `core.flags`.

Writes take the worker's connection and an `on_busy` callback (the database is locked by another
writer and the write keeps retrying) and return a `JobResult`: the notice to show and whether a
flag changed. Reads gather what the UI thread needs next: the mark form's data for one item, or
the targets of a bulk action. None of them touches a widget.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.notifications import SeverityLevel

from qa_inspect.core import flags
from qa_inspect.core.query import Filter, targets_for_filter

from .. import present
from ..text import clean, truncate
from .form import ALL, GoldChoice, OpenFlag, StaleFormData, StaleFormResult

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

BusyCallback = Callable[[str], None]
Job = Callable[[sqlite3.Connection, BusyCallback], "JobResult"]
"""A write: run on the worker's connection; `BusyCallback` says "database busy, retrying"."""

GONE = "This item is no longer in the database."


@dataclass(slots=True)
class JobResult:
    """A job's notice; `changed=False` when nothing was written (then `severity` says why)."""

    text: str
    changed: bool = True
    severity: SeverityLevel = "information"


@dataclass(slots=True)
class BulkPlan:
    """What a bulk mark or clear would touch, for the confirmation: its targets and counts."""

    action: str  # "mark" | "unmark"
    targets: list[flags.Target]
    items: int
    already: int
    """Targets stale already (a bulk mark leaves them as they are)."""
    author: str


plural = present.plural  # the one home of counts with their noun (tui.present); kept here for this package's callers


def short(text: str, width: int = 30) -> str:
    """Dataset text for a one-line notice: cleaned and cut."""
    return truncate(clean(text), width)


# -- reads --------------------------------------------------------------------------------------
def golds_of(ref: flags.ItemRef, item_flags: list[flags.Flag]) -> list[GoldChoice]:
    """Distinct scored gold texts, labelled with their gold numbers, with their open proposals."""
    open_ = {f.gold_text: f for f in item_flags if f.status == "open"}
    out: list[GoldChoice] = []
    for text in ref.scored_texts():
        label = "·".join(str(idx + 1) for idx, t, sup in ref.golds if t == text and not sup)
        f = open_.get(text)
        proposals = [OpenFlag(p.author, p.ts, p.reason, p.proposed, p.evidence) for p in f.proposals] if f else []
        if f is not None and not proposals:
            proposals = [OpenFlag(f.author, f.ts, f.reason, f.proposed, f.evidence)]
        out.append(GoldChoice(label, text, proposals))
    return out


def form_data(conn: sqlite3.Connection, item_id: int, gold_idx: int | None) -> StaleFormData | JobResult:
    """The mark form of one item, the gold at `gold_idx` chosen (else every gold); a notice
    (`JobResult`, nothing changed) when the item is gone or has no scored gold."""
    ref = flags.item_by_id(conn, item_id)
    if ref is None:
        return JobResult(GONE, False, "error")
    golds = golds_of(ref, flags.flags_for_item(conn, ref.dataset, ref.key))
    author = flags.author_for(conn)
    if not golds:
        return JobResult(f"Item {clean(ref.key)} has no scored gold answer to flag.", False, "warning")
    chosen = ALL
    if gold_idx is not None and 0 <= gold_idx < len(ref.golds):
        text = ref.golds[gold_idx][1]
        chosen = next((k + 1 for k, g in enumerate(golds) if g.text == text), ALL)
    if len(golds) == 1:
        chosen = 1
    return StaleFormData(author=author, dataset=ref.dataset, item_key=ref.key, question=ref.question,
                         golds=golds, chosen=chosen)


def bulk_plan(conn: sqlite3.Connection, action: str, item_ids: list[int] | None, f: Filter | None) -> BulkPlan:
    """Every gold of the selected items (or of every item matching `f`); to clear: the stale ones."""
    targets = targets_for_filter(conn, f) if f is not None else flags.targets_for_items(conn, item_ids or [])
    datasets = sorted({t.dataset for t in targets})
    stale_now = {fl.target for ds in datasets for fl in flags.current_flags(conn, ds, include_resolved=False)}
    author = flags.author_for(conn)
    already = sum(1 for t in targets if t in stale_now)
    if action == "unmark":
        targets = [t for t in targets if t in stale_now]
    items = len({(t.dataset, t.item_key) for t in targets})
    return BulkPlan(action, targets, items, already, author)


# -- writes -------------------------------------------------------------------------------------
def mark_job(targets: list[flags.Target], r: StaleFormResult, bulk: bool, conn: sqlite3.Connection,
             on_busy: BusyCallback) -> JobResult:
    if r.author_changed:
        flags.set_default_author(conn, r.author)
    entries = flags.bulk_mark(conn, targets, reason=r.reason, proposed=r.proposed, evidence=r.evidence,
                              author=r.author, skip_flagged=bulk, on_busy=on_busy)
    if not entries:
        return JobResult("Nothing to mark: every gold answer is already stale.", False, "warning")
    if len(entries) == 1:
        e = entries[0]
        text = f"Marked stale: {short(e.item_key, 24)} '{short(e.gold_text)}'"
        if e.proposed:
            text += f" → '{short(e.proposed)}'"
    else:
        items = len({(e.dataset, e.item_key) for e in entries})
        text = f"Marked {plural(len(entries), 'gold answer')} of {plural(items, 'item')} stale"
    return JobResult(text + "  (u undoes)")


def unmark_item_job(item_id: int, gold_idx: int | None, conn: sqlite3.Connection, on_busy: BusyCallback) -> JobResult:
    ref = flags.item_by_id(conn, item_id)
    if ref is None:
        return JobResult(GONE, False, "error")
    texts = ref.scored_texts()
    if gold_idx is not None and 0 <= gold_idx < len(ref.golds):
        texts = [ref.golds[gold_idx][1]]
    open_ = {f.gold_text for f in flags.flags_for_item(conn, ref.dataset, ref.key) if f.status == "open"}
    todo = [flags.Target(ref.dataset, ref.key, t) for t in texts if t in open_]
    if not todo:
        what = "This gold answer is not" if gold_idx is not None else "No gold answer of this item is"
        return JobResult(f"{what} flagged stale: nothing to clear.", False, "warning")
    entries = flags.bulk_unmark(conn, todo, on_busy=on_busy)
    if len(entries) == 1:
        return JobResult(f"Cleared the stale flag of {short(ref.key, 24)} '{short(entries[0].gold_text)}'  (u undoes)")
    return JobResult(f"Cleared {plural(len(entries), 'stale flag')} of {short(ref.key, 24)}  (u undoes)")


def bulk_unmark_job(targets: list[flags.Target], conn: sqlite3.Connection, on_busy: BusyCallback) -> JobResult:
    entries = flags.bulk_unmark(conn, targets, on_busy=on_busy)
    if not entries:
        return JobResult("Nothing to clear: none of them is stale now.", False, "warning")
    items = len({(e.dataset, e.item_key) for e in entries})
    return JobResult(f"Cleared {plural(len(entries), 'stale flag')} of {plural(items, 'item')}  (u undoes)")


def undo_job(conn: sqlite3.Connection, on_busy: BusyCallback) -> JobResult:
    entries = flags.undo(conn, on_busy=on_busy)
    if not entries:
        return JobResult("Nothing to undo.", False, "warning")
    return JobResult(f"Undone: {clean(flags.describe_group(entries))}  (U redoes)")


def redo_job(conn: sqlite3.Connection, on_busy: BusyCallback) -> JobResult:
    entries = flags.redo(conn, on_busy=on_busy)
    if not entries:
        return JobResult("Nothing to redo.", False, "warning")
    return JobResult(f"Redone: {clean(flags.describe_group(entries))}")
