"""Stale-answer flags: an append-only journal in `annotations`, current state derived from it.

Entries are keyed by (dataset name, item key, gold text) — never by row ids — so flags survive
reloads, changed prediction files and new dataset releases. Nothing is ever updated or deleted.

Actions (`annotations.action`):

- `mark`: this gold is stale (optional reason, proposed new answer, evidence URL);
- `unmark`: it is not (clears every open mark on the gold);
- `undo`: cancels the entry named by `ref`; a redo appends the cancelled action again (a new
  `mark`/`unmark` whose `meta.redo_of` is the uid of the entry it repeats).

An entry is *effective* when no `undo` cancels it. Per gold, effective `mark`/`unmark` entries are
ordered by (`ts`, `id`); the latest one decides ("last writer wins", so two databases that import
each other's journals agree whatever the import order). The gold is stale when it is a `mark`.
A new local mark/unmark is stamped now, but never earlier than an entry already on that gold (a
clock set back, an imported entry from a clock ahead): what you do after seeing a state decides.

The *proposals* of a stale gold are the effective marks after its latest unmark, except those a
later mark supersedes: a mark lists in `meta.supersedes` the uids of its author's own open marks
in this database (marking again edits your proposal). Marks made elsewhere (imported) supersede
nothing here, so two annotators' different proposals for the same gold are both kept: a
*conflict*, listed by `stale list` and the patch export.

A flag is *open* while a scored (not superseded) gold of its item still has the flagged text,
*resolved* when the dataset is loaded but the text is gone (or only left as a superseded original
answer: the release rewrote it), and *orphaned* when no dataset of that name is loaded.

Each action is one committed transaction (`BEGIN IMMEDIATE` … `COMMIT`; the database runs in WAL
mode), so a crash leaves whole actions only. A bulk action (many golds) is one transaction and
one undo step: its entries share `meta.batch`. Undo/redo are per author and cover actions made in
this database (imported entries are others' work: override them with mark/unmark). When another
process holds the write lock, writes retry until a deadline, telling `on_busy` once
("database busy, retrying"); past the deadline nothing is written and `StoreError` says so.

Author: explicit argument, else `$QA_INSPECT_AUTHOR`, else the name set once with
`set_default_author` (stored in the `settings` table as `author:<system user>`), else the
system user.
"""

from __future__ import annotations

import getpass
import json
import os
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from .errors import QAInspectError, StoreError

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "CURRENT_FLAGS_SQL",
    "STALE_GOLDS_SQL",
    "Entry",
    "Flag",
    "FlagError",
    "ItemRef",
    "Proposal",
    "Target",
    "UndoState",
    "append",
    "author_for",
    "bulk_mark",
    "bulk_unmark",
    "current_flags",
    "default_author",
    "flags_for_item",
    "get_setting",
    "item_frame_excluding_stale",
    "journal",
    "mark",
    "redo",
    "rescore_excluding_stale",
    "resolve_item",
    "set_default_author",
    "set_setting",
    "targets_for_filter",
    "targets_for_item",
    "targets_for_items",
    "targets_of",
    "undo",
    "undo_state",
    "unmark",
]

_EFFECTIVE = "a.action IN ('mark', 'unmark') AND NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = a.id)"

CURRENT_FLAGS_SQL = f"""
SELECT a.* FROM annotations a
WHERE {_EFFECTIVE} AND a.id = (
    SELECT b.id FROM annotations b
    WHERE b.dataset = a.dataset AND b.item_key = a.item_key AND b.gold_text = a.gold_text
      AND b.action IN ('mark', 'unmark')
      AND NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = b.id)
    ORDER BY b.ts DESC, b.id DESC LIMIT 1
)
"""
"""The deciding journal entry (latest effective mark/unmark) of every gold that has one."""

STALE_GOLDS_SQL = f"""
SELECT g.item_id AS item_id, g.id AS gold_id, g.idx AS idx, f.reason AS reason, f.proposed AS proposed,
       f.evidence AS evidence, f.author AS author, f.ts AS ts
FROM ({CURRENT_FLAGS_SQL}) f
JOIN datasets d ON d.name = f.dataset
JOIN items i ON i.dataset_id = d.id AND i.key = f.item_key
JOIN golds g ON g.item_id = i.id AND g.text = f.gold_text AND g.superseded = 0
WHERE f.action = 'mark'
"""
"""Golds currently flagged stale, one row per gold, with the deciding flag's reason and proposal
(a subquery for filters). Resolved flags (text gone, or only left superseded) are not here."""

