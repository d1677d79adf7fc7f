"""The review queue screen counts a gold's samples as it shows it: the queue is ranked without any
sample's text, and the gold on screen gets the consensus the command line reports ("N of M
samples")."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from rich.console import Console
from textual.pilot import Pilot

from qa_inspect.core import flags
from qa_inspect.core.load import load_runs
from qa_inspect.core.review import review_queue
from qa_inspect.core.store import open_db
from qa_inspect.tui.app import QAInspectApp
from qa_inspect.tui.screens import ReviewQueueScreen
from tests.helpers import async_test, settle
from tests.sampled_runs import sampled_runs

TODAY = date(2026, 1, 1)
pytestmark = pytest.mark.usefixtures("no_author_env")


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(flags.AUTHOR_ENV, "ann")
    folder = sampled_runs(tmp_path)
    data = folder / "qa.jsonl"
    rows = [json.loads(line) | {"tag": "fast-changing"} for line in data.read_text(encoding="utf-8").splitlines()]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert not load_runs(folder).errors
    return folder


async def _queue(pilot: Pilot[None]) -> ReviewQueueScreen:
    await settle(pilot)
    pilot.app.push_screen(ReviewQueueScreen(today=TODAY))
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReviewQueueScreen)
    return screen


@async_test
async def test_the_shown_gold_counts_its_samples(runs: Path) -> None:
    db = runs / ".qa-inspect" / "qa.db"
    conn = open_db(db).conn
    try:
        expected = review_queue(conn, author="ann", today=TODAY)
    finally:
        conn.close()
    sampled = [n for n, e in enumerate(expected.entries)
               if e.scored.signals.consensus is not None and e.scored.signals.consensus.sample_total]
    assert sampled
    app = QAInspectApp(db_path=db, runs_dir=runs, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _queue(pilot)
        assert screen.queue is not None and len(screen.queue.entries) == len(expected.entries)
        for _ in range(sampled[0]):
            await pilot.press("n")
            await settle(pilot)
        assert screen.pos == sampled[0] and screen.entry == expected.entries[sampled[0]]
        console = Console(width=120, record=True)
        console.print(screen.view)
        c = expected.entries[sampled[0]].scored.signals.consensus
        assert c is not None and f"{c.samples} of {c.sample_total} samples" in console.export_text()
        later = [e for n, e in enumerate(screen.queue.entries) if n > sampled[0]]
        assert all(e.scored.signals.consensus is None or e.scored.signals.consensus.sample_total == 0
                   for e in later), "golds not shown yet read no sample"
