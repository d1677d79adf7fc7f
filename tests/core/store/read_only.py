"""Read-only folders and files for tests, also where `chmod` does not stop writes (the suite may run as root).

`make_read_only` takes the write bits away and, when `os.access` still says "writable" (root), tells
`os.access` otherwise for those paths: the tool decides by `os.access`, so it takes the same road a
normal user's read-only folder sends it down. Such a run cannot prove that nothing was written into
the folder, so tests check that themselves (`snapshot`).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

__all__ = ["ReadOnly", "make_read_only", "snapshot"]


class ReadOnly:
    """Paths made read-only by `make_read_only`; `owner()` lets their owner write for a moment."""

    def __init__(self, modes: dict[Path, int]) -> None:
        self.modes = modes

    def lock(self) -> None:
        for path, mode in self.modes.items():
            path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))

    def unlock(self) -> None:
        for path, mode in self.modes.items():
            if path.exists():
                path.chmod(mode)

    @contextmanager
    def owner(self) -> Iterator[None]:
        """The folder's owner at work (e.g. marking in the shipped database), then read-only again."""
        self.unlock()
        try:
            yield
        finally:
            self.lock()


def make_read_only(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, *roots: Path) -> ReadOnly:
    """chmod a-w every root (a folder: and all inside it); the modes come back when the test ends."""
    roots = tuple(r.resolve() for r in roots)
    ro = ReadOnly({p: p.stat().st_mode for r in roots for p in ([r, *r.rglob("*")] if r.is_dir() else [r])})
    request.addfinalizer(ro.unlock)
    ro.lock()
    if not any(os.access(r, os.W_OK) for r in roots):
        return ro  # a normal user: the file system enforces it
    real = os.access

    def access(path: os.PathLike[str] | str, mode: int, *args: object, **kwargs: object) -> bool:
        if mode & os.W_OK:
            p = Path(path).resolve()
            if any(p == r or r in p.parents for r in roots):
                return False
        return real(path, mode, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)
    return ro


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under `folder` with the sha256 of its bytes: equal snapshots, nothing written."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*")) if p.is_file()
    }
