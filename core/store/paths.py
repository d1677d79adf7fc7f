"""Where the database lives: beside the runs (annotations travel with them) unless that is read-only."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["default_db_path", "user_cache_dir"]


def user_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "qa-inspect"


def default_db_path(runs_dir: Path) -> Path:
    """`RUNS_DIR/.qa-inspect/qa.db`; a read-only runs folder gets a per-folder file in the user cache."""
    runs_dir = runs_dir.resolve()
    home = runs_dir / ".qa-inspect"
    if _writable(home):
        return home / "qa.db"
    digest = hashlib.sha1(str(runs_dir).encode()).hexdigest()[:12]
    return user_cache_dir() / "db" / f"{runs_dir.name}-{digest}" / "qa.db"


def _writable(folder: Path) -> bool:
    if folder.exists():
        return os.access(folder, os.W_OK | os.X_OK)
    parent = folder.parent
    return parent.is_dir() and os.access(parent, os.W_OK | os.X_OK)
