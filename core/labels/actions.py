"""Label actions: add, remove, set (replace) labels and write notes, on one item or many.

Every call is one transaction and, with more than one entry, one undo step (`meta.batch`), so a
bulk label over a selection undoes with one `u`. Entries are journal entries (`core.flags`):
author, time, uid; `undo`/`redo` are the journal's own (`core.flags.undo`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from qa_inspect.core.errors import UnknownNameError, unknown_name
from qa_inspect.core.flags import Entry, Target, insert_entry, new_uid, normalise_ts
from qa_inspect.core.store import BusyCallback, author_for, require_run, sqlite_connection, write_transaction

from .labelset import LabelError, check_label_name, label_set, suggest

__all__ = [
    "SOURCES", "LabelTarget", "add_labels", "change_labels", "keys_of_items", "label_targets", "remove_labels", "set_labels", "set_note",
]

SOURCES = ("hand", "category")
"""Provenance of a label: set by hand, or accepted from the automatic error category."""


@dataclass(frozen=True, slots=True)
class LabelTarget:
    """One (run, item) as labels name it: the run's stored name, its dataset's name, the item key."""

    run: str
    dataset: str
    item_key: str


def keys_of_items(conn: Any, item_ids: Iterable[int]) -> list[str]:
    """Item keys of database item ids, in the order given (ids of items gone are left out): the
    browser and the detail know rows by id, labels know items by key."""
    raw = sqlite_connection(conn)
    ids = list(dict.fromkeys(item_ids))
    found: dict[int, str] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        found.update(raw.execute(f"SELECT id, key FROM items WHERE id IN ({', '.join('?' * len(chunk))})", chunk))
    return [found[i] for i in ids if i in found]


def label_targets(conn: Any, run: str, item_keys: Iterable[str]) -> list[LabelTarget]:
    """The (run, item) pairs, checked: LabelError for an unknown run or item (with close names)."""
    raw = sqlite_connection(conn)
    try:
        ref = require_run(raw, run, linked=True)
    except UnknownNameError as exc:
        raise LabelError(unknown_name("run", run, exc.known, hint=" linked to a dataset")) from None
    keys = list(dict.fromkeys(item_keys))
    known: set[str] = set()
    for start in range(0, len(keys), 500):
        chunk = keys[start:start + 500]
        known.update(r[0] for r in raw.execute(
            f"SELECT key FROM items WHERE dataset_id = ? AND key IN ({', '.join('?' * len(chunk))})",
            [ref.dataset_id, *chunk]))
    missing = [k for k in keys if k not in known]
    if missing:
        all_keys = [r[0] for r in raw.execute("SELECT key FROM items WHERE dataset_id = ?", (ref.dataset_id,))]
        raise LabelError(f"no item {missing[0]!r} in dataset {ref.dataset!r} of run {run!r}"
                         f"{suggest(missing[0], all_keys)}")
    return [LabelTarget(ref.name, str(ref.dataset), k) for k in keys]


def _check_labels(conn: Any, labels: Sequence[str], known: Sequence[str] | None) -> list[str]:
    names = [check_label_name(n) for n in labels]
    offered = list(known) if known is not None else label_set(conn)
    for name in names:
        if name not in offered:
            raise LabelError(unknown_name("label", name, offered, hint=" (add it to the project's set with --new)"))
    return list(dict.fromkeys(names))


def _stamp(conn: sqlite3.Connection, t: LabelTarget, label: str) -> str:
    """Now, but never before an entry already on this (run, item, label): what you do now decides."""
    now = normalise_ts(datetime.now(timezone.utc).isoformat())
    row = conn.execute(
        "SELECT MAX(ts) FROM annotations WHERE run = ? AND dataset = ? AND item_key = ? AND label = ?",
        (t.run, t.dataset, t.item_key, label),
    ).fetchone()
    if not row or not row[0] or row[0] < now:
        return now
    return normalise_ts((datetime.fromisoformat(row[0].replace("Z", "+00:00")) + timedelta(milliseconds=1)).isoformat())


def _write(
    c: sqlite3.Connection, todo: list[tuple[str, LabelTarget, str, str | None]], author: str, source: str,
) -> list[Entry]:
    """Write (action, target, label, note) entries as one undo step."""
    batch = new_uid() if len(todo) > 1 else None
    out = []
    for action, t, label, note in todo:
        columns = {"run": t.run, "label": label, "label_source": source if action == "label" else None}
        out.append(insert_entry(c, action, Target(t.dataset, t.item_key, ""), author, reason=note,
                                meta={"batch": batch}, ts=_stamp(c, t, label),
                                columns={k: v for k, v in columns.items() if v is not None}))
    return out


def _on(c: sqlite3.Connection, targets: list[LabelTarget]) -> dict[LabelTarget, set[str]]:
    """The labels on each target now: the stored labels of those items alone (one JSON parameter)."""
    out: dict[LabelTarget, set[str]] = {t: set() for t in targets}
    for run, ds in {(t.run, t.dataset) for t in targets}:
        keys = json.dumps(sorted({t.item_key for t in targets if (t.run, t.dataset) == (run, ds)}), ensure_ascii=False)
        for key, label in c.execute(
                "SELECT c.item_key, c.label FROM current_labels c WHERE c.run = ? AND c.dataset = ?"
                " AND c.item_key IN (SELECT value FROM json_each(?))", (run, ds, keys)):
            out[LabelTarget(run, ds, key)].add(label)
    return out


def _change(
    conn: Any, run: str, item_keys: Iterable[str], plan: Any, *, author: str | None,
    source: str = "hand", on_busy: BusyCallback | None,
) -> list[Entry]:
    raw = sqlite_connection(conn)
    if source not in SOURCES:
        raise LabelError(f"label source {source!r}: expected one of {', '.join(SOURCES)}")
    targets = label_targets(raw, run, item_keys)
    who = author_for(raw, author)

    def work(c: sqlite3.Connection) -> list[Entry]:
        on = _on(c, targets)
        return _write(c, [step for t in targets for step in plan(t, on[t])], who, source)

    return write_transaction(raw, work, on_busy) if targets else []


def add_labels(
    conn: Any, run: str, item_keys: Iterable[str], labels: Sequence[str], *, note: str | None = None,
    source: str = "hand", known: Sequence[str] | None = None, author: str | None = None,
    on_busy: BusyCallback | None = None,
) -> list[Entry]:
    """Put `labels` on each (run, item); a label already on is left alone (unless a `note` is
    given: it is written again with it). `known`: the project's set (default `label_set`)."""
    names = _check_labels(conn, labels, known)
    return _change(conn, run, item_keys, lambda t, on: [
        ("label", t, n, note) for n in names if n not in on or note], author=author, source=source, on_busy=on_busy)


