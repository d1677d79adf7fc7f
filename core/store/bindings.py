"""Which loaded dataset each journal entry belongs to: by content, not by file name.

A dataset's *fingerprint* is a hash of its item keys and questions (not its golds: a release that
fixes answers is the same dataset). Every journal entry stores the name it was written with
(`written_as`) and the fingerprint of that dataset (`dataset_fp`). Its binding (`annotations.dataset`,
the name every read uses) is derived from those two after each load and import:

1. the one loaded dataset with that fingerprint (a renamed file keeps its flags);
2. of several with it, the one named as written; several and none so named: *ambiguous*, reported
   and bound to nothing (never guessed);
3. none with it (the file changed, or is not loaded): the dataset named as written, if any.

Entries written before fingerprints existed get theirs from the dataset of their name (once).
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass

__all__ = [
    "AMBIGUOUS_SUFFIX", "Rebinding", "bind_journal", "dataset_fingerprint", "fingerprint_of", "journal_bindings",
    "store_fingerprint",
]

AMBIGUOUS_SUFFIX = " (ambiguous)"
"""Appended to the written name of entries bound to nothing because several datasets match."""


@dataclass(frozen=True, slots=True)
class Rebinding:
    """Entries whose binding changed in this pass (`status` "renamed") or cannot be decided ("ambiguous")."""

    written_as: str
    old: str
    new: str
    entries: int
    status: str
    candidates: tuple[str, ...] = ()
    fingerprint: str | None = None

    @property
    def message(self) -> str:
        if self.status == "ambiguous":
            names = ", ".join(self.candidates)
            entries = "1 journal entry" if self.entries == 1 else f"{self.entries} journal entries"
            return (f"{entries} written against dataset {self.written_as!r} match "
                    f"{len(self.candidates)} loaded datasets by content ({names}); not bound to any: "
                    "remove the copies or rename one to the written name")
        entries = "1 journal entry" if self.entries == 1 else f"{self.entries} journal entries"
        return f"renamed: dataset {self.old!r} is now {self.new!r} (same content); {entries} kept"


def dataset_fingerprint(conn: sqlite3.Connection, dataset_id: int) -> str:
    """sha256 of the dataset's (item key, question) pairs in key order."""
    digest = hashlib.sha256()
    for key, question in conn.execute(
        "SELECT key, question FROM items WHERE dataset_id = ? ORDER BY key", (dataset_id,)
    ):
        digest.update(f"{key}\x1f{question}\x1e".encode())
    return digest.hexdigest()


def store_fingerprint(conn: sqlite3.Connection, name: str) -> None:
    """(Re)compute the fingerprint of the dataset `name` after its rows were written."""
    row = conn.execute("SELECT id FROM datasets WHERE name = ?", (name,)).fetchone()
    if row is not None:
        conn.execute("UPDATE datasets SET fingerprint = ? WHERE id = ?", (dataset_fingerprint(conn, row[0]), row[0]))


def fingerprint_of(conn: sqlite3.Connection, name: str) -> str | None:
    """The stored fingerprint of the dataset `name` (None when it is not loaded)."""
    row = conn.execute("SELECT fingerprint FROM datasets WHERE name = ?", (name,)).fetchone()
    return row[0] if row else None


def _fill_missing(conn: sqlite3.Connection) -> None:
    """Datasets stored before fingerprints existed get one; so do entries that have none yet."""
    for (dataset_id,) in conn.execute("SELECT id FROM datasets WHERE fingerprint IS NULL").fetchall():
        conn.execute("UPDATE datasets SET fingerprint = ? WHERE id = ?", (dataset_fingerprint(conn, dataset_id), dataset_id))
    conn.execute("UPDATE annotations SET written_as = dataset WHERE written_as IS NULL")
    conn.execute(
        "UPDATE annotations SET dataset_fp = (SELECT d.fingerprint FROM datasets d WHERE d.name = annotations.written_as)"
        " WHERE dataset_fp IS NULL"
    )


def _binding(written_as: str, fp: str | None, by_fp: dict[str, list[str]], names: set[str]) -> tuple[str, tuple[str, ...]]:
    """(bound name, candidates when ambiguous) for entries written as `written_as` against `fp`."""
    candidates = sorted(by_fp.get(fp, ())) if fp else []
    if len(candidates) == 1:
        return candidates[0], ()
    if written_as in candidates or not candidates:
        return written_as, ()
    if written_as in names:  # a different dataset holds the written name: binding to it would be a guess
        return written_as + AMBIGUOUS_SUFFIX, tuple(candidates)
    return written_as, tuple(candidates)


def _plan(conn: sqlite3.Connection) -> list[tuple[Rebinding, bool]]:
    """Per group of entries: its rebinding (or ambiguity) and whether the stored binding changes."""
    by_fp: dict[str, list[str]] = {}
    names: set[str] = set()
    for name, fp in conn.execute("SELECT name, fingerprint FROM datasets"):
        names.add(name)
        if fp:
            by_fp.setdefault(fp, []).append(name)
    out: list[tuple[Rebinding, bool]] = []
    groups = conn.execute(
        "SELECT written_as, dataset_fp, dataset, COUNT(*) FROM annotations GROUP BY written_as, dataset_fp, dataset"
    ).fetchall()
    for written_as, fp, old, count in groups:
        new, candidates = _binding(written_as or old, fp, by_fp, names)
        status = "ambiguous" if candidates else "renamed" if new in names else "unbound"
        out.append((Rebinding(written_as or old, old, new, count, status, candidates, fp), new != old))
    return out


def _needs_fill(conn: sqlite3.Connection) -> bool:
    return bool(conn.execute(
        "SELECT EXISTS (SELECT 1 FROM datasets WHERE fingerprint IS NULL) OR EXISTS (SELECT 1 FROM annotations"
        " WHERE written_as IS NULL OR (dataset_fp IS NULL AND written_as IN (SELECT name FROM datasets)))"
    ).fetchone()[0])


def journal_bindings(conn: sqlite3.Connection) -> tuple[bool, list[Rebinding]]:
    """Read only: whether `bind_journal` has anything to write, and the ambiguous bindings now."""
    plan = _plan(conn)
    return _needs_fill(conn) or any(changed for _, changed in plan), [r for r, _ in plan if r.status == "ambiguous"]


def bind_journal(conn: sqlite3.Connection) -> list[Rebinding]:
    """Re-derive every entry's binding (caller holds the write transaction); returns the renames
    it made and the ambiguous bindings."""
    _fill_missing(conn)
    out: list[Rebinding] = []
    for rebinding, changed in _plan(conn):
        if changed:
            conn.execute(
                "UPDATE annotations SET dataset = ? WHERE written_as = ? AND dataset_fp IS ? AND dataset = ?",
                (rebinding.new, rebinding.written_as, rebinding.fingerprint, rebinding.old),
            )
        if rebinding.status == "ambiguous" or changed and rebinding.status == "renamed":
            out.append(rebinding)
    return out
