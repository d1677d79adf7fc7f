"""Current state of every flagged gold, derived from the journal (no state is stored).

An entry is *effective* when no `undo` cancels it. Per gold, effective `mark`/`unmark` entries are
ordered by (`ts`, `id`); the latest one decides ("last writer wins", so two databases that import
each other's journals agree whatever the import order). The gold is stale when it is a `mark`.

The *proposals* of a stale gold are the effective marks after its latest unmark, except those a
later mark supersedes: a mark lists in `meta.supersedes` the uids of its author's own open marks
in this database (marking again edits your proposal). Marks made elsewhere (imported) supersede
nothing here, so two annotators' different proposals for the same gold are both kept: a
*conflict*, listed by `stale list` and the patch export.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from qa_inspect.core.store import EFFECTIVE_SQL

from .journal import _ENTRY_COLS, Entry, Target, _entry


@dataclass(slots=True)
class _GoldState:
    deciding: Entry
    proposals: list[Entry]


def _effective_entries(conn: sqlite3.Connection, where: str = "", params: Sequence[Any] = ()) -> list[Entry]:
    sql = (
        f"SELECT {', '.join('a.' + c.strip() for c in _ENTRY_COLS.split(','))} FROM annotations a"
        f" WHERE {EFFECTIVE_SQL}" + (f" AND {where}" if where else "") + " ORDER BY a.ts, a.id"
    )
    return [_entry(r) for r in conn.execute(sql, list(params))]


def _derive(entries: Iterable[Entry]) -> dict[Target, _GoldState]:
    """Per gold: the deciding entry and the open proposals (see the module docstring)."""
    by_target: dict[Target, list[Entry]] = {}
    for e in entries:  # already in (ts, id) order
        by_target.setdefault(e.target, []).append(e)
    out: dict[Target, _GoldState] = {}
    for target, seq in by_target.items():
        open_marks: list[Entry] = []
        for e in seq:
            if e.action == "unmark":
                open_marks = []
            else:
                open_marks.append(e)
        superseded = {uid for e in open_marks for uid in e.meta.get("supersedes", ())}
        deciding = seq[-1]
        proposals = [e for e in open_marks if e.uid not in superseded or e is deciding]
        out[target] = _GoldState(deciding, proposals)
    return out


def _states(conn: sqlite3.Connection, targets: Iterable[Target] | None = None, dataset: str | None = None) -> dict[Target, _GoldState]:
    if targets is None:
        if dataset is None:
            return _derive(_effective_entries(conn))
        return _derive(_effective_entries(conn, "a.dataset = ?", (dataset,)))
    wanted = set(targets)
    items = {(t.dataset, t.item_key) for t in wanted}
    if len(items) <= 50:
        entries: list[Entry] = []
        for ds, key in sorted(items):
            entries += _effective_entries(conn, "a.dataset = ? AND a.item_key = ?", (ds, key))
        entries.sort(key=lambda e: (e.ts, e.id))
    else:
        names = sorted({ds for ds, _ in items})
        entries = _effective_entries(conn, f"a.dataset IN ({', '.join('?' * len(names))})", names)
    return {t: s for t, s in _derive(entries).items() if t in wanted}


def _stale(state: _GoldState | None) -> bool:
    return state is not None and state.deciding.action == "mark"


def _own_open_marks(state: _GoldState | None, author: str) -> list[str]:
    """Uids of `author`'s open proposals on a stale gold: what a new mark by them supersedes."""
    if state is None or not _stale(state):
        return []
    return [p.uid for p in state.proposals if p.author == author]
