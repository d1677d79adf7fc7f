"""Fixtures of the UI's tests (the loaded sample runs come from tests/conftest.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture()
def db(loaded_db: Path, tmp_path: Path) -> Path:
    """A fresh copy of the loaded sample runs' database, for a test that writes to it."""
    path = tmp_path / "qa.db"
    shutil.copy(loaded_db, path)
    return path
