"""Fixtures of the UI's tests (the loaded sample runs come from tests/conftest.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Input


@pytest.fixture()
def db(loaded_db: Path, tmp_path: Path) -> Path:
    """A fresh copy of the loaded sample runs' database, for a test that writes to it."""
    path = tmp_path / "qa.db"
    shutil.copy(loaded_db, path)
    return path


@pytest.fixture(autouse=True)
def steady_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    """A focused input's cursor stays shown: its blink (every 0.5 s) would put a snapshot taken on
    a loaded machine in the other phase."""

    def shown(self: Input) -> None:
        self._cursor_visible = True

    monkeypatch.setattr(Input, "_toggle_cursor", shown)


_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/tui is marked `tui` (`pytest -m "not tui"`: the core and CLI suite).
    Pytest hands every conftest's hook the whole session's items, so only ours are marked."""
    for item in items:
        if _HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.tui)
