"""n/p in the detail without a known position: the next item shows first (a keyset step), its
position follows when counted, and later steps go on from it."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events

from qa_inspect.core import query
from qa_inspect.core.query import Filter
from qa_inspect.tui.screens import DetailScreen
from tests.helpers import SIZE, app_for, async_test, settle, until


def _held(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """`core.query.position` made to wait until the returned event is set."""
    gate = threading.Event()
    real = query.position

    def held(*args: Any, **kwargs: Any) -> int | None:
        gate.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(query, "position", held)
    return gate


async def _shown(condition: Callable[[], bool]) -> None:
    """Wait without `settle` (which waits for every worker, the held count too)."""
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.01)


@async_test
async def test_next_item_shows_before_its_position_is_counted(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = Filter(run="bidaf-baseline", sort="f1", descending=True)
    with sqlite3.connect(db) as conn:
        ids = query.page_ids(conn, f, 0, 8)
    gate = _held(monkeypatch)
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(DetailScreen(f, ids[3]))  # no ids at hand: nothing knows its row
        await _shown(lambda: isinstance(app.screen, DetailScreen) and app.screen.detail is not None)
        detail = app.screen
        assert isinstance(detail, DetailScreen) and detail.position is None
        app.post_message(events.Key("n", "n"))  # not `press`: it waits for the held worker
        await _shown(lambda: detail.detail is not None and detail.detail.item_id == ids[4])
        assert detail.position is None  # shown while the count waits
        gate.set()
        await until(pilot, lambda: detail.position == 4)
        await pilot.press("n", "n")
        await until(pilot, lambda: detail.detail is not None and detail.detail.item_id == ids[6])
        await until(pilot, lambda: detail.position == 6)
        await pilot.press("p")
        await until(pilot, lambda: detail.detail is not None and detail.detail.item_id == ids[5])
        await until(pilot, lambda: detail.position == 5)
