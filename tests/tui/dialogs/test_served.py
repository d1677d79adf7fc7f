"""Served mode (`qa-inspect serve`): the annotator's name is asked before anything else and becomes
this session's journal author; typed paths stay inside the runs folder (exports under its export
folder); links do not open."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Input, Static

from qa_inspect.core import flags
from qa_inspect.core.store import AUTHOR_ENV, default_author, get_setting
from qa_inspect.tui.app import SERVED_OFF_ACTIONS, QAInspectApp
from qa_inspect.tui.dialogs import AnnotatorDialog, ExportDialog, ReleaseDialog, inside
from qa_inspect.tui.screens import OverviewScreen
from qa_inspect.tui.stale import StaleCommands
from tests.helpers import SIZE, Env, async_test, open_detail, open_run, settle


@pytest.fixture
def no_author(monkeypatch: pytest.MonkeyPatch) -> None:
    """No annotator in the environment, and whatever the app puts there undone after the test."""
    monkeypatch.setenv(AUTHOR_ENV, "placeholder")
    monkeypatch.delenv(AUTHOR_ENV)


def _served(env: Env) -> QAInspectApp:
    return QAInspectApp(db_path=env.db, runs_dir=env.runs, remember=False, served=True)


def _messages(app: QAInspectApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


@async_test
async def test_the_name_comes_first_and_signs_the_journal(env: Env, no_author: None) -> None:
    app = _served(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, AnnotatorDialog)
        assert isinstance(app.screen_stack[-2], OverviewScreen)
        await pilot.press("enter")  # no name: the dialog stays and says so
        await settle(pilot)
        assert isinstance(app.screen, AnnotatorDialog)
        assert "A name, please." in str(app.screen.query_one("#annotator-msg", Static).render())
        app.screen.query_one(Input).value = "  Ann   Example "
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)
        assert os.environ[AUTHOR_ENV] == "Ann Example" and app.sub_title.endswith("Ann Example")
    d, k, g = env.conn.execute("SELECT d.name, i.key, g.text FROM golds g JOIN items i ON i.id = g.item_id"
                               " JOIN datasets d ON d.id = i.dataset_id WHERE g.superseded = 0 LIMIT 1").fetchone()
    assert flags.mark(env.conn, d, k, g).author == "Ann Example"


@async_test
async def test_an_author_in_the_environment_is_not_asked_and_renames_only_the_session(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(AUTHOR_ENV, "Ben")
    app = _served(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen) and app.sub_title.endswith("Ben")
        # the palette's "Set annotator name…" renames this session (not the system user's stored name)
        entry = next(e for e in StaleCommands(app.screen)._entries() if e[0] == "Set annotator name…")
        entry[2]()
        await settle(pilot)
        assert isinstance(app.screen, AnnotatorDialog) and app.screen.query_one(Input).value == "Ben"
        app.screen.query_one(Input).value = "Cleo"
        await pilot.press("enter")
        await settle(pilot)
        assert os.environ[AUTHOR_ENV] == "Cleo" and app.sub_title.endswith("Cleo")
        assert get_setting(env.conn, f"author:{default_author()}") is None


@async_test
async def test_exports_stay_in_the_export_folder(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(AUTHOR_ENV, "Ben")
    app = _served(env)
    exports = env.runs / ".qa-inspect" / "exports"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        for outside in ("../out.csv", str(env.root / "out.csv"), "../../../../../../tmp/out.csv"):
            await pilot.press("e")
            await settle(pilot)
            dialog = app.screen
            assert isinstance(dialog, ExportDialog)
            dialog.query_one(Input).value = outside
            await pilot.press("enter")
            await settle(pilot)
            assert app.screen is dialog, outside
            assert "paths stay inside exports/" in str(dialog.query_one("#export-msg", Static).render())
            await pilot.press("escape")
            await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one(Input).value = "mine.csv"  # relative to the export folder
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is browser
    assert (exports / "mine.csv").is_file() and not (env.root / "out.csv").exists()


@async_test
async def test_release_files_only_from_the_runs_folder(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(AUTHOR_ENV, "Ben")
    app = _served(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(ReleaseDialog())
        await settle(pilot)
        app.screen.query_one(Input).value = "/etc/passwd"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ReleaseDialog)
        assert "paths stay inside runs/" in str(app.screen.query_one("#release-msg", Static).render())


@async_test
async def test_links_do_not_open(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(AUTHOR_ENV, "Ben")
    app = _served(env)
    opened: list[str] = []
    monkeypatch.setattr(App, "open_url", lambda self, url, new_tab=True: opened.append(url))
    key = env.conn.execute("SELECT key FROM items WHERE meta LIKE '%http%' LIMIT 1").fetchone()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        open_detail(env.db, "glm-6b", key[0] if key else "q:0e8bc8e961672cdd")(app)
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)
        assert SERVED_OFF_ACTIONS["open_evidence"] in _messages(app)
        assert not any(m.startswith("Opening") for m in _messages(app))
        app.open_url("https://example.org")  # whatever calls it
        assert opened == []


def test_inside(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    (root / "sub").mkdir(parents=True)
    (root / "out").symlink_to(tmp_path)
    assert inside(root, "sub/a.csv") == (root / "sub" / "a.csv").resolve()
    assert inside(root, str(root / "a.csv")) == (root / "a.csv").resolve()
    assert inside(root, "../a.csv") is None
    assert inside(root, "/tmp/a.csv") is None
    assert inside(root, "out/a.csv") is None  # a link out of the folder
    assert inside(root, "~/a.csv") == (root / "~" / "a.csv").resolve()  # not the server's home
