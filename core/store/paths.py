"""Where the database lives: beside the runs (annotations travel with them) unless that is read-only.

| case | database the tool writes | shipped database |
|---|---|---|
| writable runs folder | `RUNS_DIR/.qa-inspect/qa.db` | — |
| read-only folder, no `.qa-inspect/qa.db` | per-folder file under the user cache | — |
| read-only folder (or read-only `qa.db`) with a `qa.db` | per-folder *overlay* under the user cache | that `qa.db` |
| `--db FILE`, writable or new | FILE | — |
| `--db FILE`, a read-only file | per-file overlay under the user cache | FILE |

An overlay is seeded from the shipped database and takes in its new journal entries and slices at
each open (`overlay`), so the owner's flags show and the user's own stay in a file they can write.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MANIFEST_NAME", "Placement", "default_db_path", "place_db", "user_cache_dir"]

MANIFEST_NAME = "qa-inspect.toml"
"""The runs folder's settings file: the load reads it, a Δ order's stamp names it."""

_STATE_DIR = ".qa-inspect"
_DB_NAME = "qa.db"


def user_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/qa-inspect`, else `~/.cache/qa-inspect`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "qa-inspect"


@dataclass(frozen=True, slots=True)
class Placement:
    """The database the tool opens and writes, and the read-only one behind it (if any)."""

    path: Path
    shipped: Path | None = None
    """A database the tool may read but not write: seeded into `path`, merged in at each open."""
    read_only: str | None = None
    """What is read-only ("runs folder", "database file"); None when `path` is the usual place."""

    @property
    def notice(self) -> str | None:
        """One line for the load summary: where annotations go now, and why."""
        if self.read_only is None:
            return None
        seeded = f" (seeded from {self.shipped})" if self.shipped is not None else ""
        return f"{self.read_only} is read-only: annotations go to {self.path}{seeded}"


def place_db(runs_dir: Path, db: Path | None = None) -> Placement:
    """Where the database for `runs_dir` (or the explicit `db`) lives; see the module's table."""
    if db is not None:
        db = Path(db)
        if db.is_file() and not _can_write(db):
            where = db.resolve()
            return Placement(_user_side(where.stem, where), shipped=db, read_only="database file")
        return Placement(db)
    runs_dir = runs_dir.resolve()
    home = runs_dir / _STATE_DIR
    shipped = home / _DB_NAME
    exists = shipped.is_file()
    folder_ok = _writable(home)
    if folder_ok and (not exists or _can_write(shipped)):
        return Placement(shipped)
    return Placement(
        _user_side(runs_dir.name, runs_dir),
        shipped=shipped if exists else None,
        read_only="runs folder" if not folder_ok else "database file",
    )


def default_db_path(runs_dir: Path) -> Path:
    """The database the tool uses for `runs_dir`: `RUNS_DIR/.qa-inspect/qa.db`, or a per-folder file
    in the user cache when that is read-only (see `place_db`)."""
    return place_db(runs_dir).path


def _user_side(name: str, source: Path) -> Path:
    """A stable per-source file under the user cache (two folders of one name do not share it)."""
    digest = hashlib.sha1(str(source).encode()).hexdigest()[:12]
    return user_cache_dir() / "db" / f"{name}-{digest}" / _DB_NAME


def _can_write(file: Path) -> bool:
    """A database file SQLite may write: the file and its folder (for `-wal` and `-shm`)."""
    return os.access(file, os.W_OK) and _writable(file.parent)


def _writable(folder: Path) -> bool:
    if folder.exists():
        return os.access(folder, os.W_OK | os.X_OK)
    parent = folder.parent
    return parent.is_dir() and os.access(parent, os.W_OK | os.X_OK)
