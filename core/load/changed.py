"""Which of a folder's files changed since the last load: size and mtime, then SHA-256.

A touched file whose content is the same only gets its stamp updated; a file that cannot be
hashed is an error of that file, not of the load. A phase of `loader`'s pass.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import sha256_file

from .ingest import transaction
from .relpaths import relmsg as _relmsg

__all__ = ["Candidate", "LoadPass", "find_changed"]


class Candidate(Protocol):
    """A file found in the folder, with its SHA-256 once hashed (`loader._Candidate`)."""

    path: Path
    rel: str
    size: int
    mtime_ns: int
    sha256: str | None


class LoadPass(Protocol):
    """What this phase reads of a load pass (`loader._Pass`)."""

    conn: sqlite3.Connection
    runs_dir: Path
    stored: dict[str, tuple[Any, ...]]

    @property
    def progress(self) -> Callable[[int, int, str], None]: ...

    def error(self, rel: str, message: str) -> None: ...


C = TypeVar("C", bound=Candidate)


def find_changed(lp: LoadPass, candidates: list[C], reread_all: bool) -> tuple[list[C], list[C]]:
    """Split by size + mtime, then SHA-256 (a touched but equal file only gets its stamp updated)."""
    changed: list[C] = []
    unchanged: list[C] = []
    for i, cand in enumerate(candidates):
        lp.progress(i, len(candidates), f"checking {cand.rel}")
        old = lp.stored.get(cand.rel)
        if old and old[1] == cand.size and old[2] == cand.mtime_ns and not reread_all:
            unchanged.append(cand)
            continue
        try:
            cand.sha256 = sha256_file(cand.path, checked=True)
        except (OSError, FormatError) as exc:  # FormatError: over max_file_bytes or NUL only, refused unhashed
            lp.error(cand.rel, _relmsg(lp.runs_dir, str(exc)) if isinstance(exc, FormatError)
                     else f"{cand.rel}: cannot read ({exc.strerror})")
            continue
        if old and old[3] == cand.sha256 and not reread_all:
            with transaction(lp.conn):
                lp.conn.execute(
                    "UPDATE files SET mtime_ns = ?, size = ? WHERE path = ?", (cand.mtime_ns, cand.size, cand.rel)
                )
            unchanged.append(cand)
        else:
            changed.append(cand)
    return changed, unchanged
