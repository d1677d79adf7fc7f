"""Accepted aliases: "answer TEXT is acceptable for item ITEM of dataset D", a journal action.

A reviewer who sees a correct paraphrase the golds miss (二〇二三年 for 2023年, a Traditional-script
answer, a fuller name) accepts it as an alias of the item. Aliases are stale-journal entries
(`label IS NULL`): action `alias` (accept) or `unalias` (withdraw), `gold_text` = the alias text,
`run` = the run whose answer it was (provenance, may be empty), `reason` = a note. So they share
everything the journal has: author and time, uid, undo/redo per author, binding by dataset
fingerprint (a renamed file keeps them; a same-named other file never gets them), export, import
and database merge as an order-free union by uid.

Per (dataset, item, text) the latest effective `alias`/`unalias` entry decides, ordered by
(`ts`, `id`) as flags and labels are, so two databases that import each other agree. Official
scores never change: aliases only feed the numbers labelled "adjudicated" (`core.report`) and the
relation of an answer to its golds (`core.metrics.equivalence`), through `current_aliases`.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from qa_inspect.core.errors import UnknownNameError
from qa_inspect.core.store import (
    BusyCallback,
    author_for,
    require_run,
    sqlite_connection,
    write_transaction,
)

from .journal import Entry, FlagError, Target, _iso_ms, _now, insert_entry
from .targets import _gold_rows

__all__ = [
    "ALIAS_ACTIONS", "ALIAS_ENTRIES_SQL", "ALIAS_KIND", "CURRENT_ALIASES_SQL", "Alias", "accept_answer", "add_alias",
    "alias_list", "current_aliases", "remove_alias",
]

ALIAS_ACTIONS = ("alias", "unalias")
"""The journal actions of aliases; an undo of one carries `meta.undoes` = the action it cancels."""

ALIAS_KIND = "accepted-alias"
"""`kind` of an alias line in the patch (`core.flags.patch`); the import reads it back as an `alias` entry."""

ALIAS_ENTRIES_SQL = (
    "(a.action IN ('alias', 'unalias') OR (a.action = 'undo' AND json_valid(a.meta)"
    " AND json_extract(a.meta, '$.undoes') IN ('alias', 'unalias')))"
)
"""Alias entries and the undos that cancel them (an alias names an item, not one of its golds)."""

CURRENT_ALIASES_SQL = """
SELECT * FROM (
    SELECT a.*, ROW_NUMBER() OVER (PARTITION BY a.dataset, a.item_key, a.gold_text ORDER BY a.ts DESC, a.id DESC) AS qa_rank
    FROM annotations a
    WHERE a.label IS NULL AND a.action IN ('alias', 'unalias')
      AND NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = a.id)
) WHERE qa_rank = 1 AND action = 'alias'
"""
"""The deciding entry of every alias accepted now (`gold_text` is the alias): a subquery."""


@dataclass(frozen=True, slots=True)
class Alias:
    """One alias accepted now, with its provenance; `status` "open" (its item is loaded) or "orphaned"."""

    dataset: str
    item_key: str
    text: str
    author: str
    ts: str
    uid: str
    run: str | None = None
    """The run whose answer was accepted, if it came from one."""
    note: str | None = None
    status: str = "open"
    question: str | None = None

    @property
    def target(self) -> Target:
        return Target(self.dataset, self.item_key, self.text)

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "item_key": self.item_key, "question": self.question, "alias": self.text,
                "author": self.author, "ts": self.ts, "uid": self.uid, "run": self.run, "note": self.note,
                "status": self.status}


def alias_list(conn: Any, dataset: str | None = None, *, item_key: str | None = None) -> list[Alias]:
    """Aliases accepted now (of one dataset / item when given), by dataset, item and time accepted."""
    raw = sqlite_connection(conn)
    where, params = [], []
    for col, value in (("dataset", dataset), ("item_key", item_key)):
        if value is not None:
            where.append(f"c.{col} = ?")
            params.append(value)
    sql = (
        "SELECT c.dataset, c.item_key, c.gold_text, c.author, c.ts, c.uid, c.run, c.reason, i.question"
        f" FROM ({CURRENT_ALIASES_SQL}) c LEFT JOIN datasets d ON d.name = c.dataset"
        " LEFT JOIN items i ON i.dataset_id = d.id AND i.key = c.item_key"
        + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY c.dataset, c.item_key, c.ts, c.id"
    )
    return [Alias(ds, key, text, author, ts, uid, run, note, "open" if question is not None else "orphaned", question)
            for ds, key, text, author, ts, uid, run, note, question in raw.execute(sql, params)]


def current_aliases(conn: Any, dataset: str | None = None) -> dict[str, tuple[str, ...]]:
    """Item key → the texts accepted as aliases of that item now, in the order accepted; only items
    that are loaded (an orphaned alias feeds nothing).

    What scorers and the equivalence relation take as extra golds. With `dataset` None, the items
    of every dataset (keys of different datasets are merged: pass a dataset where they may clash)."""
    out: dict[str, list[str]] = {}
    for a in (a for a in alias_list(conn, dataset) if a.status == "open"):
        texts = out.setdefault(a.item_key, [])
        if a.text not in texts:
            texts.append(a.text)
    return {k: tuple(v) for k, v in out.items()}


def _stamp(conn: sqlite3.Connection, t: Target) -> str:
    """Now, but never before an alias entry already on this (item, text): what you do now decides."""
    now = _now()
    row = conn.execute(
        "SELECT MAX(ts) FROM annotations WHERE dataset = ? AND item_key = ? AND gold_text = ?"
        " AND action IN ('alias', 'unalias')", (t.dataset, t.item_key, t.gold_text)).fetchone()
    if not row or not row[0] or row[0] < now:
        return now
    return _iso_ms(datetime.fromisoformat(row[0]) + timedelta(milliseconds=1))


def _on(conn: sqlite3.Connection, t: Target) -> bool:
    row = conn.execute(f"SELECT 1 FROM ({CURRENT_ALIASES_SQL}) WHERE dataset = ? AND item_key = ? AND gold_text = ?",
                       (t.dataset, t.item_key, t.gold_text)).fetchone()
    return row is not None


def _check(conn: sqlite3.Connection, dataset: str, item_key: str, text: str, run: str | None) -> str | None:
    """FlagError unless the item is loaded, the text is not empty and not already a scored gold,
    and `run` (if given) is a run of that dataset; returns the run's stored name."""
    loaded, item, golds = _gold_rows(conn, dataset, item_key)
    if not loaded:
        raise FlagError(f"no dataset named {dataset!r}")
    if item is None:
        raise FlagError(f"no item {item_key!r} in dataset {dataset!r}")
    if not text.strip():
        raise FlagError(f"item {item_key}: an empty answer cannot be accepted as an alias")
    if any(g == text and not sup for _, g, sup in golds):
        raise FlagError(f"{text!r} is already a gold answer of item {item_key}")
    if run is None:
        return None
    try:
        ref = require_run(conn, run, linked=True)
    except UnknownNameError as exc:
        raise FlagError(str(exc)) from None
    if ref.dataset != dataset:
        raise FlagError(f"run {run!r} answers dataset {ref.dataset!r}, not {dataset!r}")
    return ref.name


