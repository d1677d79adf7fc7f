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

from qa_inspect.core.errors import QAInspectError, unknown_name
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
    "unknown_values",
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
    """Why the stored filter cannot be used (edited by hand, or from a future version: its
    `filter` is then empty; or it names a dataset, run or split not loaded: it selects nothing).
    Listing never fails on one bad slice; opening it says why."""


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
    problems = unknown_values(conn, f)
    if problems:
        raise SliceError(f"slice {name!r} not saved: {'; '.join(problems)}")
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


def unknown_values(conn: sqlite3.Connection, f: Filter) -> list[str]:
    """What `f` names that the database does not hold (a dataset, run or compare run not loaded, a
    split no item of its dataset has), one phrase each with the known values: such a filter
    selects nothing (`core.query.sql` never widens it to every item), and saving one is refused."""
    problems: list[str] = []
    datasets = [r[0] for r in conn.execute("SELECT name FROM datasets ORDER BY name")]
    runs = [r[0] for r in conn.execute("SELECT name FROM runs ORDER BY name")]
    for kind, value, known in (("dataset", f.dataset, datasets), ("run", f.run, runs), ("run", f.compare, runs)):
        if value is not None and value not in known:
            problems.append(_unknown(kind, [value], known))
    if f.splits:
        known_splits = _splits(conn, f)
        missing = [s for s in f.splits if s not in known_splits]
        if missing:
            problems.append(_unknown("split", missing, known_splits))
    return problems


def _splits(conn: sqlite3.Connection, f: Filter) -> list[str]:
    """The splits of the filter's dataset (its run's, else the named one's), else of every item."""
    row = None
    if f.run is not None:
        row = conn.execute("SELECT dataset_id FROM runs WHERE name = ?", (f.run,)).fetchone()
    if row is None and f.dataset is not None:
        row = conn.execute("SELECT id FROM datasets WHERE name = ?", (f.dataset,)).fetchone()
    if row is not None:
        rows = conn.execute("SELECT DISTINCT split FROM items WHERE dataset_id = ? AND split IS NOT NULL"
                            " ORDER BY split", (row[0],))
    else:
        rows = conn.execute("SELECT DISTINCT split FROM items WHERE split IS NOT NULL ORDER BY split")
    return [r[0] for r in rows]


def _unknown(kind: str, values: list[str], known: list[str]) -> str:
    many = "s" if len(values) > 1 else ""
    shown = ", ".join(repr(v) for v in known[:12]) + (", …" if len(known) > 12 else "") if known else "none"
    return f"unknown {kind}{many} {', '.join(repr(v) for v in values)} (known: {shown})"


def _parse(name: str, data: str) -> Filter:
    """The stored filter; anything else (hand-edited, nested 5,000 deep, from a future version, a
    repeated key) is a `SliceError` naming the slice: a shipped qa.db must not crash every user of
    the folder."""
    from qa_inspect.core.formats import find_repeats, loads  # the readers' JSON, only when a slice is read

    try:
        if not isinstance(data, str):
            raise TypeError("not text")
        raw = json.loads(data, parse_constant=_no_constant)
        if not isinstance(raw, dict):
            raise TypeError("not an object")
        repeat = next(find_repeats("", loads(data)), None)  # the one rule for a repeated key
        if repeat is not None:
            raise ValueError(f"{repeat.describe()}: which one was meant?")
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
    for n, data, ts, author in conn.execute("SELECT name, filter, created_at, author FROM slices ORDER BY name").fetchall():
        try:
            f = _parse(n, data)
            problems = unknown_values(conn, f)
            error = f"slice {n!r} selects nothing: {'; '.join(problems)}" if problems else None
            out.append(SavedSlice(name=n, filter=f, created_at=ts, author=author, error=error))
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
        raise SliceError(unknown_name("slice", name.strip(), names, none="none saved"))
    f = _parse(row[0], row[1])
    problems = unknown_values(conn, f)
    error = f"slice {row[0]!r} selects nothing: {'; '.join(problems)}" if problems else None
    return SavedSlice(name=row[0], filter=f, created_at=row[2], author=row[3], error=error)


def load_slice(conn: sqlite3.Connection, name: str) -> Filter:
    """The filter saved under `name`; `SliceError` (naming the saved ones) when there is none, and
    when it names a dataset, run or split the database does not hold (it would select nothing:
    better one line saying why than an empty result, and never every item)."""
    saved = get_slice(conn, name)
    if saved.error is not None:
        raise SliceError(saved.error)
    return saved.filter


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
