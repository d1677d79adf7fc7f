"""Paths as a load names them: relative to the runs folder, as the user typed them."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["rel", "relmsg"]


def rel(runs_dir: Path, path: Path) -> str:
    """`path` relative to the runs folder; a symlink is named by where it is, not where it points.
    A name that is not valid UTF-8 shows its undecodable bytes as U+FFFD (`discover.walk` reports such names)."""
    try:
        rel = Path(path).relative_to(runs_dir).as_posix()
    except ValueError:
        try:
            rel = Path(path).resolve().relative_to(runs_dir).as_posix()
        except (ValueError, OSError, RuntimeError):  # elsewhere, or a symlink loop
            rel = str(path)
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def relmsg(runs_dir: Path, message: str) -> str:
    """Error lines name files relative to the runs folder, as the user typed them."""
    return message.replace(str(runs_dir) + os.sep, "")