def add_alias(
    conn: Any, dataset: str, item_key: str, text: str, *, run: str | None = None, note: str | None = None,
    author: str | None = None, on_busy: BusyCallback | None = None,
) -> Entry | None:
    """Accept `text` as a correct answer of item `item_key` of `dataset` (one transaction, one undo
    step). `run`: the run whose answer it is (provenance). None when it is already accepted.
    FlagError for an unknown dataset, item or run, an empty text, or a text that is a gold already."""
    raw = sqlite_connection(conn)
    run_name = _check(raw, dataset, item_key, text, run)
    who = author_for(raw, author)
    t = Target(dataset, item_key, text)

    def work(c: sqlite3.Connection) -> Entry | None:
        if _on(c, t):
            return None
        return insert_entry(c, "alias", t, who, reason=note, ts=_stamp(c, t),
                            columns={"run": run_name} if run_name else None)

    return write_transaction(raw, work, on_busy)


def remove_alias(
    conn: Any, dataset: str, item_key: str, text: str, *, author: str | None = None,
    on_busy: BusyCallback | None = None,
) -> Entry:
    """Withdraw an accepted alias (an `unalias` entry; undo brings it back). FlagError when `text`
    is not an alias of the item now."""
    raw = sqlite_connection(conn)
    who = author_for(raw, author)
    t = Target(dataset, item_key, text)

    def work(c: sqlite3.Connection) -> Entry:
        if not _on(c, t):
            known = current_aliases(c, dataset).get(item_key, ())
            shown = ", ".join(repr(k) for k in known) or "none"
            raise FlagError(f"{text!r} is not an accepted alias of item {item_key} of {dataset!r} (aliases: {shown})")
        return insert_entry(c, "unalias", t, who, ts=_stamp(c, t))

    return write_transaction(raw, work, on_busy)


def accept_answer(
    conn: Any, run: str, item_key: str, *, note: str | None = None, author: str | None = None,
    on_busy: BusyCallback | None = None,
) -> Entry | None:
    """Accept what run `run` answered on item `item_key` as an alias of that item (the app's key on
    the detail view and the browser row). FlagError when the run gave no answer there."""
    raw = sqlite_connection(conn)
    try:
        ref = require_run(raw, run, linked=True)
    except UnknownNameError as exc:
        raise FlagError(str(exc)) from None
    row = raw.execute(
        "SELECT p.text FROM predictions p JOIN items i ON i.id = p.item_id WHERE p.run_id = ? AND i.key = ?",
        (ref.id, item_key)).fetchone()
    if row is None or not str(row[0]).strip():
        raise FlagError(f"run {run!r} gave no answer on item {item_key}")
    return add_alias(raw, str(ref.dataset), item_key, str(row[0]), run=ref.name, note=note, author=author,
                     on_busy=on_busy)