AUTHOR_ENV = "QA_INSPECT_AUTHOR"
BUSY_DEADLINE = 30.0
"""Seconds a write keeps retrying while another process holds the write lock."""
_ATTEMPT_MS = 250

BusyCallback = Callable[[str], None]


class FlagError(QAInspectError):
    """A flag action that cannot be done as asked (unknown item, gold not there, nothing to undo)."""


# ---------------------------------------------------------------------------------------------
# Records


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

    @property
    def target(self) -> Target:
        return Target(self.dataset, self.item_key, self.gold_text)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "uid": self.uid, "ts": self.ts, "author": self.author, "action": self.action,
            "dataset": self.dataset, "item_key": self.item_key, "gold_text": self.gold_text,
            "reason": self.reason, "proposed": self.proposed, "evidence": self.evidence, "ref": self.ref,
            "meta": self.meta,
        }


_ENTRY_COLS = "id, uid, ts, author, action, dataset, item_key, gold_text, reason, proposed, evidence, ref, meta"


def _entry(row: Sequence[Any]) -> Entry:
    meta = row[12]
    try:
        decoded = json.loads(meta) if meta else {}
    except ValueError:
        decoded = {"raw": meta}
    return Entry(*row[:12], meta=decoded if isinstance(decoded, dict) else {"raw": decoded})


@dataclass(slots=True)
class Proposal:
    """One open mark on a stale gold: who said it is stale, why, and what it should say now."""

    uid: str
    author: str
    ts: str
    reason: str | None
    proposed: str | None
    evidence: str | None


@dataclass(slots=True)
class Flag:
    """A gold currently flagged stale. The first eight fields are the deciding (latest) mark."""

    dataset: str
    item_key: str
    gold_text: str
    reason: str | None
    proposed: str | None
    evidence: str | None
    author: str
    ts: str
    uid: str = ""
    status: str = "open"
    """`open` (gold still in the data), `resolved` (text gone or superseded), `orphaned` (no such dataset loaded)."""
    gold_idxs: tuple[int, ...] = ()
    """0-based positions of the flagged text among the item's scored golds (empty unless open)."""
    question: str | None = None
    tags: dict[str, str | None] = field(default_factory=dict)
    """The item's `tag` (CDQA: fast/slow/never-changing), `answer_type` and `split`."""
    proposals: list[Proposal] = field(default_factory=list)
    """Every open proposal, oldest first (the deciding one last); see `conflict`."""

    @property
    def target(self) -> Target:
        return Target(self.dataset, self.item_key, self.gold_text)

    @property
    def conflict(self) -> bool:
        """More than one distinct proposed answer is open for this gold."""
        return len({p.proposed for p in self.proposals if p.proposed}) > 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset, "item_key": self.item_key, "question": self.question,
            "gold_text": self.gold_text, "gold_idxs": list(self.gold_idxs), "status": self.status,
            "reason": self.reason, "proposed": self.proposed, "evidence": self.evidence,
            "author": self.author, "ts": self.ts, "uid": self.uid, "tags": self.tags,
            "conflict": self.conflict,
            "proposals": [
                {"uid": p.uid, "author": p.author, "ts": p.ts, "reason": p.reason, "proposed": p.proposed,
                 "evidence": p.evidence}
                for p in self.proposals
            ],
        }


# ---------------------------------------------------------------------------------------------
# Connections, settings, author


def _raw(conn: Any) -> sqlite3.Connection:
    """A `sqlite3.Connection` from it or from a `sqlite_utils.Database`."""
    return getattr(conn, "conn", conn)


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def get_setting(conn: Any, key: str) -> str | None:
    conn = _raw(conn)
    if not _has_table(conn, "settings"):
        return None
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def set_setting(conn: Any, key: str, value: str | None, *, on_busy: BusyCallback | None = None) -> None:
    """Set (or, with None, clear) a setting in its own transaction."""

    def work(c: sqlite3.Connection) -> None:
        if value is None:
            c.execute("DELETE FROM settings WHERE key = ?", (key,))
        else:
            c.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, value))

    _write(_raw(conn), work, on_busy)


