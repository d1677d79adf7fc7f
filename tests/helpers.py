"""Helpers shared by test modules (`from tests.helpers import ...`); fixtures live in conftest.py."""

from __future__ import annotations

import asyncio
import functools
import json
import shutil
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.worker import WorkerCancelled, WorkerState

from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import read_source
from qa_inspect.core.load import load_runs
from qa_inspect.core.query import Filter
from qa_inspect.core.store import open_db
from qa_inspect.tui.app import QAInspectApp
from qa_inspect.tui.screens import BrowserScreen, CompareScreen, DetailScreen
from qa_inspect.tui.widgets import FacetPanel

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


def loaded_sample(root: Path, sample_runs: Path) -> sqlite3.Connection:
    """sample_runs copied to `root/runs` (without its `.qa-inspect`), loaded into its own
    `.qa-inspect/qa.db` with no error, and that database open (the caller closes it)."""
    shutil.copytree(sample_runs, root / "runs", ignore=shutil.ignore_patterns(".qa-inspect"))
    summary = load_runs(root / "runs")
    assert not summary.errors, summary.errors
    return open_db(root / "runs" / ".qa-inspect" / "qa.db").conn


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


def drop_column(conn: sqlite3.Connection, table: str, column: str) -> None:
    """Make a database look older: drop `column` of `table` with the indexes that name it (a later
    migration's index on it would refuse the drop; upgrading re-creates them)."""
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql LIKE ?",
                                (table, f"%{column}%")).fetchall():
        conn.execute(f"DROP INDEX {name}")
    conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")


# ---------------------------------------------------------------- TUI pilot and snapshot tests

SAMPLE_RUNS_DIR = Path("sample_runs")
SIZE = (120, 40)
"""The terminal of most pilot tests."""
Settle = Callable[[Pilot[None]], Awaitable[None]]
Before = Callable[[Pilot[None]], Awaitable[None]]


def async_test(fn: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an async test with asyncio.run (no async pytest plugin is installed)."""

    @functools.wraps(fn)
    def wrapper(*args: object, **kwargs: object) -> None:
        asyncio.run(fn(*args, **kwargs))  # type: ignore[arg-type]

    return wrapper


def app_for(db: Path, runs: Path = SAMPLE_RUNS_DIR) -> QAInspectApp:
    """The app on `db`, its runs folder shown as `runs` (relative by default: no absolute path on
    screen); it neither restores nor saves preferences, so every test starts the same."""
    return QAInspectApp(db_path=db, runs_dir=runs, remember=False)


def _busy(pilot: Pilot[None]) -> bool:
    return any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in pilot.app.workers)


async def settle(pilot: Pilot[None]) -> None:
    """Let workers finish and their messages land (rounds: one answer may start another worker, and
    a screen pushed a moment ago starts its workers on mount, so idle must hold twice in a row)."""
    idle = 0
    for _ in range(20):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            pass  # a screen left while its worker ran cancels it (the overview does): not a failure
        await pilot.pause()
        idle = idle + 1 if not _busy(pilot) else 0
        if idle == 2:
            return


async def until(pilot: Pilot[None], condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait for a state the test is about to assert (a chain of workers and messages may be long)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await settle(pilot)
        await pilot.pause(0.01)


async def settle_facets(pilot: Pilot[None]) -> None:
    """`settle`, with short pauses and the facet panel's debounce timer run out too."""
    for _ in range(20):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            pass  # see `settle`
        await pilot.pause(0.05)
        if not _busy(pilot):
            panel = pilot.app.screen.query(FacetPanel)
            if not panel or not panel.first()._dirty or not panel.first().shown:
                return
            await pilot.pause(0.35)  # a debounced facet count is about to start


async def open_run(pilot: Pilot[None], run: str, settle: Settle = settle) -> BrowserScreen:
    """`app.open_run(run)`, settled, checked to show the browser."""
    app = pilot.app
    assert isinstance(app, QAInspectApp)
    app.open_run(run)
    await settle(pilot)
    assert isinstance(app.screen, BrowserScreen)
    return app.screen


def env_app(env: Env) -> QAInspectApp:
    """The app on a loaded copy (`env`): its own runs folder, so exports land in tmp."""
    return app_for(env.db, env.runs)


async def open_run_with_facets(pilot: Pilot[None], run: str) -> BrowserScreen:
    """`open_run`, settled with the facet panel's debounce."""
    return await open_run(pilot, run, settle_facets)


async def open_compare(pilot: Pilot[None], run_a: str, pick_down: int) -> CompareScreen:
    """From run A's browser: c, then the picker's `pick_down`-th run (0 = first)."""
    await open_run(pilot, run_a, settle_facets)
    await pilot.press("c")
    await settle_facets(pilot)
    await pilot.press(*(["down"] * pick_down), "enter")
    await settle_facets(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, CompareScreen)
    return screen


def run_before(
    *steps: Callable[[QAInspectApp], object],
    keys: tuple[str, ...] = (),
    settle: Settle = settle,
    key_by_key: bool = False,
) -> Before:
    """A snapshot's `run_before`: settle, apply each step to the app (settling after each), then
    press the keys, all at once or (`key_by_key`) settling after each."""

    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        app = pilot.app
        assert isinstance(app, QAInspectApp)
        for step in steps:
            step(app)
            await settle(pilot)
        if key_by_key:
            for key in keys:
                await pilot.press(key)
                await settle(pilot)
        elif keys:
            await pilot.press(*keys)
            await settle(pilot)

    return before


def run_key_by_key(*steps: Callable[[QAInspectApp], object], keys: tuple[str, ...] = ()) -> Before:
    """`run_before` settling with the facet panel's debounce, after each key (facets, compare)."""
    return run_before(*steps, keys=keys, settle=settle_facets, key_by_key=True)


def item_id(db: Path, key: str) -> int:
    """The database id of the item with this key (keys of the sample runs are unique)."""
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT id FROM items WHERE key = ?", (key,)).fetchone()[0])


def open_detail(db: Path, run_name: str, key: str) -> Callable[[QAInspectApp], object]:
    """A `run_before` step: the detail view of item `key` with `run_name`'s prediction."""
    f = Filter(run=run_name)
    return lambda app: app.push_screen(DetailScreen(f, item_id(db, key)))
