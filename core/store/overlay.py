"""A user-side overlay of a database the tool may not write (a read-only runs folder's `qa.db`).

The first open copies the shipped database into the overlay with SQLite's backup API, from a
read-only connection that creates nothing beside the shipped file (`immutable` unless a `-wal` is
there to be read). Every later open takes in what is new in the shipped database since the last
merge: journal entries by `uid` (an undo's `ref` translated through uids, since row ids differ
between the two files) and saved slices by name (one the user already has, deleted or changed in
the overlay stays as the user left it). The data tables are not merged: the load brings them in
line with the source files, as for any database. Journal entries without a uid (written before
schema version 2) are seeded but not merged later.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from qa_inspect.core.errors import StoreError

from .paths import Placement
from .schema import SCHEMA_VERSION, OpenDb, open_db
from .transaction import BusyCallback, sqlite_connection, write_transaction

__all__ = ["OVERLAY_KEY", "Merged", "merge_shipped", "open_placed", "open_read_only", "seed_overlay"]

OVERLAY_KEY = "overlay:shipped"
"""Settings key of the overlay: JSON {path, stamp, slices} of the shipped database at the last merge."""


@dataclass(frozen=True, slots=True)
class Merged:
    """What one merge took in from the shipped database (nothing when it had not changed)."""

    entries: int = 0
    slices: int = 0
    unchanged: bool = False


def open_placed(place: Placement, *, timeout: float | None = None) -> tuple[OpenDb, list[str]]:
    """Open the database `place` names; an overlay is seeded (first time) and merged first.

    Returns it with the lines the load summary shows: where annotations go and why, what came in
    from the shipped database, or why it could not be merged (the overlay is used as it is then).
    """
    notes = [place.notice] if place.notice else []
    if place.shipped is None:
        return open_db(place.path, timeout=timeout), notes
    if not place.path.exists():
        seed_overlay(place.shipped, place.path)
    db = open_db(place.path, timeout=timeout)
    try:
        merged = merge_shipped(db.conn, place.shipped, deadline=timeout)
    except StoreError as exc:
        notes.append(f"{exc}; its new entries are not in {place.path} yet")
    except BaseException:
        db.conn.close()
        raise
    else:
        if merged.entries or merged.slices:
            notes.append(f"{place.shipped}: {_count(merged.entries, 'new journal entr', 'y', 'ies')} and"
                         f" {_count(merged.slices, 'new slice', '', 's')} merged into {place.path}")
    return db, notes


def _count(n: int, stem: str, one: str, many: str) -> str:
    return f"{n} {stem}{one if n == 1 else many}"


def seed_overlay(shipped: Path, dest: Path) -> None:
    """Copy `shipped` to `dest` (not there yet) with the backup API; `dest` appears whole or not at
    all, and when two processes seed at once the first copy stays (a write may already be in it)."""
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.seed")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        src = _open_shipped(shipped)
        try:
            version = src.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{shipped}: database schema version {version} is newer than this qa-inspect"
                                 f" understands ({SCHEMA_VERSION}); upgrade qa-inspect")
            out = sqlite3.connect(tmp)
            try:
                src.backup(out)
            finally:
                out.close()
        finally:
            src.close()
        _publish(tmp, dest)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"{shipped}: cannot copy the shipped database to {dest} ({exc})") from None
    finally:
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)


def _publish(tmp: Path, dest: Path) -> None:
    try:
        os.link(tmp, dest)
    except FileExistsError:
        pass  # another process seeded it first: use that one
    except OSError:  # a file system without hard links
        if not dest.exists():
            os.replace(tmp, dest)


def open_read_only(path: Path) -> sqlite3.Connection:
    """A connection that reads `path` and writes nothing, not even a WAL or shared-memory file
    beside it: what the read-only commands fall back on when the database cannot be opened for
    writing (a full disk cannot take the WAL a normal open creates). A database of an older schema
    version cannot be read so (the queries expect the current tables): a `StoreError` says so."""
    conn = _open_shipped(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error as exc:
        conn.close()
        raise StoreError(f"{path}: cannot read the database ({exc})") from None
    if version != SCHEMA_VERSION:
        conn.close()
        raise StoreError(f"{path}: schema version {version}, not {SCHEMA_VERSION}: it cannot be read without"
                         " being upgraded, which needs space to write")
    return conn


def _open_shipped(path: Path) -> sqlite3.Connection:
    """A read-only connection to `path` that creates no file beside it (its folder may be read-only)."""
    uri = "file:" + quote(str(path.resolve()), safe="/")
    has_wal = Path(f"{path}-wal").exists()
    modes = ["mode=ro", "mode=ro&immutable=1"] if has_wal else ["mode=ro&immutable=1"]
    problem: sqlite3.Error | None = None
    for mode in modes:
        try:
            conn = sqlite3.connect(f"{uri}?{mode}", uri=True)
        except sqlite3.Error as exc:
            problem = exc
            continue
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.Error as exc:
            conn.close()
            problem = exc
    raise StoreError(f"{path}: cannot read the shipped database ({problem})")


def _stamp(path: Path) -> list[list[int] | None]:
    """Size and mtime of the shipped file and its WAL: unchanged means nothing new to merge."""
    out: list[list[int] | None] = []
    for p in (path, Path(f"{path}-wal")):
        try:
            st = p.stat()
            out.append([st.st_size, st.st_mtime_ns])
        except OSError:
            out.append(None)
    return out


def merge_shipped(
    conn: Any, shipped: Path, *, on_busy: BusyCallback | None = None, deadline: float | None = None
) -> Merged:
    """Take in the shipped database's journal entries (by uid) and slices new since the last merge,
    in one transaction; a shipped file unchanged since then is not read."""
    raw = sqlite_connection(conn)
    row = raw.execute("SELECT value FROM settings WHERE key = ?", (OVERLAY_KEY,)).fetchone()
    last = _decode(row[0] if row else None)
    stamp = _stamp(shipped)
    if last.get("path") == str(shipped) and last.get("stamp") == stamp:
        return Merged(unchanged=True)
    entries, slices = _read_shipped(shipped)
    seen = set(last.get("slices") or []) if last.get("path") == str(shipped) else set()

    def work(c: sqlite3.Connection) -> Merged:
        merged = Merged(_merge_entries(c, entries), _merge_slices(c, slices, seen))
        record = {"path": str(shipped), "stamp": stamp, "slices": sorted(s[0] for s in slices)}
        c.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (OVERLAY_KEY, json.dumps(record)))
        return merged

    return write_transaction(raw, work, on_busy, deadline)


def _decode(value: str | None) -> dict[str, Any]:
    try:
        decoded = json.loads(value) if value else {}
    except ValueError:
        return {}
    return decoded if isinstance(decoded, dict) else {}


def _read_shipped(shipped: Path) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
    """The shipped journal (entries with a uid, each with `qa_ref_uid`: the uid its `ref` names) and slices."""
    src = _open_shipped(shipped)
    try:
        cur = src.execute(
            "SELECT a.*, r.uid AS qa_ref_uid FROM annotations a LEFT JOIN annotations r ON r.id = a.ref"
            " WHERE a.uid IS NOT NULL ORDER BY a.id"
        )
        names = [d[0] for d in cur.description]
        entries = [dict(zip(names, row, strict=True)) for row in cur]
        slices = src.execute("SELECT name, filter, created_at, author FROM slices").fetchall()
    except sqlite3.Error as exc:
        raise StoreError(f"{shipped}: cannot read its journal ({exc})") from None
    finally:
        src.close()
    return entries, slices


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _merge_entries(c: sqlite3.Connection, entries: list[dict[str, Any]]) -> int:
    """Insert the entries whose uid is new here (every column both schemas have, but `id` and `ref`),
    then point each new undo's `ref` at the local row of the uid it cancels."""
    if not entries:
        return 0
    own = {row[1] for row in c.execute("PRAGMA table_info(annotations)")}
    cols = [k for k in entries[0] if k in own and k not in ("id", "ref")]
    sql = (f"INSERT OR IGNORE INTO annotations ({', '.join(map(_quoted, cols))})"
           f" VALUES ({', '.join('?' * len(cols))})")
    added: list[tuple[int, str | None]] = []
    for entry in entries:
        cur = c.execute(sql, [entry[k] for k in cols])
        if cur.rowcount > 0:
            added.append((int(cur.lastrowid or 0), entry.get("qa_ref_uid")))
    for rowid, ref_uid in added:
        if ref_uid:
            c.execute("UPDATE annotations SET ref = (SELECT t.id FROM annotations t WHERE t.uid = ?) WHERE id = ?",
                      (ref_uid, rowid))
    # An undo that arrived before the entry it cancels names it in meta (as imports leave it): link it.
    c.execute(
        "UPDATE annotations SET ref = (SELECT t.id FROM annotations t WHERE t.uid = json_extract(annotations.meta,"
        " '$.ref_uid')) WHERE action = 'undo' AND ref IS NULL AND json_valid(meta)"
        " AND json_extract(meta, '$.ref_uid') IS NOT NULL"
    )
    return len(added)


def _merge_slices(c: sqlite3.Connection, slices: list[tuple[Any, ...]], seen: set[str]) -> int:
    """Slices the shipped database did not have at the last merge; a name the user has stays theirs."""
    added = 0
    for name, filter_json, created_at, author in slices:
        if name in seen:
            continue
        cur = c.execute("INSERT OR IGNORE INTO slices (name, filter, created_at, author) VALUES (?, ?, ?, ?)",
                        (name, filter_json, created_at, author))
        added += max(cur.rowcount, 0)
    return added
