"""Helpers shared by test modules (`from tests.helpers import ...`); fixtures live in conftest.py."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import read_source
from qa_inspect.core.loader import load_runs
from qa_inspect.core.store import open_db

FORMAT_FIXTURES = Path(__file__).parent / "fixtures" / "formats"

# ---------------------------------------------------------------- a loaded copy of sample_runs


@dataclass
class Env:
    """A copy of the loaded sample runs: its runs folder, its database and a connection to it."""

    runs: Path
    db: Path
    conn: sqlite3.Connection

    @property
    def root(self) -> Path:
        """The folder holding `runs/` and `qa.db`."""
        return self.runs.parent

    def reload(self) -> None:
        summary = load_runs(self.runs, self.db)
        assert not summary.errors, summary.errors


def load_template(root: Path, sample_runs: Path) -> Path:
    """sample_runs copied to `root/runs` (without its `.qa-inspect`) and loaded into `root/qa.db`."""
    shutil.copytree(sample_runs, root / "runs", ignore=shutil.ignore_patterns(".qa-inspect"))
    load_runs(root / "runs", root / "qa.db")
    return root


def copy_loaded(template: Path, dest: Path) -> Path:
    """A fresh copy of a loaded template (`runs/` and `qa.db`) under `dest`; returns the runs folder."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(template / "runs", dest / "runs")
    shutil.copy(template / "qa.db", dest / "qa.db")
    return dest / "runs"


@contextmanager
def loaded_env(template: Path, dest: Path) -> Iterator[Env]:
    """`copy_loaded` with the copy's database open; the connection is closed on exit."""
    runs = copy_loaded(template, dest)
    conn = open_db(dest / "qa.db").conn
    try:
        yield Env(runs, dest / "qa.db", conn)
    finally:
        conn.close()


# ---------------------------------------------------------------- format readers on small files


def write_json(tmp_path: Path, name: str, value: Any) -> Path:
    """`value` as JSON (a string too) in `tmp_path/name`."""
    path = tmp_path / name
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    return path


def write(tmp_path: Path, name: str, value: Any) -> Path:
    """`value` in `tmp_path/name`: a string as written, anything else as JSON."""
    if not isinstance(value, str):
        return write_json(tmp_path, name, value)
    path = tmp_path / name
    path.write_text(value, encoding="utf-8")
    return path


def error_of(path: Path) -> FormatError:
    """The FormatError reading `path` raises, checked to name the file."""
    with pytest.raises(FormatError) as info:
        read_source(path)
    assert str(path) in str(info.value)
    return info.value
