"""The journal as plain files in the runs folder: one append-only JSONL file per author.

Every entry an annotator writes here (any kind: mark, unmark, verify, label, note, alias, undo)
is also appended, once its transaction is committed, to `journal/<author>.jsonl` in the folder the
last load named (`RUNS_DIR/.qa-inspect/journal`, or `journal/` beside any other database: a
read-only folder's overlay, a `--db` elsewhere: `<name>.journal/`).
One file per author and only appends: two annotators never edit the same lines, so git merges
their work without conflicts, and the database becomes a cache the load rebuilds from the files
(`journal_sync`). A line is the journal export's layout (`patch.journal_records`: the same
fields in the same order), plus the columns of kinds the export leaves out (a label's `run`,
`label`, `label_source`; whatever a later kind adds), so nothing an entry says is lost.

This module only writes; it imports nothing of the journal, which calls it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

from qa_inspect.core.errors import StoreError
from qa_inspect.core.store import after_commit, database_file, get_setting

__all__ = [
    "GITIGNORE", "JOURNAL_DIR_SETTING", "JOURNAL_FIELDS", "author_file", "entry_record", "queue_local_entry",
    "write_records",
]

JOURNAL_DIR_SETTING = "journal:dir"
"""Settings key: the folder this database's new entries are appended to, relative to the
database's own folder (set by every load: `journal_sync.journal_folder`)."""

JOURNAL_FIELDS = ("kind", "uid", "ts", "author", "action", "dataset", "dataset_fingerprint", "item_key", "gold_text",
                  "reason", "proposed", "evidence", "ref_uid", "meta")
"""A journal line's fields, in order (the journal export's); other columns follow, sorted by name."""

_SPECIAL = frozenset({"id", "ref", "uid", "ts", "author", "action", "dataset", "item_key", "gold_text", "reason",
                      "proposed", "evidence", "meta", "written_as", "dataset_fp"})
"""Columns a line carries under a field of `JOURNAL_FIELDS`, or not at all (row ids, bindings)."""

GITIGNORE = "# qa-inspect: the database is a cache, rebuilt from journal/ by every load\nqa.db*\n"
"""`.qa-inspect/.gitignore`, written on first use: the journal files are shared, the cache is not."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def author_file(author: str) -> str:
    """The file name of an author's journal: the name made safe for every file system and git
    (other characters become `_`; then a short hash of the real name keeps two names apart)."""
    name = author.strip() or "unknown"
    safe = _UNSAFE.sub("_", name).strip("._") or "author"
    if safe != name:
        safe += "-" + hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{safe}.jsonl"


def entry_record(conn: sqlite3.Connection, entry_id: int) -> dict[str, Any]:
    """The journal line of entry `entry_id`, whatever its kind: the export's fields in order,
    then every other non-empty column of the row (sorted), so a new kind travels unchanged."""
    cur = conn.execute("SELECT a.*, r.uid AS qa_ref_uid FROM annotations a LEFT JOIN annotations r ON r.id = a.ref"
                       " WHERE a.id = ?", (entry_id,))
    names = [d[0] for d in cur.description]
    row = dict(zip(names, cur.fetchone(), strict=True))
    try:
        meta = json.loads(row["meta"]) if row["meta"] else {}
    except ValueError:
        meta = {"raw": row["meta"]}
    out: dict[str, Any] = {
        "kind": "journal", "uid": row["uid"], "ts": row["ts"], "author": row["author"], "action": row["action"],
        "dataset": row["dataset"], "dataset_fingerprint": row.get("dataset_fp"),
        "item_key": row["item_key"], "gold_text": row["gold_text"], "reason": row["reason"],
        "proposed": row["proposed"], "evidence": row["evidence"],
        "ref_uid": row["qa_ref_uid"] or (meta.get("ref_uid") if isinstance(meta, dict) else None), "meta": meta,
    }
    for name in sorted(set(names) - _SPECIAL - {"qa_ref_uid"}):
        if row[name] is not None:
            out[name] = row[name]
    return out


def write_records(folder: Path, author: str, records: list[dict[str, Any]]) -> Path:
    """Append `records` to the author's file in `folder` as one write, flushed to disk (fsync'd:
    an annotation is the user's work); in a runs folder, `.qa-inspect/.gitignore` on first use.
    StoreError naming the file when it cannot be written."""
    path = folder / author_file(author)
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        ignore = folder.parent / ".gitignore"
        if folder.parent.name == ".qa-inspect" and not ignore.exists():  # a runs folder's, not an overlay's
            ignore.write_text(GITIGNORE, encoding="utf-8")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise StoreError(f"{path}: cannot append to the journal file ({exc.strerror or exc}); the entry is in"
                         " the database only") from None
    return path


class _Pending:
    """The entries one transaction wrote, appended to their authors' files once it commits
    (`folder` None: this database names no journal folder, nothing is written)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.records: dict[str, list[dict[str, Any]]] = {}

    def __call__(self) -> None:
        if self.folder is None:
            return
        for author, records in self.records.items():
            write_records(self.folder, author, records)


def _journal_folder(conn: sqlite3.Connection) -> Path | None:
    """The folder the last load named for this database's new entries (None: never loaded)."""
    folder, db_file = get_setting(conn, JOURNAL_DIR_SETTING), database_file(conn)
    return Path(db_file).parent / folder if folder and db_file else None


def queue_local_entry(conn: sqlite3.Connection, entry_id: int) -> None:
    """Queue entry `entry_id` (just written here by this user) for its author's journal file,
    written when the open `write_transaction` commits; nothing when the database has no journal
    folder yet (never loaded from a runs folder) or no `write_transaction` is open."""
    pending = after_commit(conn, "journal-files", lambda: _Pending(_journal_folder(conn)))
    if pending is None or pending.folder is None:
        return
    record = entry_record(conn, entry_id)
    pending.records.setdefault(str(record["author"]), []).append(record)
