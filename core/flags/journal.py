"""The stale-answer journal: append-only entries in `annotations`, and the records that name golds.

Entries are keyed by (dataset, item key, gold text) — never by row ids — so flags survive
reloads, changed prediction files and new dataset releases. Nothing is ever deleted, and what an
entry says never changes; only its binding (`dataset`: which loaded dataset it belongs to, found
by content, see `core.store.bindings`) follows a renamed file.

Actions (`annotations.action`):

- `mark`: this gold is stale (optional reason, proposed new answer, evidence URL);
- `unmark`: it is not (clears every open mark on the gold);
- `verify`: this gold is still correct (optional note in `reason`); it dates the gold for the
  review queue and the freshness summary and never changes whether it is flagged stale;
- `undo`: cancels the entry named by `ref`; a redo appends the cancelled action again (a new
  `mark`/`unmark` whose `meta.redo_of` is the uid of the entry it repeats).

A new local mark/unmark is stamped now, but never earlier than an entry already on that gold (a
clock set back, an imported entry from a clock ahead): what you do after seeing a state decides.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.store import (
    BusyCallback,
    author_for,
    fingerprint_of,
    sqlite_connection,
    write_transaction,
)

from .journal_files import queue_local_entry

__all__ = ["FLAG_ENTRIES_SQL", "Entry", "FlagError", "Target", "append", "has_entries", "insert_entry", "journal", "new_uid", "normalise_ts"]


class FlagError(QAInspectError):
    """A flag action that cannot be done as asked (unknown item, gold not there, nothing to undo)."""


@dataclass(frozen=True, slots=True)
class Target:
    """One gold answer, as flags name it."""

    dataset: str
    item_key: str
    gold_text: str


@dataclass(slots=True)
class Entry:
    """One journal row; `meta` is the decoded JSON (`batch`, `supersedes`, `redo_of`, `imported_from`, `ref_uid`)."""

    id: int
    uid: str
    ts: str
    author: str
    action: str
    dataset: str
    item_key: str
    gold_text: str
    reason: str | None = None
    proposed: str | None = None
    evidence: str | None = None
    ref: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    run: str | None = None
    """Label entries only (`core.labels`): the run and the label; None on stale-flag entries."""
    label: str | None = None

    @property
    def target(self) -> Target:
        return Target(self.dataset, self.item_key, self.gold_text)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "id": self.id, "uid": self.uid, "ts": self.ts, "author": self.author, "action": self.action,
            "dataset": self.dataset, "item_key": self.item_key, "gold_text": self.gold_text,
            "reason": self.reason, "proposed": self.proposed, "evidence": self.evidence, "ref": self.ref,
            "meta": self.meta,
        }
        if self.label is not None:
            out.update(run=self.run, label=self.label)
        elif self.run is not None:  # an alias entry: the run whose answer was accepted
            out["run"] = self.run
        return out


_ENTRY_COLS = "id, uid, ts, author, action, dataset, item_key, gold_text, reason, proposed, evidence, ref, meta, run, label"

FLAG_ENTRIES_SQL = "label IS NULL"
"""Stale-flag entries (and their undos): label entries (`core.labels`) share the table, never this."""


def _entry(row: Sequence[Any]) -> Entry:
    meta = row[12]
    try:
        decoded = json.loads(meta) if meta else {}
    except ValueError:
        decoded = {"raw": meta}
    id_, uid, ts, author, action, dataset, item_key, gold_text, reason, proposed, evidence, ref = row[:12]
    return Entry(
        id_, uid, ts, author, action, dataset, item_key, gold_text, reason, proposed, evidence, ref,
        meta=decoded if isinstance(decoded, dict) else {"raw": decoded}, run=row[13], label=row[14],
    )


def _iso_ms(dt: datetime) -> str:
    """A UTC time as the journal writes it (milliseconds, `Z`): one width, so text order is time order."""
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def _now() -> str:
    """Now, as the journal writes times."""
    return _iso_ms(datetime.now(timezone.utc))


def normalise_ts(value: str) -> str:
    """An ISO time as the journal writes it (UTC, milliseconds, `Z`); ValueError when unreadable."""
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    dt = datetime.fromisoformat(text)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return _iso_ms(dt.astimezone(timezone.utc))


def new_uid() -> str:
    """A journal entry's identity, kept across exports and imports (row ids are not)."""
    return uuid.uuid4().hex