def remove_labels(
    conn: Any, run: str, item_keys: Iterable[str], labels: Sequence[str], *, author: str | None = None,
    on_busy: BusyCallback | None = None,
) -> list[Entry]:
    """Take `labels` off each (run, item); labels that are not on are skipped."""
    names = [check_label_name(n) for n in labels]
    return _change(conn, run, item_keys, lambda t, on: [
        ("unlabel", t, n, None) for n in names if n in on], author=author, on_busy=on_busy)


def set_labels(
    conn: Any, run: str, item_keys: Iterable[str], labels: Sequence[str], *, source: str = "hand",
    known: Sequence[str] | None = None, author: str | None = None, on_busy: BusyCallback | None = None,
) -> list[Entry]:
    """Make `labels` exactly the labels of each (run, item): adds the missing, removes the others."""
    names = _check_labels(conn, labels, known)
    return _change(conn, run, item_keys, lambda t, on: [
        *(("unlabel", t, n, None) for n in sorted(on - set(names))),
        *(("label", t, n, None) for n in names if n not in on),
    ], author=author, source=source, on_busy=on_busy)


def change_labels(
    conn: Any, run: str, item_keys: Iterable[str], *, add: Sequence[str] = (), remove: Sequence[str] = (),
    note: str | None = None, set_note: bool = False, known: Sequence[str] | None = None, author: str | None = None,
    on_busy: BusyCallback | None = None,
) -> list[Entry]:
    """What a label picker applies, as one action (one undo step): `add` on every item, `remove`
    off every item that has it, and (`set_note`) the note of each item."""
    names = _check_labels(conn, add, known)
    gone = [check_label_name(n) for n in remove]
    text = note if note and note.strip() else None
    return _change(conn, run, item_keys, lambda t, on: [
        *(("unlabel", t, n, None) for n in gone if n in on),
        *(("label", t, n, None) for n in names if n not in on),
        *([("note", t, "", text)] if set_note else []),
    ], author=author, on_busy=on_busy)


def set_note(
    conn: Any, run: str, item_key: str, text: str | None, *, author: str | None = None,
    on_busy: BusyCallback | None = None,
) -> Entry:
    """Write the note of one (run, item) (empty or None clears it); undoes like any action."""
    raw = sqlite_connection(conn)
    (t,) = label_targets(raw, run, [item_key])
    who = author_for(raw, author)
    note = text if text and text.strip() else None
    return write_transaction(raw, lambda c: insert_entry(
        c, "note", Target(t.dataset, t.item_key, ""), who, reason=note, ts=_stamp(c, t, ""),
        columns={"run": t.run, "label": ""}), on_busy)
