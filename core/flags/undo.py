"""Undo and redo of journal actions, per author, replayed from the journal.

Any action undoes alike (stale flags' mark/unmark/verify, labels' label/unlabel/note, ...): one stack per
author. They cover actions made in this database: imported entries are others' work (override
them with a new action). Undo cancels the author's last action (every entry of a bulk action) with
`undo` entries that carry the cancelled entry's own columns (a label undo is a label entry too);
redo appends the cancelled action again with all its fields as new entries (`meta.redo_of`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from qa_inspect.core.store import (
    BusyCallback,
    author_for,
    sqlite_connection,
    write_transaction,
)

from .aliases import ALIAS_ACTIONS
from .journal import _ENTRY_COLS, Entry, _entry, _stamp, insert_entry, new_uid, normalise_ts
from .state import _own_open_marks, _states

__all__ = ["UndoState", "describe_group", "redo", "undo", "undo_state"]


@dataclass(slots=True)
class UndoState:
    """What `u`/`U` would do now, for the UI's hints."""

    author: str
    can_undo: bool
    can_redo: bool
    undo_steps: int
    redo_steps: int
    next_undo: list[Entry]
    next_redo: list[Entry]

    def describe(self, which: str = "undo") -> str:
        group = self.next_undo if which == "undo" else self.next_redo
        return describe_group(group) if group else f"nothing to {which}"


def describe_group(entries: Sequence[Entry]) -> str:
    """"mark DEV_1_QUERY_0 '1990年'" or "mark 12 golds"."""
    if not entries:
        return "nothing"
    action = entries[0].action
    if len(entries) == 1:
        e = entries[0]
        if e.label is not None:
            return f"{action} {e.label!r} on {e.run}/{e.item_key}" if e.label else f"{action} on {e.run}/{e.item_key}"
        return f"{action} {e.dataset}/{e.item_key} {e.gold_text!r}"
    kind = "labels" if entries[0].label is not None else "aliases" if action in ALIAS_ACTIONS else "golds"
    return f"{action} {len(entries)} {kind}"


@dataclass(slots=True, eq=False)
class _Group:
    """One action on the undo/redo stacks: the ids of its entries (a bulk action has many)."""

    action: str
    ids: list[int] = field(default_factory=list)
    uids: list[str] = field(default_factory=list)
    refs: list[int] = field(default_factory=list)
    redo_of: list[str] = field(default_factory=list)
    undone: bool = False
    redoable: bool = False


def _stacks(conn: sqlite3.Connection, author: str) -> tuple[list[_Group], list[_Group]]:
    """Replay the author's own (not imported) entries: (done actions, undone actions), oldest first.

    Linear in the author's journal: only ids and the meta keys that matter are read.
    """
    meta = "CASE WHEN json_valid(meta) THEN json_extract(meta, '$.{}') END"
    rows = conn.execute(
        f"SELECT id, uid, action, ref, {meta.format('batch')}, {meta.format('redo_of')},"
        f" {meta.format('imported_from')} FROM annotations WHERE author = ? ORDER BY id",
        (author,),
    )
    groups: dict[str, _Group] = {}
    for id_, uid, action, ref, batch, redo_of, imported in rows:
        if imported is not None:
            continue
        key = batch or uid
        g = groups.get(key)
        if g is None:
            g = groups[key] = _Group(action)
        g.ids.append(id_)
        g.uids.append(uid)
        if ref is not None:
            g.refs.append(ref)
        if redo_of:
            g.redo_of.append(redo_of)
    done: list[_Group] = []
    undone: list[_Group] = []
    by_id: dict[int, _Group] = {}
    by_uid: dict[str, _Group] = {}
    for g in groups.values():
        if g.action == "undo":
            target = next((by_id[r] for r in g.refs if r in by_id), None)
            if target is not None and not target.undone:
                target.undone = target.redoable = True
                undone.append(target)
        else:  # any action (mark, unmark, verify, label, unlabel, note, …): undoable
            if g.redo_of:
                source = next((by_uid[u] for u in g.redo_of if u in by_uid), None)
                if source is not None:
                    source.redoable = False
            else:
                for u in undone:  # a new action: what was undone can no longer be redone
                    u.redoable = False
                undone.clear()
            done.append(g)
            by_id.update((i, g) for i in g.ids)
            by_uid.update((u, g) for u in g.uids)
    return [g for g in done if not g.undone], [g for g in undone if g.redoable]


