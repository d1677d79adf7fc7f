"""Stale flags in: merge a patch, a journal export, or another qa-inspect database file.

Entries keep their uid, so importing the same file twice adds nothing; imported marks supersede
nothing, so another annotator's different proposal is kept beside yours (a conflict). Undo
references travel as uids. The whole file is one transaction: a bad line adds nothing and names
the line.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import JSONFloat, loads, read_text
from qa_inspect.core.store import (
    AMBIGUOUS_SUFFIX,
    BusyCallback,
    bind_journal,
    sqlite_connection,
    write_transaction,
)

from .aliases import ALIAS_ENTRIES_SQL, ALIAS_KIND
from .current import Flag, current_flags
from .journal import Entry, Target, _now, insert_entry, normalise_ts

__all__ = ["ImportResult", "import_file"]


@dataclass(slots=True)
class ImportResult:
    path: str
    kind: str
    """"patch", "journal", "database" (or "empty")."""
    added: int = 0
    duplicates: int = 0
    conflicts: list[Flag] = field(default_factory=list)
    """Flags touched by the import that now have more than one proposal."""
    unknown: list[str] = field(default_factory=list)
    """Entries naming a dataset, item or gold this database does not hold ("dev Q9 '北京': unknown item")."""
    kept_unknown: bool = False
    """Whether those were imported anyway (`keep_unknown`); by default they are left out."""

    @property
    def unknown_line(self) -> str:
        """One line on the entries that match nothing here, or "" when there are none."""
        if not self.unknown:
            return ""
        shown = "; ".join(self.unknown[:3]) + ("; …" if len(self.unknown) > 3 else "")
        done = "imported anyway" if self.kept_unknown else "not imported (--keep-unknown imports them)"
        return f"{self.path}: {len(self.unknown)} entr{'y names' if len(self.unknown) == 1 else 'ies name'} what this database does not hold ({shown}); {done}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "added": self.added, "duplicates": self.duplicates,
                "conflicts": [f.to_dict() for f in self.conflicts], "unknown": self.unknown,
                "kept_unknown": self.kept_unknown}


@dataclass(slots=True)
class _Incoming:
    uid: str
    ts: str
    author: str
    action: str
    target: Target
    reason: str | None
    proposed: str | None
    evidence: str | None
    ref_uid: str | None
    meta: dict[str, Any]
    fingerprint: str | None = None
    """Of the dataset the entry was written against (exports since schema 6 carry it)."""
    run: str | None = None
    """An alias entry's provenance: the run whose answer was accepted."""


def _text(path: Path, rec: dict[str, Any], name: str, where: str, *, required: bool = False) -> str | None:
    value = rec.get(name)
    if value is None:
        if required:
            raise FormatError(str(path), f"no {name!r}", where)
        return None
    if not isinstance(value, str):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and name in ("old_answer", "gold_text", "proposed_answer", "proposed"):
            return value.literal if isinstance(value, JSONFloat) else str(value)
        raise FormatError(str(path), f"{name!r} is not text", where)
    return value


def _ts(path: Path, value: Any, where: str, name: str = "time") -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise FormatError(str(path), f"{name!r} is not an ISO date-time", where)
    try:
        return normalise_ts(value)
    except ValueError:
        raise FormatError(str(path), f"{name!r} is not an ISO date-time: {value!r}", where) from None


def _parse_line(path: Path, rec: Any, where: str, now: str) -> _Incoming:
    if not isinstance(rec, dict):
        raise FormatError(str(path), "not a JSON object", where)
    if "action" in rec:  # a journal entry
        action = rec.get("action")
        if action not in ("mark", "unmark", "undo", "verify", "alias", "unalias") or rec.get("label") is not None:
            hint = "; a label entry: import it with `qa-inspect label import`" if "label" in rec else ""
            raise FormatError(str(path), f"unknown action {action!r}{hint}", where)
        uid = _text(path, rec, "uid", where, required=True) or ""
        meta = rec.get("meta") or {}
        if not isinstance(meta, dict):
            raise FormatError(str(path), "'meta' is not an object", where)
        return _Incoming(
            uid=uid, ts=_ts(path, rec.get("ts"), where, "ts") or now, author=_text(path, rec, "author", where) or "unknown",
            action=action,
            target=Target(_text(path, rec, "dataset", where, required=True) or "",
                          _text(path, rec, "item_key", where, required=True) or "",
                          _text(path, rec, "gold_text", where, required=True) or ""),
            reason=_text(path, rec, "reason", where), proposed=_text(path, rec, "proposed", where),
            evidence=_text(path, rec, "evidence", where), ref_uid=_text(path, rec, "ref_uid", where), meta=dict(meta),
            fingerprint=_text(path, rec, "dataset_fingerprint", where), run=_text(path, rec, "run", where),
        )
    if rec.get("kind") == ALIAS_KIND:  # an alias line of the patch
        return _alias_line(path, rec, where, now)
    if "old_answer" in rec:  # a patch line
        target = Target(_text(path, rec, "dataset", where, required=True) or "",
                        _text(path, rec, "item_key", where, required=True) or "",
                        _text(path, rec, "old_answer", where, required=True) or "")
        proposed = _text(path, rec, "proposed_answer", where)
        reason, evidence = _text(path, rec, "reason", where), _text(path, rec, "evidence", where)
        author = _text(path, rec, "author", where) or "unknown"
        ts = _ts(path, rec.get("time"), where)
        uid = _text(path, rec, "uid", where) or ""
        if not uid:  # a hand-written patch: a uid from the content, so a second import adds nothing
            basis = json.dumps([target.dataset, target.item_key, target.gold_text, proposed, reason, evidence, author, ts],
                               ensure_ascii=False)
            uid = hashlib.sha256(basis.encode()).hexdigest()[:32]
        return _Incoming(uid=uid, ts=ts or now, author=author, action="mark", target=target, reason=reason,
                         proposed=proposed, evidence=evidence, ref_uid=None, meta={},
                         fingerprint=_text(path, rec, "dataset_fingerprint", where))
    raise FormatError(str(path), "neither a patch line ('old_answer') nor a journal entry ('action')", where)


