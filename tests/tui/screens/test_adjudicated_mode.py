"""`M`: the adjudicated metrics mode (accepted aliases counted as golds). An alias accepted with `A`
moves the overview's number in adjudicated mode and not in the official one; `m` and `M` are
never on together, and the app's preferences keep the mode."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from qa_inspect.core import flags
from qa_inspect.core.query import Preferences
from qa_inspect.tui.screens import OverviewScreen
from qa_inspect.tui.widgets import ItemTable, RunsTable
from tests.helpers import SIZE, app_for, async_test, open_run, settle, until

RUN = "bert-base-chinese"


@pytest.fixture(autouse=True)
def author(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(flags.AUTHOR_ENV, "tester")


def overall_em(screen: OverviewScreen) -> float | None:
    run = next(r for ds in screen.datasets for r in ds.runs if r.name == RUN)
    return run.overall.em


def titles(screen: OverviewScreen) -> str:
    return " ".join(str(t.render()) for t in screen.query(".dataset-title").results(Static))


@async_test
async def test_an_accepted_alias_moves_the_adjudicated_number_only(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        await until(pilot, lambda: overview.complete)
        official = overall_em(overview)
        browser = await open_run(pilot, RUN)
        table = browser.query_one(ItemTable)
        table.move_cursor(row=next(i for i, r in enumerate(table.win_rows) if r.em == 0 and r.prediction))
        await pilot.pause()
        await pilot.press("A")  # the run's wrong answer accepted as an alias of its item
        await settle(pilot)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is overview and overview.complete)
        assert overall_em(overview) == official  # official numbers never move
        await pilot.press("M")
        await until(pilot, lambda: overview.complete and overall_em(overview) != official)
        adjudicated = overall_em(overview)
        assert adjudicated is not None and official is not None and adjudicated > official
        assert app.adjudicated and not app.exclude_stale and "adjudicated" in titles(overview)
        def boards() -> dict[str, object]:
            return {t.ds.name: t.board for t in overview.query(RunsTable)}

        await until(pilot, lambda: boards()["cdqa_sample"] is not None, timeout=60)  # no alias there: ± stays
        assert boards()["cmrc2018_dev_sample"] is None and "official numbers only" in titles(overview)
        assert "cdqa_sample" not in overview.stale_titles.changed
        await pilot.press("m")  # stale golds excluded: the adjudicated mode goes off
        await settle(pilot)
        assert app.exclude_stale and not app.adjudicated
        await pilot.press("M")
        await settle(pilot)
        assert app.adjudicated and not app.exclude_stale
        await pilot.press("M")
        await until(pilot, lambda: overview.complete and overall_em(overview) == official)
        assert not app.adjudicated and "adjudicated" not in titles(overview)


def test_preferences_keep_the_mode_and_never_both() -> None:
    prefs = Preferences(adjudicated=True)
    assert Preferences.from_dict(prefs.to_dict()).adjudicated
    both = Preferences.from_dict({"exclude_stale": True, "adjudicated": True})
    assert both.adjudicated and not both.exclude_stale
    assert not Preferences.from_dict({}).adjudicated


@async_test
async def test_stale_golds_excluded_keeps_the_intervals_of_datasets_without_flags(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        await until(pilot, lambda: overview.complete and all(t.board is not None for t in overview.query(RunsTable)),
                    timeout=60)
        await pilot.press("m")
        await until(pilot, lambda: app.exclude_stale and overview.complete)
        await settle(pilot)
        assert all(t.board is not None for t in overview.query(RunsTable))  # no flag: the same numbers, the same ±
        assert "official numbers only" not in titles(overview)
