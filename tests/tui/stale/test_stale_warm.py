"""The overview re-scores in excluded mode ahead of the first `m` (once on screen, when a gold is
flagged), so the switch itself re-scores nothing and shows the same numbers."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core import flags
from qa_inspect.core.report import rescore_excluding_stale, stale_overview
from qa_inspect.tui.screens import OverviewScreen
from tests.helpers import SIZE, app_for, async_test, settle

DS = "cmrc2018_dev_sample"


@async_test
async def test_first_m_finds_the_excluded_overview_kept(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(flags.AUTHOR_ENV, "tester")
    with sqlite3.connect(db) as conn:
        flags.mark(conn, DS, "DEV_52_QUERY_3", "8线", reason="renamed")
        rescored = rescore_excluding_stale(conn, "bidaf-baseline")
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)  # the overview, then its excluded numbers computed in the background
        overview = app.screen
        assert isinstance(overview, OverviewScreen) and overview.complete
        rescores: list[Any] = []
        real = stale_overview.item_frame_excluding_stale

        def counted(*args: Any, **kwargs: Any) -> Any:
            rescores.append(args)
            return real(*args, **kwargs)

        monkeypatch.setattr(stale_overview, "item_frame_excluding_stale", counted)
        await pilot.press("m")
        await settle(pilot)
        assert app.exclude_stale and overview.complete
        ds = next(d for d in overview.datasets if d.name == DS)
        run = next(r for r in ds.runs if r.name == "bidaf-baseline")
        assert run.overall.em == pytest.approx(rescored.excluding_stale["em"])
        assert rescores == []  # kept from the background pass: the switch re-scored nothing
