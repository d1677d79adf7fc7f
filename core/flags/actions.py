"""Flag actions: mark, unmark and verify one gold or many, each one transaction (`core.transaction`).

A bulk action (many golds) is one transaction and one undo step: its entries share `meta.batch`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from typing import Any

from qa_inspect.core.store import (
    BusyCallback,
    author_for,
    sqlite_connection,
    write_transaction,
)

from .journal import Entry, FlagError, Target, _stamp, insert_entry, new_uid
from .state import _own_open_marks, _stale, _states
from .targets import _check_target

__all__ = ["bulk_mark", "bulk_unmark", "mark", "unmark", "verify"]


def _mark_all(
    conn: sqlite3.Connection, targets: list[Target], author: str, *, reason: str | None, proposed: str | None,
    evidence: str | None, skip_flagged: bool, extra_meta: Callable[[Target], dict[str, Any]] | None = None,
    batch: str | None = None,
) -> list[Entry]:
    states = _states(conn, targets)
    todo = [t for t in targets if not (skip_flagged and _stale(states.get(t)))]
    if batch is None and len(todo) > 1:
        batch = new_uid()
    out = []
    for t in todo:
        own = _own_open_marks(states.get(t), author)
        meta = {"batch": batch, "supersedes": own, **(extra_meta(t) if extra_meta else {})}
        out.append(insert_entry(conn, "mark", t, author, reason=reason, proposed=proposed, evidence=evidence, meta=meta,
                           ts=_stamp(conn, t)))
    return out


def mark(
    conn: Any,
    dataset: str,
    item_key: str,
    gold_text: str,
    *,
    reason: str | None = None,
    proposed: str | None = None,
    evidence: str | None = None,
    author: str | None = None,
    check: bool = True,
    on_busy: BusyCallback | None = None,
) -> Entry:
    """Flag one gold stale (marking it again replaces your own open proposal). One transaction.

    `check`: refuse (FlagError) a dataset, item or gold text that is not loaded.
    """
    raw = sqlite_connection(conn)
    t = Target(dataset, item_key, gold_text)
    if check:
        _check_target(raw, t)
    who = author_for(raw, author)
    entries = write_transaction(
        raw,
        lambda c: _mark_all(c, [t], who, reason=reason, proposed=proposed, evidence=evidence, skip_flagged=False),
        on_busy,
    )
    return entries[0]


def bulk_mark(
    conn: Any,
    targets: Iterable[Target],
    *,
    reason: str | None = None,
    proposed: str | None = None,
    evidence: str | None = None,
    author: str | None = None,
    skip_flagged: bool = True,
    check: bool = True,
    on_busy: BusyCallback | None = None,
) -> list[Entry]:
    """Flag many golds in one transaction and one undo step; returns the entries written.

    `skip_flagged` (default) leaves golds that are already stale alone, so a bulk action never
    overwrites someone's proposal. Duplicate targets count once.
    """
    raw = sqlite_connection(conn)
    todo = list(dict.fromkeys(targets))
    if check:
        for t in todo:
            _check_target(raw, t)
    who = author_for(raw, author)
    if not todo:
        return []
    return write_transaction(
        raw,
        lambda c: _mark_all(c, todo, who, reason=reason, proposed=proposed, evidence=evidence, skip_flagged=skip_flagged),
        on_busy,
    )


def _unmark_all(conn: sqlite3.Connection, targets: list[Target], author: str, strict: bool) -> list[Entry]:
    states = _states(conn, targets)
    todo = [t for t in targets if _stale(states.get(t))]
    if strict and len(todo) < len(targets):
        missing = next(t for t in targets if t not in todo)
        raise FlagError(f"gold {missing.gold_text!r} of item {missing.item_key} is not flagged stale")
    batch = new_uid() if len(todo) > 1 else None
    return [insert_entry(conn, "unmark", t, author, meta={"batch": batch}, ts=_stamp(conn, t)) for t in todo]


def unmark(
    conn: Any, dataset: str, item_key: str, gold_text: str, *, author: str | None = None,
    on_busy: BusyCallback | None = None,
) -> Entry:
    """Clear the flag of one gold (every open proposal on it). FlagError when it is not flagged."""
    raw = sqlite_connection(conn)
    who = author_for(raw, author)
    return write_transaction(raw, lambda c: _unmark_all(c, [Target(dataset, item_key, gold_text)], who, True), on_busy)[0]


def bulk_unmark(
    conn: Any, targets: Iterable[Target], *, author: str | None = None, on_busy: BusyCallback | None = None
) -> list[Entry]:
    """Clear many flags in one transaction and one undo step; golds not flagged are skipped."""
    raw = sqlite_connection(conn)
    todo = list(dict.fromkeys(targets))
    if not todo:
        return []
    who = author_for(raw, author)
    return write_transaction(raw, lambda c: _unmark_all(c, todo, who, False), on_busy)


def verify(
    conn: Any,
    targets: Iterable[Target],
    *,
    note: str | None = None,
    author: str | None = None,
    check: bool = True,
    on_busy: BusyCallback | None = None,
) -> list[Entry]:
    """Record that golds are still correct ("verified" now): one `verify` entry each, one
    transaction and one undo step. It never changes whether a gold is flagged stale."""
    raw = sqlite_connection(conn)
    todo = list(dict.fromkeys(targets))
    if check:
        for t in todo:
            _check_target(raw, t)
    if not todo:
        return []
    who = author_for(raw, author)
    batch = new_uid() if len(todo) > 1 else None
    return write_transaction(
        raw, lambda c: [insert_entry(c, "verify", t, who, reason=note, meta={"batch": batch}) for t in todo], on_busy)
