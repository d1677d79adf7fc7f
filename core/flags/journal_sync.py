"""Every load merges the journal files of the runs folder into the database (`journal_files`).

The merge is the order-free union by uid that `stale import` does (an entry already here is
skipped, an undo that arrives before what it cancels is linked when that arrives), over entries
of every kind. It is incremental: each file's size, mtime and the SHA-256 of the bytes read so
far are remembered, so an unchanged file is not opened and a grown one is read from where the
last load stopped; a file whose first part changed (rewritten, not appended to) is read whole
again, which adds only the uids not here yet. A line cut short (a writer still at it) waits for
the next load. A bad line is named (file, line) and skipped; the rest still merges.

The first merge into a database (one that never named its journal folder) also writes the entries
it holds that no file has (written before the journal had files) to their authors' files, so the
database can be rebuilt from them.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from qa_inspect.core.store import (
    BusyCallback,
    bind_journal,
    database_file,
    get_setting,
    sqlite_connection,
    write_transaction,
)

from .current import Flag, current_flags
from .journal import Target, insert_entry, normalise_ts
from .journal_files import (
    JOURNAL_DIR_SETTING,
    JOURNAL_FIELDS,
    entry_record,
    write_records,
)
from .merge import _link_waiting_undos

__all__ = ["JOURNAL_READ_SETTING", "JournalSync", "journal_folder", "sync_journal_files"]

JOURNAL_READ_SETTING = "journal:read"
"""Settings key: JSON {file: {size, mtime_ns, sha256}} of what the last load read of each file."""

_CHUNK = 1 << 20
_STEP = 8 << 20
"""Bytes of a journal file merged per transaction (whole lines): what a load holds in memory at once."""


@dataclass(slots=True)
class JournalSync:
    """What one merge of the journal files did."""

    files: int = 0
    """Files read (wholly or from where the last load stopped)."""
    added: int = 0
    duplicates: int = 0
    written: int = 0
    """Entries of the database that no file had, written to their authors' files (first merge only)."""
    problems: list[str] = field(default_factory=list)
    """"<file>: line N: what is wrong", one per bad line (skipped)."""
    conflicts: list[Flag] = field(default_factory=list)
    """Flags the new entries touched that now hold more than one proposal."""

    def lines(self) -> list[str]:
        """What the load summary says about it (nothing when no file changed)."""
        out = list(self.problems)
        if self.added:
            out.append(f"journal files: {self.added} new entr{'y' if self.added == 1 else 'ies'} merged from"
                       f" {self.files} file{'' if self.files == 1 else 's'}")
        for f in self.conflicts:
            out.append(f"journal files: conflicting proposals on {f.dataset} {f.item_key} '{f.gold_text}'"
                       " (see `qa-inspect stale list`)")
        return out


def journal_folder(runs_dir: Path, db_path: Path) -> Path:
    """Where this database's new entries go: `RUNS_DIR/.qa-inspect/journal` when the database is
    the folder's own (`RUNS_DIR/.qa-inspect/qa.db`), else `<name>.journal/` beside the database
    (`qa.journal/` beside a read-only folder's overlay `qa.db`, `my.journal/` beside `--db my.db`):
    never into a folder the tool may not write, and a database kept apart keeps its entries apart."""
    home = runs_dir / ".qa-inspect"
    if db_path.resolve() == (home / "qa.db").resolve():
        return home / "journal"
    return db_path.parent / f"{db_path.stem}.journal"


@dataclass(slots=True)
class _Line:
    record: dict[str, Any]
    where: str