_OWN_COLUMNS = frozenset(c.strip() for c in _ENTRY_COLS.split(",")) - {"run", "label"} | {"written_as", "dataset_fp"}
_CONTROL_META = ("batch", "redo_of", "supersedes", "imported_from", "ref_uid")


def _extra_columns(conn: sqlite3.Connection, entry_id: int) -> dict[str, Any]:
    """The entry's columns beyond the stale journal's own (a label entry's run, label, source):
    what an undo or a redo of it carries, whatever action added them."""
    cur = conn.execute("SELECT * FROM annotations WHERE id = ?", (entry_id,))
    row = cur.fetchone()
    names = [d[0] for d in cur.description]
    return {k: v for k, v in zip(names, row or (), strict=False) if k not in _OWN_COLUMNS and v is not None}


def _group_entries(conn: sqlite3.Connection, group: _Group | None) -> list[Entry]:
    if group is None:
        return []
    out: list[Entry] = []
    for start in range(0, len(group.ids), 500):
        chunk = group.ids[start:start + 500]
        out += [_entry(r) for r in conn.execute(
            f"SELECT {_ENTRY_COLS} FROM annotations WHERE id IN ({', '.join('?' * len(chunk))}) ORDER BY id", chunk)]
    return out


def undo_state(conn: Any, author: str | None = None) -> UndoState:
    """What undo/redo would do now for `author` (for the UI's hints and the command palette)."""
    raw = sqlite_connection(conn)
    who = author_for(raw, author)
    done, undone = _stacks(raw, who)
    return UndoState(who, bool(done), bool(undone), len(done), len(undone),
                     _group_entries(raw, done[-1] if done else None),
                     _group_entries(raw, undone[-1] if undone else None))


def undo(conn: Any, author: str | None = None, *, on_busy: BusyCallback | None = None) -> list[Entry]:
    """Cancel the author's last action (all golds of a bulk action) with new `undo` entries.

    Returns the entries that were cancelled; an empty list when there is nothing to undo.
    """
    raw = sqlite_connection(conn)
    who = author_for(raw, author)

    def work(c: sqlite3.Connection) -> list[Entry]:
        done, _ = _stacks(c, who)
        if not done:
            return []
        group = _group_entries(c, done[-1])
        batch = new_uid() if len(group) > 1 else None
        for e in group:
            undoes = e.action if e.action in ALIAS_ACTIONS else None  # an alias names an item, not a gold
            insert_entry(c, "undo", e.target, who, ref=e.id, meta={"batch": batch, "ref_uid": e.uid, "undoes": undoes},
                         columns=_extra_columns(c, e.id))
        return group

    return write_transaction(raw, work, on_busy)


def redo(conn: Any, author: str | None = None, *, on_busy: BusyCallback | None = None) -> list[Entry]:
    """Apply the author's last undone action again (new entries); returns them, empty when nothing to redo."""
    raw = sqlite_connection(conn)
    who = author_for(raw, author)

    def work(c: sqlite3.Connection) -> list[Entry]:
        _, undone = _stacks(c, who)
        if not undone:
            return []
        group = _group_entries(c, undone[-1])
        batch = new_uid() if len(group) > 1 else None
        states = _states(c, [e.target for e in group])
        out = []
        for e in group:
            meta: dict[str, Any] = {k: v for k, v in e.meta.items() if k not in _CONTROL_META}
            meta.update(batch=batch, redo_of=e.uid)
            if e.action == "mark":
                meta["supersedes"] = _own_open_marks(states.get(e.target), who)
            ts = _stamp(c, e.target)
            if ts <= e.ts:  # a label's own clock: never before the entry it repeats
                ts = normalise_ts((datetime.fromisoformat(e.ts.replace("Z", "+00:00")) + timedelta(milliseconds=1)).isoformat())
            out.append(insert_entry(c, e.action, e.target, who, reason=e.reason, proposed=e.proposed,
                               evidence=e.evidence, meta=meta, ts=ts, columns=_extra_columns(c, e.id)))
        return out

    return write_transaction(raw, work, on_busy)
