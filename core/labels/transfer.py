"""Labels out and in as JSONL, with the stale journal's rules.

Export (`label_records`): every label entry (label, unlabel, note and the undos that cancel them),
oldest first, one JSON object per line: `kind` ("label-journal"), `uid`, `ts`, `author`, `action`,
`run`, `dataset`, `dataset_fingerprint`, `item_key`, `label`, `source`, `note`, `ref_uid`, `meta`.

Import (`import_labels`): one transaction; entries keep their uid, so importing a file twice adds
nothing; an undo names what it cancels by uid; datasets bind by fingerprint (a renamed file keeps
its labels). The latest entry decides (by time), whatever the import order; where authors
disagree on a label or a note of the same (run, item) the import reports a *conflict*.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qa_inspect.core.visible import json_line
from qa_inspect.core.errors import FormatError
from qa_inspect.core.flags import Target, insert_entry, normalise_ts
from qa_inspect.core.store import BusyCallback, bind_journal, sqlite_connection, write_transaction

if TYPE_CHECKING:
    from _typeshed import SupportsWrite  # anything with write(str): a file, the CLI's stdout filter

__all__ = ["LABEL_JOURNAL_KIND", "LabelConflict", "LabelImport", "export_labels", "import_labels", "label_records"]

LABEL_JOURNAL_KIND = "label-journal"
_ACTIONS = ("label", "unlabel", "note", "undo")


def label_records(conn: Any, run: str | None = None) -> list[dict[str, Any]]:
    """Every label entry as the export writes it (undo references as uids, which travel)."""
    raw = sqlite_connection(conn)
    sql = ("SELECT a.uid, a.ts, a.author, a.action, a.run, a.dataset, a.dataset_fp, a.item_key, a.label,"
           " a.label_source, a.reason, r.uid, a.meta FROM annotations a LEFT JOIN annotations r ON r.id = a.ref"
           " WHERE a.label IS NOT NULL" + (" AND a.run = ?" if run is not None else "") + " ORDER BY a.id")
    out = []
    for uid, ts, author, action, run_, ds, fp, key, label, source, note, ref_uid, meta in raw.execute(
            sql, [run] if run is not None else []):
        decoded = json.loads(meta) if meta else {}
        out.append({
            "kind": LABEL_JOURNAL_KIND, "uid": uid, "ts": ts, "author": author, "action": action, "run": run_,
            "dataset": ds, "dataset_fingerprint": fp, "item_key": key, "label": label, "source": source,
            "note": note, "ref_uid": ref_uid or decoded.get("ref_uid"), "meta": decoded,
        })
    return out


def export_labels(conn: Any, out: SupportsWrite[str], run: str | None = None) -> int:
    """Write the label journal as JSONL to `out`; returns the number of lines."""
    records = label_records(conn, run)
    for rec in records:
        out.write(json_line(rec))  # C1 and bidi controls escaped: the same value, safe to view
    return len(records)


@dataclass(frozen=True, slots=True)
class LabelConflict:
    """Authors disagree on a label (one put it on, another took it off) or on the note of a (run, item)."""

    run: str
    dataset: str
    item_key: str
    label: str
    """The label; "" for the note."""
    by_author: dict[str, str]
    """author → their latest say (`label`/`unlabel`, or the note text)."""

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run, "dataset": self.dataset, "item_key": self.item_key, "label": self.label,
                "by_author": self.by_author}


@dataclass(slots=True)
class LabelImport:
    path: str
    added: int = 0
    duplicates: int = 0
    conflicts: list[LabelConflict] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    """Entries naming a run or item this database does not hold; left out unless `keep_unknown`."""
    kept_unknown: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "added": self.added, "duplicates": self.duplicates,
                "conflicts": [c.to_dict() for c in self.conflicts], "unknown": self.unknown,
                "kept_unknown": self.kept_unknown}


def _field(path: Path, rec: dict[str, Any], name: str, where: str, *, required: bool = False) -> str | None:
    value = rec.get(name)
    if value is None and required:
        raise FormatError(str(path), f"no {name!r}", where)
    if value is not None and not isinstance(value, str):
        raise FormatError(str(path), f"{name!r} is not text", where)
    return value


def _parse(path: Path, rec: Any, where: str) -> dict[str, Any]:
    if not isinstance(rec, dict) or rec.get("kind") not in (LABEL_JOURNAL_KIND, None):
        raise FormatError(str(path), "not a label journal entry (kind 'label-journal')", where)
    if rec.get("action") not in _ACTIONS:
        raise FormatError(str(path), f"unknown action {rec.get('action')!r}", where)
    out: dict[str, Any] = {name: _field(path, rec, name, where, required=name in ("uid", "run", "dataset", "item_key", "label"))
           for name in ("uid", "author", "run", "dataset", "dataset_fingerprint", "item_key", "label", "source",
                        "note", "ref_uid")}
    try:
        out["ts"] = normalise_ts(_field(path, rec, "ts", where, required=True) or "")
    except ValueError:
        raise FormatError(str(path), f"'ts' is not an ISO date-time: {rec.get('ts')!r}", where) from None
    meta = rec.get("meta") or {}
    if not isinstance(meta, dict):
        raise FormatError(str(path), "'meta' is not an object", where)
    out["action"], out["meta"] = rec["action"], meta
    return out


def _read(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError(str(path), f"cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise FormatError(str(path), f"invalid JSON: {exc.msg} at column {exc.colno}", f"line {number}") from None
            out.append(_parse(path, rec, f"line {number}"))
    return out


_UNKNOWN_SQL = """
SELECT a.id, a.run, a.dataset, a.item_key, CASE WHEN r.id IS NULL THEN 'unknown run' ELSE 'unknown item' END
FROM annotations a
LEFT JOIN runs r ON r.name = a.run AND r.dataset_id = (SELECT d.id FROM datasets d WHERE d.name = a.dataset)
LEFT JOIN datasets d ON d.name = a.dataset
LEFT JOIN items i ON i.dataset_id = d.id AND i.key = a.item_key
WHERE a.id IN ({ids}) AND (r.id IS NULL OR i.id IS NULL)
"""


def _insert(c: sqlite3.Connection, recs: list[dict[str, Any]], name: str, result: LabelImport) -> list[int]:
    added: list[int] = []
    local: dict[str, int] = {}
    for r in recs:
        if r["uid"] in local or c.execute("SELECT 1 FROM annotations WHERE uid = ?", (r["uid"],)).fetchone():
            result.duplicates += 1
            continue
        ref = local.get(r["ref_uid"]) if r["ref_uid"] else None
        if r["ref_uid"] and ref is None:
            row = c.execute("SELECT id FROM annotations WHERE uid = ?", (r["ref_uid"],)).fetchone()
            ref = row[0] if row else None
        meta = {**r["meta"], "imported_from": r["meta"].get("imported_from") or name, "ref_uid": r["ref_uid"]}
        columns = {"run": r["run"], "label": r["label"], **({"label_source": r["source"]} if r["source"] else {})}
        e = insert_entry(c, r["action"], Target(r["dataset"], r["item_key"], ""), r["author"] or "unknown",
                         reason=r["note"], ref=ref, meta=meta, uid=r["uid"], ts=r["ts"],
                         fingerprint=r["dataset_fingerprint"], columns=columns)
        local[r["uid"]] = e.id
        added.append(e.id)
    c.execute(
        "UPDATE annotations SET ref = (SELECT t.id FROM annotations t WHERE t.uid = json_extract(annotations.meta,"
        " '$.ref_uid')) WHERE action = 'undo' AND ref IS NULL AND label IS NOT NULL AND json_valid(meta)"
        " AND json_extract(meta, '$.ref_uid') IS NOT NULL"
    )
    return added


def _conflicts(c: sqlite3.Connection, ids: list[int]) -> list[LabelConflict]:
    """Per (run, item, label) the import touched: each author's latest effective say; a conflict where they differ."""
    keys: set[tuple[str, str, str, str]] = set()
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        keys.update(c.execute(f"SELECT run, dataset, item_key, label FROM annotations WHERE id IN"
                              f" ({', '.join('?' * len(chunk))}) AND action != 'undo'", chunk))
    out = []
    for run, ds, key, label in sorted(keys):
        says: dict[str, str] = {}
        for author, action, note in c.execute(
            "SELECT a.author, a.action, a.reason FROM annotations a WHERE a.run = ? AND a.dataset = ? AND a.item_key = ?"
            " AND a.label = ? AND a.action != 'undo' AND NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo'"
            " AND u.ref = a.id) ORDER BY a.ts, a.id", (run, ds, key, label)):
            says[author] = (note or "") if action == "note" else action
        if len(set(says.values())) > 1:
            out.append(LabelConflict(run, ds, key, label, says))
    return out


def import_labels(
    conn: Any, path: Path, *, keep_unknown: bool = False, on_busy: BusyCallback | None = None,
) -> LabelImport:
    """Merge a label journal export (JSONL) into this database, in one transaction."""
    path = Path(path)
    recs = _read(path)
    raw = sqlite_connection(conn)
    result = LabelImport(str(path), kept_unknown=keep_unknown)

    def work(c: sqlite3.Connection) -> None:
        added = _insert(c, recs, path.name, result)
        bind_journal(c)
        unknown: dict[int, str] = {}
        for start in range(0, len(added), 500):
            chunk = added[start:start + 500]
            for rowid, run, ds, key, why in c.execute(_UNKNOWN_SQL.format(ids=", ".join("?" * len(chunk))), chunk):
                unknown[rowid] = f"{run} {ds} {key}: {why}"
        result.unknown = list(unknown.values())
        if unknown and not keep_unknown:
            c.executemany("DELETE FROM annotations WHERE id = ?", [(i,) for i in unknown])  # never committed
            added = [i for i in added if i not in unknown]
        result.added = len(added)
        result.conflicts = _conflicts(c, added)

    if recs:
        write_transaction(raw, work, on_busy)
    return result
