"""Saved slices: named item-browser filters in the `slices` table, beside the annotations.

Writes are single statements: on the store's autocommit connections (`store.open_db`) each is
committed at once; on a connection with a transaction open, committing is the caller's.
A slice stores `Filter.to_dict()` as JSON (only the fields that differ from the defaults), so
slices saved by an older qa-inspect keep loading as fields are added. `slice_report` is the
`report` table restricted to a slice's items.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.store import default_author

from .filters import Filter

__all__ = [
    "MAX_NAME",
    "SavedSlice",
    "SliceError",
    "delete_slice",
    "describe",
    "get_slice",
    "list_slices",
    "load_slice",
    "save_slice",
    "slice_exists",
]

MAX_NAME = 100


class SliceError(QAInspectError):
    """A slice name that is empty, unknown, taken, or a stored filter that cannot be read."""


@dataclass(frozen=True, slots=True)
class SavedSlice:
    name: str
    filter: Filter
    created_at: str
    author: str | None
    error: str | None = None
    """Why the stored filter cannot be used (edited by hand, or from a future version); its
    `filter` is then empty. Listing never fails on one bad slice; opening it says why."""


def _check_name(name: str) -> str:
    clean = name.strip()
    if not clean:
        raise SliceError("a slice needs a name")
    if len(clean) > MAX_NAME:
        raise SliceError(f"slice name is longer than {MAX_NAME} characters")
    if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in clean):
        raise SliceError(f"slice name {clean!r} holds control characters")
    return clean


def save_slice(
    conn: sqlite3.Connection,
    name: str,
    f: Filter,
    author: str | None = None,
    *,
    overwrite: bool = False,
) -> SavedSlice:
    """Store `f` under `name` (stripped). A taken name raises `SliceError` unless `overwrite`
    (then the filter, time and author are replaced)."""
    name = _check_name(name)
    author = author or default_author()
    data = json.dumps(f.to_dict(), ensure_ascii=False, sort_keys=True)
    if overwrite:
        conn.execute(
            "INSERT INTO slices (name, filter, created_at, author)"
            " VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'), ?)"
            " ON CONFLICT(name) DO UPDATE SET filter = excluded.filter, created_at = excluded.created_at,"
            " author = excluded.author",
            (name, data, author),
        )
    else:
        try:
            conn.execute(
                "INSERT INTO slices (name, filter, created_at, author)"
                " VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'), ?)",
                (name, data, author),
            )
        except sqlite3.IntegrityError:
            raise SliceError(f"a slice named {name!r} exists already") from None
    row = conn.execute("SELECT created_at FROM slices WHERE name = ?", (name,)).fetchone()
    return SavedSlice(name=name, filter=f, created_at=row[0], author=author)


def _parse(name: str, data: str) -> Filter:
    """The stored filter; anything else (hand-edited, nested 5,000 deep, from a future version) is a
    `SliceError` naming the slice: a shipped qa.db must not crash every user of the folder."""
    try:
        if not isinstance(data, str):
            raise TypeError("not text")
        raw = json.loads(data, parse_constant=_no_constant)
        if not isinstance(raw, dict):
            raise TypeError("not an object")
        return Filter.from_dict(raw)
    except RecursionError:
        raise SliceError(f"slice {name!r}: stored filter cannot be read (nested too deep)") from None
    except (ValueError, TypeError) as exc:
        raise SliceError(f"slice {name!r}: stored filter cannot be read ({str(exc)[:200]})") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a filter can hold")


def list_slices(conn: sqlite3.Connection) -> list[SavedSlice]:
    """Every saved slice, by name; one whose stored filter cannot be read is listed with `error`."""
    out = []
    for n, data, ts, author in conn.execute("SELECT name, filter, created_at, author FROM slices ORDER BY name"):
        try:
            out.append(SavedSlice(name=n, filter=_parse(n, data), created_at=ts, author=author))
        except SliceError as exc:
            out.append(SavedSlice(name=n, filter=Filter(), created_at=ts, author=author, error=str(exc)))
    return out


def slice_exists(conn: sqlite3.Connection, name: str) -> bool:
    """Whether a slice of this name is saved (to ask before overwriting it)."""
    return conn.execute("SELECT 1 FROM slices WHERE name = ?", (name,)).fetchone() is not None


def get_slice(conn: sqlite3.Connection, name: str) -> SavedSlice:
    row = conn.execute(
        "SELECT name, filter, created_at, author FROM slices WHERE name = ?", (name.strip(),)
    ).fetchone()
    if row is None:
        names = [r[0] for r in conn.execute("SELECT name FROM slices ORDER BY name")]
        known = ", ".join(repr(n) for n in names) if names else "none saved"
        raise SliceError(f"no slice named {name.strip()!r} (slices: {known})")
    return SavedSlice(name=row[0], filter=_parse(row[0], row[1]), created_at=row[2], author=row[3])


def load_slice(conn: sqlite3.Connection, name: str) -> Filter:
    """The filter saved under `name`; `SliceError` (naming the saved ones) when there is none."""
    return get_slice(conn, name).filter


def delete_slice(conn: sqlite3.Connection, name: str) -> bool:
    """Remove a slice; False when there was none of that name."""
    cur = conn.execute("DELETE FROM slices WHERE name = ?", (name.strip(),))
    return cur.rowcount > 0


def describe(f: Filter) -> str:
    """A short human line for a filter (for listings): `run=x split=dev em=0 …`."""
    parts = []
    for key, value in f.to_dict().items():
        if key in ("sort", "descending"):
            continue
        if key == "keys":
            value = f"{len(value)} item{'s' if len(value) != 1 else ''}"
        if isinstance(value, list):
            value = ",".join(":".join(map(str, v)) if isinstance(v, list) else str(v) for v in value)
        parts.append(f"{key}={value}")
    return " ".join(parts) or "(all items)"