def insert_entry(
    conn: sqlite3.Connection,
    action: str,
    target: Target,
    author: str,
    *,
    reason: str | None = None,
    proposed: str | None = None,
    evidence: str | None = None,
    ref: int | None = None,
    meta: dict[str, Any] | None = None,
    uid: str | None = None,
    ts: str | None = None,
    fingerprint: str | None = None,
    columns: dict[str, Any] | None = None,
) -> Entry:
    """One journal entry written on `conn` inside a transaction the caller holds (no checks, no
    commit): for importers and for tests that stage a journal. `append` is the committed form.
    A new entry (no `uid` given) also goes to its author's journal file once committed
    (`journal_files`).

    The entry remembers the dataset by name and by content (`fingerprint`: given by an import,
    else the loaded dataset's), so it stays with that dataset when its file is renamed. `columns`:
    further columns written as given (a label entry's `run`, `label`, `label_source`)."""
    entry = Entry(
        id=0, uid=uid or new_uid(), ts=ts or _now(), author=author, action=action, dataset=target.dataset,
        item_key=target.item_key, gold_text=target.gold_text, reason=_blank(reason), proposed=_blank(proposed),
        evidence=_blank(evidence), ref=ref, meta={k: v for k, v in (meta or {}).items() if v not in (None, [], "")},
        run=(columns or {}).get("run"), label=(columns or {}).get("label"),
    )
    extra = dict(columns or {})
    cur = conn.execute(
        "INSERT INTO annotations (ts, author, action, dataset, item_key, gold_text, reason, proposed, evidence,"
        f" ref, uid, meta, written_as, dataset_fp{''.join(', ' + c for c in extra)})"
        f" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?{', ?' * len(extra)})",
        (entry.ts, entry.author, entry.action, entry.dataset, entry.item_key, entry.gold_text, entry.reason,
         entry.proposed, entry.evidence, entry.ref, entry.uid,
         json.dumps(entry.meta, ensure_ascii=False, sort_keys=True) if entry.meta else None,
         entry.dataset, fingerprint or fingerprint_of(conn, entry.dataset), *extra.values()),
    )
    entry.id = int(cur.lastrowid or 0)
    if uid is None:  # written here by this user (an import or a journal file keeps its uid): to their file
        queue_local_entry(conn, entry.id)
    return entry


def _stamp(conn: sqlite3.Connection, target: Target) -> str:
    """Time of a new local mark/unmark: now, but never before an entry already on the same gold
    (a clock set back, or an imported entry from a clock ahead), so what you do now decides."""
    now = _now()
    row = conn.execute(
        "SELECT MAX(ts) FROM annotations WHERE dataset = ? AND item_key = ? AND gold_text = ?"
        " AND action IN ('mark', 'unmark')",
        (target.dataset, target.item_key, target.gold_text),
    ).fetchone()
    latest = row[0] if row else None
    if not latest or latest < now:
        return now
    try:
        after = datetime.fromisoformat(latest.replace("Z", "+00:00")) + timedelta(milliseconds=1)
    except ValueError:
        return now
    return _iso_ms(after)


def _blank(value: str | None) -> str | None:
    """Empty form fields are "not given"."""
    return value if value is not None and value.strip() else None


def append(
    conn: Any,
    action: str,
    dataset: str,
    item_key: str,
    gold_text: str,
    *,
    author: str | None = None,
    reason: str | None = None,
    proposed: str | None = None,
    evidence: str | None = None,
    ref: int | None = None,
    ts: str | None = None,
    meta: dict[str, Any] | None = None,
    on_busy: BusyCallback | None = None,
) -> int:
    """Low level: one journal entry in its own committed transaction, no checks; returns its id.

    `ts` (ISO 8601, UTC) backdates or postdates the entry, as an imported entry would be; by
    default it is now (never earlier than the gold's latest entry). `meta` is stored as JSON."""
    if action not in ("mark", "unmark", "undo", "verify"):
        raise ValueError(f"unknown journal action {action!r}")
    raw = sqlite_connection(conn)
    who = author_for(raw, author)
    target = Target(dataset, item_key, gold_text)
    entry = write_transaction(
        raw,
        lambda c: insert_entry(c, action, target, who, reason=reason, proposed=proposed, evidence=evidence, ref=ref,
                               meta=meta, ts=ts or (_stamp(c, target) if action != "undo" else None)),
        on_busy,
    )
    return entry.id


def journal(
    conn: Any, *, dataset: str | None = None, item_key: str | None = None, author: str | None = None,
    limit: int | None = None,
) -> list[Entry]:
    """Stale-flag journal entries, oldest first (every action, undo and import; nothing is ever
    removed). Label entries share the table and are left out (`core.labels` reads them)."""
    where = [FLAG_ENTRIES_SQL]
    params: list[str | int] = []
    for col, value in (("dataset", dataset), ("item_key", item_key), ("author", author)):
        if value is not None:
            where.append(f"{col} = ?")
            params.append(value)
    sql = f"SELECT {_ENTRY_COLS} FROM annotations" + (" WHERE " + " AND ".join(where) if where else "")
    if limit is not None:
        sql = f"SELECT * FROM ({sql} ORDER BY id DESC LIMIT ?) ORDER BY id"
        params.append(limit)
    else:
        sql += " ORDER BY id"
    return [_entry(r) for r in sqlite_connection(conn).execute(sql, params)]


def has_entries(conn: Any, dataset: str) -> bool:
    """Whether the journal names `dataset` (its flags outlive the dataset being loaded)."""
    row = sqlite_connection(conn).execute(
        f"SELECT 1 FROM annotations WHERE dataset = ? AND {FLAG_ENTRIES_SQL} LIMIT 1", (dataset,)).fetchone()
    return row is not None