def _alias_line(path: Path, rec: dict[str, Any], where: str, now: str) -> _Incoming:
    """An accepted alias as the patch lists it (`core.flags.patch`): an `alias` journal entry."""
    target = Target(_text(path, rec, "dataset", where, required=True) or "",
                    _text(path, rec, "item_key", where, required=True) or "",
                    _text(path, rec, "alias", where, required=True) or "")
    uid = _text(path, rec, "uid", where, required=True) or ""
    return _Incoming(uid=uid, ts=_ts(path, rec.get("time"), where) or now, author=_text(path, rec, "author", where) or "unknown",
                     action="alias", target=target, reason=_text(path, rec, "note", where), proposed=None, evidence=None,
                     ref_uid=None, meta={}, fingerprint=_text(path, rec, "dataset_fingerprint", where),
                     run=_text(path, rec, "run", where))


def _read_import(path: Path, now: str) -> tuple[str, list[_Incoming]]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FormatError(str(path), f"cannot read ({exc.strerror or exc})") from None
    if data.startswith(b"SQLite format 3\x00"):
        return "database", _read_database(path, now)
    if not data.strip():
        return "empty", []  # an export with nothing in it
    text, _ = read_text(path)
    out: list[_Incoming] = []
    kinds: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            rec = loads(line)
        except json.JSONDecodeError as exc:
            raise FormatError(str(path), f"invalid JSON: {exc.msg} at column {exc.colno}", where) from None
        out.append(_parse_line(path, rec, where, now))
        kinds.add("journal" if isinstance(rec, dict) and "action" in rec else "patch")
    return ("+".join(sorted(kinds)) or "empty"), out


def _read_database(path: Path, now: str) -> list[_Incoming]:
    try:
        src = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise FormatError(str(path), f"cannot open database ({exc})") from None
    try:
        columns = {row[1] for row in src.execute("PRAGMA table_info(annotations)")}
        fp = "a.dataset_fp" if "dataset_fp" in columns else "NULL"
        run = "a.run" if "run" in columns else "NULL"
        flags_only = " WHERE a.label IS NULL" if "label" in columns else ""  # labels: `core.labels`
        rows = src.execute(
            "SELECT a.uid, a.ts, a.author, a.action, a.dataset, a.item_key, a.gold_text, a.reason, a.proposed,"
            f" a.evidence, r.uid, a.meta, a.id, {fp}, {run} FROM annotations a LEFT JOIN annotations r ON r.id = a.ref"
            f"{flags_only} ORDER BY a.id"
        ).fetchall()
    except sqlite3.Error as exc:
        raise FormatError(str(path), f"not a qa-inspect database ({exc})") from None
    finally:
        src.close()
    out = []
    for uid, ts, author, action, ds, key, gold, reason, proposed, evidence, ref_uid, meta, rowid, fingerprint, run in rows:
        try:
            decoded = json.loads(meta) if meta else {}
        except ValueError:
            decoded = {}
        if not uid:  # written before uids existed and never migrated: derive one from the row
            uid = hashlib.sha256(f"{path.resolve()}#{rowid}#{ts}".encode()).hexdigest()[:32]
        out.append(_Incoming(uid, ts or now, author, action, Target(ds, key, gold), reason, proposed, evidence,
                             ref_uid or (decoded.get("ref_uid") if isinstance(decoded, dict) else None),
                             decoded if isinstance(decoded, dict) else {}, fingerprint, run))
    return out