def _prefix(path: Path, size: int) -> Any:
    """A SHA-256 hasher fed the first `size` bytes, read in bounded chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        left = size
        while left > 0:
            chunk = fh.read(min(_CHUNK, left))
            if not chunk:
                break
            digest.update(chunk)
            left -= len(chunk)
    return digest


def _parse_lines(path: Path, data: bytes, before: int, result: JournalSync) -> tuple[list[_Line], int]:
    """The JSON objects of complete lines `data` (numbered from `before` + 1), and how many lines."""
    lines: list[_Line] = []
    raw_lines = data.splitlines()
    for n, raw in enumerate(raw_lines, start=before + 1):
        where = f"{path}: line {n}"
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw.decode("utf-8-sig"))
        except (ValueError, UnicodeDecodeError) as exc:
            result.problems.append(f"{where}: not a JSON line ({exc}); skipped")
            continue
        if not isinstance(rec, dict):
            result.problems.append(f"{where}: not a JSON object; skipped")
            continue
        lines.append(_Line(rec, where))
    return lines, len(raw_lines)


def _read_new(path: Path, seen: dict[str, Any] | None, result: JournalSync) -> Iterator[tuple[list[_Line], dict[str, Any]]]:
    """The complete lines of `path` not read before, in steps of about `_STEP` bytes, each with the
    file's stamp once it is merged; nothing when the file is unchanged."""
    st = path.stat()
    if seen and seen.get("size") == st.st_size and seen.get("mtime_ns") == st.st_mtime_ns:
        return
    result.files += 1
    start, before, digest = 0, 0, hashlib.sha256()
    if seen and 0 < int(seen.get("size", 0)) <= st.st_size:
        kept = _prefix(path, int(seen["size"]))
        if kept.hexdigest() == seen.get("sha256"):  # appended to: read on from there
            start, before, digest = int(seen["size"]), int(seen.get("lines", 0)), kept
    with path.open("rb") as fh:
        fh.seek(start)
        carry = b""
        while block := fh.read(_STEP):
            data = carry + block
            end = data.rfind(b"\n") + 1  # a line without its newline is still being written
            carry = data[end:]
            if not end:
                continue
            lines, count = _parse_lines(path, data[:end], before, result)
            digest.update(data[:end])
            start, before = start + end, before + count
            yield lines, {"size": start, "lines": before, "mtime_ns": st.st_mtime_ns if start == st.st_size else -1,
                          "sha256": digest.hexdigest()}


_REQUIRED = ("uid", "action", "dataset", "item_key")


def _parse(line: _Line, columns: set[str]) -> tuple[dict[str, Any], dict[str, Any]] | str:
    """(the entry's fields, its other columns), or what is wrong with the line."""
    rec = line.record
    for name in _REQUIRED:
        if not isinstance(rec.get(name), str) or not rec[name]:
            return f"no {name!r}"
    for name in ("author", "gold_text", "reason", "proposed", "evidence", "ref_uid", "dataset_fingerprint", "ts"):
        if rec.get(name) is not None and not isinstance(rec[name], str):
            return f"{name!r} is not text"
    if rec.get("meta") is not None and not isinstance(rec["meta"], dict):
        return "'meta' is not an object"
    try:
        ts = normalise_ts(rec["ts"]) if rec.get("ts") else None
    except ValueError:
        return f"'ts' is not an ISO date-time: {rec['ts']!r}"
    extra = {k: v for k, v in rec.items() if k not in JOURNAL_FIELDS and k in columns and v is not None}
    return {**rec, "ts": ts}, extra


def _insert(c: sqlite3.Connection, lines: list[_Line], result: JournalSync) -> list[str]:
    """Insert the entries whose uid is new here; returns their uids."""
    columns = {row[1] for row in c.execute("PRAGMA table_info(annotations)")}
    added: list[str] = []
    for line in lines:
        parsed = _parse(line, columns)
        if isinstance(parsed, str):
            result.problems.append(f"{line.where}: {parsed}; skipped")
            continue
        rec, extra = parsed
        if c.execute("SELECT 1 FROM annotations WHERE uid = ?", (rec["uid"],)).fetchone():
            result.duplicates += 1
            continue
        ref_uid = rec.get("ref_uid")
        row = c.execute("SELECT id FROM annotations WHERE uid = ?", (ref_uid,)).fetchone() if ref_uid else None
        meta = dict(rec.get("meta") or {})
        if ref_uid:
            meta["ref_uid"] = ref_uid
        insert_entry(c, rec["action"], Target(rec["dataset"], rec["item_key"], rec.get("gold_text") or ""),
                     rec.get("author") or "unknown", reason=rec.get("reason"), proposed=rec.get("proposed"),
                     evidence=rec.get("evidence"), ref=row[0] if row else None, meta=meta, uid=rec["uid"],
                     ts=rec["ts"], fingerprint=rec.get("dataset_fingerprint"), columns=extra)
        added.append(rec["uid"])
    return added


