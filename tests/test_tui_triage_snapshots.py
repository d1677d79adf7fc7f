"""Snapshot tests of the compare screen and the facet panel (pytest-textual-snapshot;
`--snapshot-update` to accept after looking at the new SVGs).

Deterministic: the sample runs, the built-in theme, fixed sizes, every worker finished and the
facet panel's debounce timer run out before the picture is taken.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.worker import WorkerState

from qa_inspect.core.loader import load_runs
from qa_inspect.tui.app import QAInspectApp
from qa_inspect.tui.widgets.facet_panel import FacetPanel

Before = Callable[[Pilot[None]], Awaitable[None]]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Path:
    path = tmp_path_factory.mktemp("snap-triage") / "qa.db"
    assert not load_runs(sample_runs, path).errors
    return path


async def settle(pilot: Pilot[None]) -> None:
    for _ in range(20):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.05)
        if any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in pilot.app.workers):
            continue
        panels = pilot.app.screen.query(FacetPanel)
        if panels and panels.first().shown and panels.first()._dirty:
            await pilot.pause(0.35)  # the debounced count starts soon
            continue
        return


def run(*steps: Callable[[QAInspectApp], object], keys: tuple[str, ...] = ()) -> Before:
    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        app = pilot.app
        assert isinstance(app, QAInspectApp)
        for step in steps:
            step(app)
            await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return before


def app_for(db: Path) -> QAInspectApp:
    return QAInspectApp(db_path=db, runs_dir=Path("sample_runs"))


def test_compare_120x40(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    """bidaf-baseline (A) against roberta-wwm-large (B): c in the browser, pick B."""
    steps = run(lambda app: app.open_run("bidaf-baseline"), keys=("c", "down", "enter"))
    assert snap_compare(app_for(db), terminal_size=(120, 40), run_before=steps)


def test_compare_cdqa_80x24(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    """c on the overview's first run (glm-6b): its one other run is B; F1-recall threshold only."""
    assert snap_compare(app_for(db), terminal_size=(80, 24), run_before=run(keys=("c",)))


def test_compare_wide_160x45(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("glm-6b"), keys=("c",))
    assert snap_compare(app_for(db), terminal_size=(160, 45), run_before=steps)


def test_facets_120x40(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    """The facet panel beside bert-base-chinese's items, one question word selected."""
    steps = run(lambda app: app.open_run("bert-base-chinese"), keys=("F", *["down"] * 24, "enter"))
    assert snap_compare(app_for(db), terminal_size=(120, 40), run_before=steps)


def test_facets_80x24(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    """At 80 columns the panel sits below the items."""
    steps = run(lambda app: app.open_run("glm-6b"), keys=("F", "down", "enter"))
    assert snap_compare(app_for(db), terminal_size=(80, 24), run_before=steps)