def default_author() -> str:
    """The system user's login name ("unknown" when there is none)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _author_key() -> str:
    return f"author:{default_author()}"


def author_for(conn: Any, explicit: str | None = None) -> str:
    """Who is annotating: `explicit`, else $QA_INSPECT_AUTHOR, else the stored name, else the system user."""
    for name in (explicit, os.environ.get(AUTHOR_ENV), get_setting(conn, _author_key())):
        if name and name.strip():
            return name.strip()
    return default_author()


def set_default_author(conn: Any, name: str | None) -> None:
    """Remember `name` as this system user's annotator name in this database (None: forget it)."""
    set_setting(conn, _author_key(), name.strip() if name and name.strip() else None)


# ---------------------------------------------------------------------------------------------
# Writing: one transaction per action, retried while another process writes


def _now() -> str:
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def normalise_ts(value: str) -> str:
    """An ISO time as the journal writes it (UTC, milliseconds, `Z`); ValueError when unreadable."""
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    dt = datetime.fromisoformat(text)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    dt = dt.astimezone(timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def new_uid() -> str:
    return uuid.uuid4().hex


def _busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _write(
    conn: sqlite3.Connection,
    work: Callable[[sqlite3.Connection], Any],
    on_busy: BusyCallback | None = None,
    deadline: float | None = None,
) -> Any:
    """Run `work` inside one IMMEDIATE transaction and commit; retry while the database is busy.

    Either everything `work` wrote is committed or nothing is (then StoreError says why).
    """
    if conn.in_transaction:
        raise StoreError("a transaction is already open on this connection; finish it before annotating")
    limit = time.monotonic() + (BUSY_DEADLINE if deadline is None else deadline)
    old_timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    told = False

    def wait(exc: sqlite3.OperationalError) -> None:
        nonlocal told
        if not _busy(exc) or time.monotonic() >= limit:
            if _busy(exc):
                raise StoreError(
                    "database busy: another process kept it locked; nothing was recorded, try again"
                ) from None
            raise StoreError(f"cannot write to the database ({exc})") from None
        if not told and on_busy is not None:
            on_busy("database busy (another process is writing), retrying…")
        told = True
        time.sleep(0.05)

    conn.execute(f"PRAGMA busy_timeout = {_ATTEMPT_MS}")
    try:
        while True:
            try:
                conn.execute("BEGIN IMMEDIATE")
                break
            except sqlite3.OperationalError as exc:
                wait(exc)
        try:
            result = work(conn)
        except sqlite3.Error as exc:
            conn.execute("ROLLBACK")
            raise StoreError(f"cannot write to the database ({exc}); nothing was recorded") from None
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        while True:
            try:
                conn.execute("COMMIT")
                return result
            except sqlite3.OperationalError as exc:
                try:
                    wait(exc)
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(old_timeout)}")


def _insert(
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
) -> Entry:
    entry = Entry(
        id=0, uid=uid or new_uid(), ts=ts or _now(), author=author, action=action, dataset=target.dataset,
        item_key=target.item_key, gold_text=target.gold_text, reason=_blank(reason), proposed=_blank(proposed),
        evidence=_blank(evidence), ref=ref, meta={k: v for k, v in (meta or {}).items() if v not in (None, [], "")},
    )
    cur = conn.execute(
        "INSERT INTO annotations (ts, author, action, dataset, item_key, gold_text, reason, proposed, evidence,"
        " ref, uid, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (entry.ts, entry.author, entry.action, entry.dataset, entry.item_key, entry.gold_text, entry.reason,
         entry.proposed, entry.evidence, entry.ref, entry.uid,
         json.dumps(entry.meta, ensure_ascii=False, sort_keys=True) if entry.meta else None),
    )
    entry.id = int(cur.lastrowid or 0)
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
    return after.strftime("%Y-%m-%dT%H:%M:%S.") + f"{after.microsecond // 1000:03d}Z"


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
    on_busy: BusyCallback | None = None,
) -> int:
    """Low level: one journal entry in its own committed transaction, no checks; returns its id."""
    if action not in ("mark", "unmark", "undo"):
        raise ValueError(f"unknown journal action {action!r}")
    raw = _raw(conn)
    who = author_for(raw, author)
    target = Target(dataset, item_key, gold_text)
    entry = _write(
        raw,
        lambda c: _insert(c, action, target, who, reason=reason, proposed=proposed, evidence=evidence, ref=ref,
                          ts=_stamp(c, target) if action != "undo" else None),
        on_busy,
    )
    return entry.id


# ---------------------------------------------------------------------------------------------
# Deriving state


@dataclass(slots=True)
class _GoldState:
    deciding: Entry
    proposals: list[Entry]