def _files(folders: Sequence[Path]) -> list[Path]:
    out: list[Path] = []
    for folder in dict.fromkeys(folders):
        if folder.is_dir():
            out.extend(sorted(p for p in folder.glob("*.jsonl") if p.is_file()))
    return out


def _backfill(c: sqlite3.Connection, in_files: set[str], folder: Path) -> int:
    """Write the entries no file holds to their authors' files (a database older than the files)."""
    by_author: dict[str, list[dict[str, Any]]] = {}
    for rowid, uid, author in c.execute("SELECT id, uid, author FROM annotations WHERE uid IS NOT NULL ORDER BY id"):
        if uid not in in_files:
            by_author.setdefault(author or "unknown", []).append(entry_record(c, rowid))
    for author, records in by_author.items():
        write_records(folder, author, records)
    return sum(len(r) for r in by_author.values())


def sync_journal_files(
    conn: Any, folders: Sequence[Path], *, write_to: Path | None = None, on_busy: BusyCallback | None = None,
) -> JournalSync:
    """Merge the journal files in `folders` into the database, incrementally (see the module), a
    transaction per step of each file (memory stays bounded; a killed load keeps what it merged);
    `write_to`: the folder this database's new entries are appended to from now on."""
    raw = sqlite_connection(conn)
    result = JournalSync()
    try:
        state: dict[str, Any] = json.loads(get_setting(raw, JOURNAL_READ_SETTING) or "{}")
    except ValueError:
        state = {}
    folder = _relative(write_to, raw)
    first = get_setting(raw, JOURNAL_DIR_SETTING) is None  # never merged: entries may predate the files
    added: list[str] = []
    in_files: set[str] = set()

    def merge(c: sqlite3.Connection, *, lines: list[_Line]) -> list[str]:
        new = _insert(c, lines, result)
        _link_waiting_undos(c)
        bind_journal(c)
        _settings(c, state, folder)
        return new

    for path in _files(folders):
        try:
            for lines, stamp in _read_new(path, state.get(str(path)), result):
                state[str(path)] = stamp
                in_files.update(str(line.record.get("uid")) for line in lines)
                added += write_transaction(raw, partial(merge, lines=lines), on_busy)
        except OSError as exc:
            result.problems.append(f"{path}: cannot read ({exc.strerror or exc}); skipped")
    if get_setting(raw, JOURNAL_DIR_SETTING) != folder:
        write_transaction(raw, lambda c: _settings(c, state, folder), on_busy)
    result.added = len(added)
    if first and write_to is not None:
        result.written = _backfill(raw, in_files, write_to)
    result.conflicts = _conflicts(raw, added)
    return result


def _settings(c: sqlite3.Connection, state: dict[str, Any], folder: str | None) -> None:
    """What was read of each file, and where new entries go (relative to the database)."""
    c.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
              (JOURNAL_READ_SETTING, json.dumps(state, sort_keys=True)))
    if folder is None:
        c.execute("DELETE FROM settings WHERE key = ?", (JOURNAL_DIR_SETTING,))
    else:
        c.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (JOURNAL_DIR_SETTING, folder))


def _relative(folder: Path | None, conn: sqlite3.Connection) -> str | None:
    """`folder` relative to the database's own folder (a copied or moved folder keeps its journal)."""
    db_file = database_file(conn)
    if folder is None or not db_file:
        return None
    return os.path.relpath(folder.resolve(), Path(db_file).resolve().parent)


def _conflicts(conn: sqlite3.Connection, uids: list[str]) -> list[Flag]:
    touched: set[Target] = set()
    for start in range(0, len(uids), 500):
        chunk = uids[start:start + 500]
        touched.update(Target(*row) for row in conn.execute(
            "SELECT dataset, item_key, gold_text FROM annotations WHERE label IS NULL AND uid IN"
            f" ({', '.join('?' * len(chunk))})", chunk))
    return [f for ds in sorted({t.dataset for t in touched}) for f in current_flags(conn, ds)
            if f.conflict and f.target in touched]