def _link_waiting_undos(c: sqlite3.Connection) -> None:
    """An undo imported before the entry it cancels names it by uid only; link every such undo
    whose target is here now, so the state does not depend on the order journals arrive in."""
    c.execute(
        "UPDATE annotations SET ref = (SELECT t.id FROM annotations t WHERE t.uid = json_extract(annotations.meta,"
        " '$.ref_uid')) WHERE action = 'undo' AND ref IS NULL AND json_extract(meta, '$.ref_uid') IS NOT NULL"
    )


def _bound_targets(conn: sqlite3.Connection, uids: list[str]) -> set[Target]:
    """The golds the entries `uids` name, as bound here (an import may bind to a renamed dataset)."""
    out: set[Target] = set()
    for start in range(0, len(uids), 500):
        chunk = uids[start:start + 500]
        out.update(Target(*row) for row in conn.execute(
            f"SELECT dataset, item_key, gold_text FROM annotations WHERE uid IN ({', '.join('?' * len(chunk))})", chunk))
    return out


_UNKNOWN_SQL = """
SELECT a.id, a.dataset, a.item_key, a.gold_text,
       CASE WHEN d.id IS NULL THEN 'unknown dataset' WHEN i.id IS NULL THEN 'unknown item' ELSE 'no such gold' END
FROM annotations a
LEFT JOIN datasets d ON d.name = a.dataset
LEFT JOIN items i ON i.dataset_id = d.id AND i.key = a.item_key
WHERE a.id IN ({ids}) AND CASE WHEN {alias} THEN i.id IS NULL
    ELSE NOT EXISTS (SELECT 1 FROM golds g WHERE g.item_id = i.id AND g.text = a.gold_text) END
"""
"""Added entries naming what is not here: a gold of a loaded item (an alias names only the item)."""


def _unknown(c: sqlite3.Connection, added: list[Entry]) -> dict[int, str]:
    """Entry id → what it names that is not here (dataset, item or gold text), for the added entries."""
    out: dict[int, str] = {}
    ids = [e.id for e in added]
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        for rowid, ds, key, gold, why in c.execute(_UNKNOWN_SQL.format(ids=", ".join("?" * len(chunk)), alias=ALIAS_ENTRIES_SQL), chunk):
            if ds.endswith(AMBIGUOUS_SUFFIX):
                ds, why = ds.removesuffix(AMBIGUOUS_SUFFIX), "its content matches several loaded datasets"
            out[rowid] = f"{ds} {key} '{gold}': {why}"
    return out


def import_file(
    conn: Any, path: Path, *, keep_unknown: bool = False, on_busy: BusyCallback | None = None
) -> ImportResult:
    """Merge a patch, a journal export or another database's journal; one transaction.

    Entries naming a dataset, item or gold text this database does not hold are listed in
    `ImportResult.unknown` and left out, unless `keep_unknown` (then they show as orphaned or
    resolved flags)."""
    path = Path(path)
    kind, incoming = _read_import(path, _now())
    raw = sqlite_connection(conn)
    result = ImportResult(str(path), kind)

    def work(c: sqlite3.Connection) -> list[Entry]:
        added: list[Entry] = []
        local: dict[str, int] = {}
        for inc in incoming:
            if inc.uid in local or c.execute("SELECT 1 FROM annotations WHERE uid = ?", (inc.uid,)).fetchone():
                result.duplicates += 1
                continue
            ref = None
            if inc.ref_uid:
                ref = local.get(inc.ref_uid)
                if ref is None:
                    row = c.execute("SELECT id FROM annotations WHERE uid = ?", (inc.ref_uid,)).fetchone()
                    ref = row[0] if row else None
            meta = {**inc.meta, "imported_from": inc.meta.get("imported_from") or path.name}
            if inc.ref_uid:
                meta["ref_uid"] = inc.ref_uid
            e = insert_entry(c, inc.action, inc.target, inc.author, reason=inc.reason, proposed=inc.proposed,
                             evidence=inc.evidence, ref=ref, meta=meta, uid=inc.uid, ts=inc.ts,
                             fingerprint=inc.fingerprint, columns={"run": inc.run} if inc.run else None)
            local[inc.uid] = e.id
            added.append(e)
        _link_waiting_undos(c)
        bind_journal(c)
        unknown = _unknown(c, added)
        result.unknown, result.kept_unknown = list(unknown.values()), keep_unknown
        if unknown and not keep_unknown:
            c.executemany("DELETE FROM annotations WHERE id = ?", [(i,) for i in unknown])  # never committed
            added = [e for e in added if e.id not in unknown]
        return added

    added = write_transaction(raw, work, on_busy) if incoming else []
    result.added = len(added)
    touched = _bound_targets(raw, [e.uid for e in added])
    if touched:
        datasets = {t.dataset for t in touched}
        result.conflicts = [
            f for ds in sorted(datasets) for f in current_flags(raw, ds) if f.conflict and f.target in touched
        ]
    return result
