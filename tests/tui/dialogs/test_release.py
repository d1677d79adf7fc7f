"""The palette's "Release diff…": ask for a new release's file, then show only the items whose
golds it changes (in the browser shown on that dataset, else in a new one); a bad file is said in
the dialog, which stays open."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from qa_inspect.tui.dialogs import ReleaseDialog
from qa_inspect.tui.screens import BrowserScreen
from qa_inspect.tui.stale import StaleCommands
from tests.helpers import SIZE, app_for, async_test, open_run, settle, until
from tests.release_data import flag_tiny, tiny_cdqa


async def _release(pilot, screen, path: str) -> ReleaseDialog:  # type: ignore[no-untyped-def]
    entry = next(e for e in StaleCommands(screen)._entries() if e[0] == "Release diff…")
    entry[2]()
    await settle(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, ReleaseDialog)
    dialog.query_one(Input).value = path
    await pilot.press("enter")
    await settle(pilot)
    return dialog


@async_test
async def test_release_diff_filters_the_browser(tmp_path: Path) -> None:
    _, new = tiny_cdqa(tmp_path)
    runs = tmp_path / "runs"
    flag_tiny(runs)
    app = app_for(runs / ".qa-inspect" / "qa.db", runs)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        dialog = await _release(pilot, overview, str(tmp_path / "missing.json"))
        assert app.screen is dialog
        assert "missing.json: no such file" in str(dialog.query_one("#release-msg", Static).render())
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is overview

        await _release(pilot, overview, str(new))  # from the overview: a new browser on the changed items
        await until(pilot, lambda: isinstance(app.screen, BrowserScreen) and app.screen.total is not None)
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        assert browser.filter.dataset == "tiny_cdqa" and browser.filter.keys is not None
        assert browser.total == 3
        await pilot.press("escape")
        await settle(pilot)

        screen = await open_run(pilot, "m1")  # in a run's browser: that browser, its run kept
        assert screen.total == 6
        await _release(pilot, screen, str(new))
        await until(pilot, lambda: screen.total == 3)
        assert app.screen is screen and screen.filter.run == "m1" and len(screen.filter.keys or ()) == 3
        assert "only 3 listed items" in str(screen.query_one("FilterBar").render())