def _effective_entries(conn: sqlite3.Connection, where: str = "", params: Sequence[Any] = ()) -> list[Entry]:
    sql = (
        f"SELECT {', '.join('a.' + c.strip() for c in _ENTRY_COLS.split(','))} FROM annotations a"
        f" WHERE {_EFFECTIVE}" + (f" AND {where}" if where else "") + " ORDER BY a.ts, a.id"
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


def _gold_rows(conn: sqlite3.Connection, dataset: str, item_key: str) -> tuple[bool, Any, list[tuple[int, str, int]]]:
    """(dataset loaded?, item row (question, tag, answer_type, split) or None, [(idx, text, superseded)])."""
    ds = conn.execute("SELECT id FROM datasets WHERE name = ?", (dataset,)).fetchone()
    if ds is None:
        return False, None, []
    item = conn.execute(
        "SELECT id, question, tag, answer_type, split FROM items WHERE dataset_id = ? AND key = ?", (ds[0], item_key)
    ).fetchone()
    if item is None:
        return True, None, []
    golds = conn.execute("SELECT idx, text, superseded FROM golds WHERE item_id = ? ORDER BY idx", (item[0],)).fetchall()
    return True, item, golds


def _flag(conn: sqlite3.Connection, target: Target, state: _GoldState, cache: dict[tuple[str, str], Any]) -> Flag:
    key = (target.dataset, target.item_key)
    if key not in cache:
        cache[key] = _gold_rows(conn, *key)
    loaded, item, golds = cache[key]
    idxs = tuple(idx for idx, text, sup in golds if text == target.gold_text and not sup)
    status = "open" if idxs else ("resolved" if loaded else "orphaned")
    d = state.deciding
    return Flag(
        dataset=target.dataset, item_key=target.item_key, gold_text=target.gold_text, reason=d.reason,
        proposed=d.proposed, evidence=d.evidence, author=d.author, ts=d.ts, uid=d.uid, status=status,
        gold_idxs=idxs, question=item[1] if item else None,
        tags={"tag": item[2], "answer_type": item[3], "split": item[4]} if item else {},
        proposals=[Proposal(p.uid, p.author, p.ts, p.reason, p.proposed, p.evidence) for p in state.proposals],
    )


def current_flags(conn: Any, dataset: str | None = None, *, include_resolved: bool = True) -> list[Flag]:
    """Golds flagged stale now (open, resolved and orphaned unless `include_resolved=False`),
    in the order they were flagged."""
    raw = _raw(conn)
    cache: dict[tuple[str, str], Any] = {}
    flags = [_flag(raw, t, s, cache) for t, s in _states(raw, dataset=dataset).items() if _stale(s)]
    if not include_resolved:
        flags = [f for f in flags if f.status == "open"]
    return sorted(flags, key=lambda f: (min(p.ts for p in f.proposals) if f.proposals else f.ts, f.dataset, f.item_key, f.gold_text))


def flags_for_item(conn: Any, dataset: str, item_key: str) -> list[Flag]:
    """The item's flagged golds (including resolved ones whose text is gone), by gold position."""
    raw = _raw(conn)
    entries = _effective_entries(raw, "a.dataset = ? AND a.item_key = ?", (dataset, item_key))
    cache: dict[tuple[str, str], Any] = {}
    flags = [_flag(raw, t, s, cache) for t, s in _derive(entries).items() if _stale(s)]
    return sorted(flags, key=lambda f: (f.gold_idxs[0] if f.gold_idxs else 1 << 30, f.gold_text))


def journal(
    conn: Any, *, dataset: str | None = None, item_key: str | None = None, author: str | None = None,
    limit: int | None = None,
) -> list[Entry]:
    """Journal entries, oldest first (every action, undo and import; nothing is ever removed)."""
    where, params = [], []
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
    return [_entry(r) for r in _raw(conn).execute(sql, params)]


# ---------------------------------------------------------------------------------------------
# Finding what to flag


@dataclass(slots=True)
class ItemRef:
    dataset: str
    key: str
    item_id: int
    question: str
    golds: list[tuple[int, str, bool]]
    """(idx, text, superseded) in dataset order."""

    def scored_texts(self) -> list[str]:
        """Distinct texts of the golds that count (superseded ones left out), in order."""
        seen: list[str] = []
        for _, text, sup in self.golds:
            if not sup and text not in seen:
                seen.append(text)
        return seen


def _item_ref(conn: sqlite3.Connection, item_id: int) -> ItemRef:
    row = conn.execute(
        "SELECT d.name, i.key, i.id, i.question FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE i.id = ?",
        (item_id,),
    ).fetchone()
    golds = [(idx, text, bool(sup)) for idx, text, sup in conn.execute(
        "SELECT idx, text, superseded FROM golds WHERE item_id = ? ORDER BY idx", (item_id,))]
    return ItemRef(row[0], row[1], row[2], row[3], golds)


def resolve_item(conn: Any, ident: str, dataset: str | None = None) -> ItemRef:
    """The item named by `ident`: its key, else its question text (original or shown).

    Raises FlagError naming the problem: no such dataset, no such item, or an ambiguous name.
    """
    from .keys import question_key

    raw = _raw(conn)
    names = [r[0] for r in raw.execute("SELECT name FROM datasets ORDER BY name")]
    if dataset is not None and dataset not in names:
        known = ", ".join(names) or "none loaded"
        raise FlagError(f"no dataset named {dataset!r} (datasets: {known})")
    scope = " AND d.name = ?" if dataset is not None else ""
    extra = [dataset] if dataset is not None else []
    base = "SELECT i.id, d.name, i.key FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE "
    text = ident.strip()
    attempts: list[tuple[str, list[Any]]] = [("i.key = ?", [text])]
    if text:
        qk = question_key(text)
        attempts += [("i.key = ?", [qk]), ("i.qkey = ?", [qk])]
    for cond, params in attempts:
        rows = raw.execute(base + cond + scope + " ORDER BY d.name, i.id", [*params, *extra]).fetchall()
        if len(rows) == 1:
            return _item_ref(raw, rows[0][0])
        if len(rows) > 1:
            where = sorted({r[1] for r in rows})
            if len(where) > 1:
                raise FlagError(f"item {ident!r} is in several datasets ({', '.join(where)}); choose one with --dataset")
            raise FlagError(f"{ident!r} matches {len(rows)} items ({', '.join(r[2] for r in rows[:5])}); give the item key")
    if text:  # a repeated question: the base key has `#2`, `#3`, ... siblings
        rows = raw.execute(base + "i.key LIKE ?" + scope, [question_key(text) + "#%", *extra]).fetchall()
        if rows:
            keys = [question_key(text)] + [r[2] for r in rows]
            raise FlagError(f"{ident!r} is a repeated question ({', '.join(keys[:5])}); give the item key")
    where = f" in dataset {dataset!r}" if dataset else ""
    raise FlagError(f"no item {ident!r}{where} (give an item key or, for items without ids, the question text)")


def targets_for_item(
    conn: Any, dataset: str, item_key: str, *, gold_idx: int | None = None, gold_text: str | None = None
) -> list[Target]:
    """Targets of one item: the gold at `gold_idx` (0-based), the gold with `gold_text`, or (neither)
    every distinct scored gold text. Raises FlagError when the gold is not there."""
    raw = _raw(conn)
    ref = resolve_item(raw, item_key, dataset)
    return targets_of(ref, gold_idx, gold_text)


def targets_of(ref: ItemRef, gold_idx: int | None = None, gold_text: str | None = None) -> list[Target]:
    """`targets_for_item` for an item already resolved (`resolve_item`)."""
    if gold_idx is not None:
        if not 0 <= gold_idx < len(ref.golds):
            n = len(ref.golds)
            raise FlagError(f"item {ref.key} has {n} gold answer{'s' if n != 1 else ''}; gold {gold_idx + 1} is out of range")
        idx, text, sup = ref.golds[gold_idx]
        if sup:
            raise FlagError(f"gold {idx + 1} of item {ref.key} ({text!r}) is already superseded by the dataset's rewrite")
        return [Target(ref.dataset, ref.key, text)]
    if gold_text is not None:
        texts = ref.scored_texts()
        if gold_text in texts:
            return [Target(ref.dataset, ref.key, gold_text)]
        stripped = [t for t in texts if t.strip() == gold_text.strip()]
        if len(stripped) == 1:
            return [Target(ref.dataset, ref.key, stripped[0])]
        shown = ", ".join(repr(t) for t in texts) or "none"
        raise FlagError(f"answer {gold_text!r} is not among the golds of item {ref.key} ({shown})")
    texts = ref.scored_texts()
    if not texts:
        raise FlagError(f"item {ref.key} has no scored gold answer to flag")
    return [Target(ref.dataset, ref.key, t) for t in texts]


def targets_for_items(conn: Any, item_ids: Iterable[int], *, gold_idx: int | None = None) -> list[Target]:
    """Targets for a selection of item rows (ids from `core.query` pages): every distinct scored gold
    text of each item (or only the gold at `gold_idx` where the item has one). Items without a
    scored gold are skipped."""
    raw = _raw(conn)
    out: list[Target] = []
    seen: set[Target] = set()
    ids = list(dict.fromkeys(int(i) for i in item_ids))
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        rows = raw.execute(
            "SELECT d.name, i.key, g.idx, g.text FROM golds g JOIN items i ON i.id = g.item_id"
            " JOIN datasets d ON d.id = i.dataset_id"
            f" WHERE g.item_id IN ({', '.join('?' * len(chunk))}) AND g.superseded = 0 ORDER BY i.id, g.idx",
            chunk,
        ).fetchall()
        for ds, key, idx, text in rows:
            if gold_idx is not None and idx != gold_idx:
                continue
            t = Target(ds, key, text)
            if t not in seen:
                seen.add(t)
                out.append(t)
    return out


def targets_for_filter(conn: Any, f: Any) -> list[Target]:
    """Targets for "all items matching the filter" (a `core.query.Filter`)."""
    from .query import build

    raw = _raw(conn)
    sql, params = build(raw, f)
    ids = [r[0] for r in raw.execute(f"SELECT DISTINCT i.id {sql}", params)]
    return targets_for_items(raw, ids)


# ---------------------------------------------------------------------------------------------
# Actions


def _check_target(conn: sqlite3.Connection, t: Target) -> None:
    loaded, item, golds = _gold_rows(conn, t.dataset, t.item_key)
    if not loaded:
        raise FlagError(f"no dataset named {t.dataset!r}")
    if item is None:
        raise FlagError(f"no item {t.item_key!r} in dataset {t.dataset!r}")
    texts = [text for _, text, sup in golds if not sup]
    if t.gold_text not in texts:
        if any(text == t.gold_text for _, text, _ in golds):
            raise FlagError(f"gold {t.gold_text!r} of item {t.item_key} is already superseded by the dataset's rewrite")
        raise FlagError(f"{t.gold_text!r} is not among the golds of item {t.item_key}")


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
        state = states.get(t)
        own = [p.uid for p in state.proposals if p.author == author] if _stale(state) else []
        meta = {"batch": batch, "supersedes": own, **(extra_meta(t) if extra_meta else {})}
        out.append(_insert(conn, "mark", t, author, reason=reason, proposed=proposed, evidence=evidence, meta=meta,
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
    raw = _raw(conn)
    t = Target(dataset, item_key, gold_text)
    if check:
        _check_target(raw, t)
    who = author_for(raw, author)
    entries = _write(
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
    raw = _raw(conn)
    todo = list(dict.fromkeys(targets))
    if check:
        for t in todo:
            _check_target(raw, t)
    who = author_for(raw, author)
    if not todo:
        return []
    return _write(
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
    return [_insert(conn, "unmark", t, author, meta={"batch": batch}, ts=_stamp(conn, t)) for t in todo]


def unmark(
    conn: Any, dataset: str, item_key: str, gold_text: str, *, author: str | None = None,
    on_busy: BusyCallback | None = None,
) -> Entry:
    """Clear the flag of one gold (every open proposal on it). FlagError when it is not flagged."""
    raw = _raw(conn)
    who = author_for(raw, author)
    return _write(raw, lambda c: _unmark_all(c, [Target(dataset, item_key, gold_text)], who, True), on_busy)[0]


def bulk_unmark(
    conn: Any, targets: Iterable[Target], *, author: str | None = None, on_busy: BusyCallback | None = None
) -> list[Entry]:
    """Clear many flags in one transaction and one undo step; golds not flagged are skipped."""
    raw = _raw(conn)
    todo = list(dict.fromkeys(targets))
    if not todo:
        return []
    who = author_for(raw, author)
    return _write(raw, lambda c: _unmark_all(c, todo, who, False), on_busy)


# ---------------------------------------------------------------------------------------------
# Undo / redo


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
        return f"{action} {e.dataset}/{e.item_key} {e.gold_text!r}"
    return f"{action} {len(entries)} golds"


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
        elif g.action in ("mark", "unmark"):
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
    raw = _raw(conn)
    who = author_for(raw, author)
    done, undone = _stacks(raw, who)
    return UndoState(who, bool(done), bool(undone), len(done), len(undone),
                     _group_entries(raw, done[-1] if done else None),
                     _group_entries(raw, undone[-1] if undone else None))


def undo(conn: Any, author: str | None = None, *, on_busy: BusyCallback | None = None) -> list[Entry]:
    """Cancel the author's last action (all golds of a bulk action) with new `undo` entries.

    Returns the entries that were cancelled; an empty list when there is nothing to undo.
    """
    raw = _raw(conn)
    who = author_for(raw, author)

    def work(c: sqlite3.Connection) -> list[Entry]:
        done, _ = _stacks(c, who)
        if not done:
            return []
        group = _group_entries(c, done[-1])
        batch = new_uid() if len(group) > 1 else None
        for e in group:
            _insert(c, "undo", e.target, who, ref=e.id, meta={"batch": batch, "ref_uid": e.uid})
        return group

    return _write(raw, work, on_busy)


def redo(conn: Any, author: str | None = None, *, on_busy: BusyCallback | None = None) -> list[Entry]:
    """Apply the author's last undone action again (new entries); returns them, empty when nothing to redo."""
    raw = _raw(conn)
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
            meta: dict[str, Any] = {"batch": batch, "redo_of": e.uid}
            if e.action == "mark":
                state = states.get(e.target)
                meta["supersedes"] = [p.uid for p in state.proposals if p.author == who] if _stale(state) else []
            out.append(_insert(c, e.action, e.target, who, reason=e.reason, proposed=e.proposed,
                               evidence=e.evidence, meta=meta, ts=_stamp(c, e.target)))
        return out

    return _write(raw, work, on_busy)


# ---------------------------------------------------------------------------------------------
# Metrics with stale golds left out

EXCLUDE_STALE = "stale golds excluded"
ALL_GOLDS = "all golds"


@dataclass(slots=True)
class _StaleItem:
    dataset: str
    key: str
    stale: set[str]
    remaining: list[str]
    """Scored gold texts that are not stale, in dataset order (duplicates kept, as scorers want them)."""


def _stale_items(conn: sqlite3.Connection) -> dict[int, _StaleItem]:
    """item id → its stale gold texts and the scored golds left, for items with a stale gold now."""
    out: dict[int, _StaleItem] = {}
    for item_id, dataset, key, text in conn.execute(
        f"SELECT DISTINCT s.item_id, d.name, i.key, g.text FROM ({STALE_GOLDS_SQL}) s"
        " JOIN golds g ON g.id = s.gold_id JOIN items i ON i.id = s.item_id JOIN datasets d ON d.id = i.dataset_id"
    ):
        out.setdefault(item_id, _StaleItem(dataset, key, set(), [])).stale.add(text)
    for item_id, st in out.items():
        st.remaining = [
            t for (t,) in conn.execute(
                "SELECT text FROM golds WHERE item_id = ? AND superseded = 0 ORDER BY idx", (item_id,))
            if t not in st.stale
        ]
    return out


def item_frame_excluding_stale(conn: Any, runs: Sequence[str] | None = None, *, human: bool = True) -> pl.DataFrame:
    """`core.report.item_frame` with stale golds left out.

    Same columns, so `core.report.slice_table` aggregates it exactly like the normal report.
    Predictions on items with a stale gold are re-scored against the golds left (with
    `core.metrics.registry.score_prediction`, the run's scorer); items left with no scored gold are
    dropped (from every run and from the human estimate, which is recomputed from the golds left).
    Extra columns: `stale_golds` (the item's stale gold texts) and `mode` (= `EXCLUDE_STALE`).
    """
    import polars as pl

    from .metrics.human import human_score
    from .metrics.registry import score_prediction
    from .report import HUMAN, item_frame

    raw = _raw(conn)
    frame = item_frame(raw, runs, human=False)
    stale = _stale_items(raw)
    by_key = {(st.dataset, st.key): (iid, st) for iid, st in stale.items()}
    schema = dict(frame.schema)
    rows: list[dict[str, Any]] = []
    if stale:
        sql = (
            "SELECT r.name, p.item_id, p.text, COALESCE(p.scorer, r.scorer) FROM predictions p"
            f" JOIN runs r ON r.id = p.run_id WHERE p.item_id IN ({', '.join('?' * len(stale))})"
        )
        params: list[Any] = list(stale)
        if runs is not None:
            sql += f" AND r.name IN ({', '.join('?' * len(runs))})" if runs else " AND 0"
            params += list(runs)
        rescored = {}
        for run, iid, text, scorer in raw.execute(sql, params):
            if stale[iid].remaining:
                rescored[(run, iid)] = score_prediction(scorer, text, stale[iid].remaining)
        for rec in frame.iter_rows(named=True):
            hit = by_key.get((rec["dataset"], rec["item_key"]))
            if hit is None:
                continue
            iid, st = hit
            if not st.remaining:
                continue
            score = rescored.get((rec["run"], iid))
            if score is not None:
                rec.update(em=None if score.em is None else float(score.em), f1=score.f1,
                           refused=score.refused, f1_recall=score.f1_recall)
            rows.append(rec)
        touched = pl.DataFrame(list(by_key), schema={"dataset": pl.String, "item_key": pl.String}, orient="row")
        frame = frame.join(touched, on=["dataset", "item_key"], how="anti")
        if rows:
            frame = pl.concat([frame, pl.DataFrame(rows, schema=schema)], how="vertical")
    if human:
        hum = []
        for ds, family, key, split, tag, atype, iid, hem, hf1 in raw.execute(
            "SELECT d.name, d.family, i.key, i.split, i.tag, i.answer_type, i.id, i.human_em, i.human_f1"
            " FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE i.human_f1 IS NOT NULL ORDER BY i.id"
        ):
            if iid in stale:
                est = human_score(stale[iid].remaining)
                if est is None:
                    continue
                hem, hf1 = est.em, est.f1
            hum.append((ds, family, HUMAN, key, split, tag, atype, True, hem, hf1, None, None))
        if hum:
            frame = pl.concat([frame, pl.DataFrame(hum, schema=schema, orient="row")], how="vertical")
    counts = pl.DataFrame(
        [(st.dataset, st.key, len(st.stale)) for st in stale.values()],
        schema={"dataset": pl.String, "item_key": pl.String, "stale_golds": pl.Int64}, orient="row",
    )
    return frame.join(counts, on=["dataset", "item_key"], how="left").with_columns(
        pl.col("stale_golds").fill_null(0), pl.lit(EXCLUDE_STALE).alias("mode")
    )


@dataclass(slots=True)
class StaleRescore:
    """One run's overall numbers with every gold and with stale golds excluded (`core.report` units: percent)."""

    run: str
    dataset: str
    family: str
    stale_golds: int
    """Stale gold texts in the run's dataset."""
    items_dropped: int
    """Items left with no scored gold (not counted in `excluding_stale`)."""
    items_rescored: int
    """Items still counted whose golds lost a stale one (their predictions were re-scored)."""
    all_golds: dict[str, Any]
    excluding_stale: dict[str, Any]
    mode: str = EXCLUDE_STALE

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": self.run, "dataset": self.dataset, "family": self.family, "mode": self.mode,
            "stale_golds": self.stale_golds, "items_dropped": self.items_dropped,
            "items_rescored": self.items_rescored, "all_golds": self.all_golds,
            "excluding_stale": self.excluding_stale,
        }


def rescore_excluding_stale(conn: Any, run: str) -> StaleRescore:
    """Overall metrics of `run` in both modes: all golds (the stored scores) and stale golds excluded."""
    from .report import item_frame, slice_table

    raw = _raw(conn)
    row = raw.execute(
        "SELECT d.name, d.family FROM runs r JOIN datasets d ON d.id = r.dataset_id WHERE r.name = ?", (run,)
    ).fetchone()
    if row is None:
        known = ", ".join(r[0] for r in raw.execute("SELECT name FROM runs ORDER BY name")) or "none loaded"
        raise FlagError(f"no run named {run!r} linked to a dataset (runs: {known})")
    dataset, family = row
    metrics = ("items", "predicted", "em", "f1", "answered", "f1_recall", "answer_rate", "errors")
    base = item_frame(raw, [run], human=False)
    excl = item_frame_excluding_stale(raw, [run], human=False)

    def overall(frame: Any) -> dict[str, Any]:
        if frame.height == 0:
            return {"items": 0}
        table = slice_table(frame.select(base.columns), None)
        return {m: v for m, v in table.select(metrics).to_dicts()[0].items() if v is not None}

    here = [st for st in _stale_items(raw).values() if st.dataset == dataset]
    return StaleRescore(
        run=run, dataset=dataset, family=family, stale_golds=sum(len(st.stale) for st in here),
        items_dropped=sum(1 for st in here if not st.remaining),
        items_rescored=sum(1 for st in here if st.remaining),
        all_golds=overall(base), excluding_stale=overall(excl),
    )
