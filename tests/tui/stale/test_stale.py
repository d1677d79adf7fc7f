"""Pilot tests of the stale-answer actions: mark from the browser and the detail view,
undo/redo, bulk marking after a confirmation, the metrics mode, busy notices, palette and help."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static

from qa_inspect.core import flags
from qa_inspect.core.query import Filter, targets_for_filter
from qa_inspect.core.report import rescore_excluding_stale, slice_metrics_excluding_stale
from qa_inspect.tui.commands import ActionsProvider
from qa_inspect.tui.dialogs import ConfirmDialog
from qa_inspect.tui.screens import BrowserScreen, DetailScreen, OverviewScreen
from qa_inspect.tui.stale import AuthorForm, StaleCommands, StaleForm
from qa_inspect.tui.widgets import ItemTable, StatusLine
from qa_inspect.tui.widgets.detail_blocks import answers
from tests.helpers import SIZE, app_for, async_test, open_run, settle

DS = "cmrc2018_dev_sample"


@pytest.fixture(autouse=True)
def author(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(flags.AUTHOR_ENV, "tester")
    return "tester"


def journal(db: Path) -> list[flags.Entry]:
    with sqlite3.connect(db) as conn:
        return flags.journal(conn)


def stale_keys(db: Path) -> set[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        return {(f.item_key, f.gold_text) for f in flags.current_flags(conn, include_resolved=False)}


def notices(pilot: Pilot[None]) -> list[str]:
    return [str(n.message) for n in pilot.app._notifications]


async def cursor_to(pilot: Pilot[None], screen: BrowserScreen, key: str) -> ItemTable:
    table = screen.query_one(ItemTable)
    table.move_cursor(row=[r.key for r in table.win_rows].index(key))
    await pilot.pause()
    return table


def cell(table: ItemTable, row: int, key: str) -> str:
    return table.get_row_at(row)[[c.key for c in table.cols].index(key)].plain


def fill(form: StaleForm, **values: str) -> None:
    for name, value in values.items():
        form.query_one(f"#sf-{name}", Input).value = value


@async_test
async def test_mark_from_browser_writes_journal_and_shows_stale(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        table = await cursor_to(pilot, screen, "DEV_52_QUERY_1")
        row = table.cursor_row
        assert cell(table, row, "stale") == ""
        await pilot.press("s")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, StaleForm)
        assert form.data.item_key == "DEV_52_QUERY_1" and [g.text for g in form.data.golds] == ["近5.6万平方米"]
        assert form.query_one("#sf-author", Input).value == "tester"
        fill(form, reason="station extended", proposed="约6万平方米", evidence="https://example.org/jiaxing")
        for field in ("proposed", "evidence", "author"):  # enter walks the fields: a reason never skips the rest
            await pilot.press("enter")
            assert form.query_one(f"#sf-{field}", Input).has_focus and app.screen is form
        await pilot.press("enter")  # in the last field: submits
        await settle(pilot)
        assert app.screen is screen
        [e] = journal(db)
        assert (e.action, e.item_key, e.gold_text, e.author) == ("mark", "DEV_52_QUERY_1", "近5.6万平方米", "tester")
        assert (e.reason, e.proposed, e.evidence) == ("station extended", "约6万平方米", "https://example.org/jiaxing")
        assert table.current is not None and table.current.key == "DEV_52_QUERY_1" and table.current.stale
        assert cell(table, table.cursor_row, "stale") == "stale"
        assert any("Marked stale" in n and "约6万平方米" in n for n in notices(pilot))
        # the stale filters follow at once
        screen.set_filter(screen.filter.with_(has_proposal=True))
        await settle(pilot)
        assert [r.key for r in table.win_rows] == ["DEV_52_QUERY_1"]


@async_test
async def test_escape_cancels_the_form(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StaleForm)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and journal(db) == []


@async_test
async def test_mark_one_gold_from_detail(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        await cursor_to(pilot, screen, "DEV_52_QUERY_3")  # golds 8线 · 8线 · 8条线
        await pilot.press("enter")
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen)
        await pilot.press("3")  # choose gold 3
        assert detail.chosen_gold == 2
        await pilot.press("g")  # next gold wraps to the group 1·2
        assert detail.chosen_gold == 0
        await pilot.press("G")
        assert detail.chosen_gold == 2
        await pilot.press("s")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, StaleForm)
        assert [g.label for g in form.data.golds] == ["1·2", "3"]
        assert form.query_one("#sf-gold", Select).value == 2  # the chosen gold
        fill(form, reason="renamed", proposed="8条线路")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is detail
        [e] = journal(db)
        assert (e.gold_text, e.reason, e.proposed) == ("8条线", "renamed", "8条线路")
        d = detail.detail
        assert d is not None and [g.stale is not None for g in d.golds] == [False, False, True]
        assert [f.gold_text for f in d.flags] == ["8条线"]
        text = str(detail.query_one("#d-answers", Static).render())
        assert "⚑ stale — tester" in text and "renamed" in text and "→ 8条线路" in text
        content = answers(d, False, 100)
        at = content.plain.index("8条线 ")
        assert any("strike" in str(s.style) and s.start <= at < s.end for s in content.spans)
        # back in the browser the row is stale without a manual reload
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        table = screen.query_one(ItemTable)
        assert table.current is not None and table.current.key == "DEV_52_QUERY_3" and table.current.stale


@async_test
async def test_undo_and_redo_flip_the_state(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        for key in ("DEV_4_QUERY_0", "DEV_4_QUERY_1"):
            await cursor_to(pilot, screen, key)
            await pilot.press("s")
            await settle(pilot)
            await pilot.press("ctrl+s")
            await settle(pilot)
        golds = {("DEV_4_QUERY_0", "巴西"), ("DEV_4_QUERY_1", "足球运动员")}
        assert stale_keys(db) == golds
        table = screen.query_one(ItemTable)
        await pilot.press("u")
        await settle(pilot)
        assert stale_keys(db) == {("DEV_4_QUERY_0", "巴西")}
        assert any(n.startswith("Undone: mark") and "DEV_4_QUERY_1" in n for n in notices(pilot))
        assert not table.current.stale  # type: ignore[union-attr]
        await pilot.press("u", "u")  # the second has nothing left to undo
        await settle(pilot)
        assert stale_keys(db) == set()
        assert "Nothing to undo." in notices(pilot)
        await pilot.press("U")
        await settle(pilot)
        assert stale_keys(db) == {("DEV_4_QUERY_0", "巴西")}
        assert any(n.startswith("Redone: mark") for n in notices(pilot))
        await pilot.press("U")
        await settle(pilot)
        assert stale_keys(db) == golds and table.current.stale  # type: ignore[union-attr]
        actions = [e.action for e in journal(db)]
        assert actions == ["mark", "mark", "undo", "undo", "mark", "mark"]  # undo is a new entry, never a delete


@async_test
async def test_bulk_mark_selection_after_confirmation(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        table = screen.query_one(ItemTable)
        ids = [r.item_id for r in table.win_rows[:3]]
        await pilot.press("space", "space", "space")
        assert screen.selection.ids == set(ids)
        assert [cell(table, k, "sel") for k in range(4)] == ["✓", "✓", "✓", ""]
        assert "3 selected" in str(screen.query_one(StatusLine).render())
        await pilot.press("s")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        with sqlite3.connect(db) as conn:
            targets = flags.targets_for_items(conn, ids)
        body = str(dialog.query_one("#confirm-body", Static).render())
        assert f"Mark {len(targets)} gold answers of 3 items stale?" in body
        await pilot.press("n")  # no: nothing written, the selection stays
        await settle(pilot)
        assert journal(db) == [] and screen.selection.ids == set(ids)
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, StaleForm) and form.data.bulk and form.data.bulk_golds == len(targets)
        assert not form.query("#sf-proposed")  # one new answer for many golds makes no sense
        fill(form, reason="2024 release check")
        await pilot.press("ctrl+s")
        await settle(pilot)
        entries = journal(db)
        assert {e.target for e in entries} == set(targets) and {e.reason for e in entries} == {"2024 release check"}
        assert len({e.meta.get("batch") for e in entries}) == 1  # one action
        assert screen.selection.ids == set() and [cell(table, k, "sel") for k in range(3)] == ["", "", ""]
        assert all(r.stale for r in table.win_rows[:3])
        await pilot.press("u")  # one undo step for the whole selection
        await settle(pilot)
        assert stale_keys(db) == set()


@async_test
async def test_select_all_matching_the_filter(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        screen.set_filter(screen.filter.with_(search="嘉兴南站"))
        await settle(pilot)
        table = screen.query_one(ItemTable)
        assert screen.total and screen.total > 1
        await pilot.press("ctrl+a")
        assert screen.selection.every is not None
        assert all(cell(table, k, "sel") == "✓" for k in range(len(table.win_rows)))
        assert f"all {screen.total} selected" in str(screen.query_one(StatusLine).render())
        with sqlite3.connect(db) as conn:
            targets = targets_for_filter(conn, screen.filter)
        await pilot.press("s")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = str(dialog.query_one("#confirm-body", Static).render())
        assert f"Mark {len(targets)} gold answers of {screen.total} items stale?" in body
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert {e.target for e in journal(db)} == set(targets)
        assert all(r.stale for r in table.win_rows)
        # S on a selection clears after its own confirmation
        await pilot.press("ctrl+a", "S")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(pilot)
        assert stale_keys(db) == set() and not any(r.stale for r in table.win_rows)
        # a changed filter drops "every item of the filter"
        await pilot.press("ctrl+a")
        screen.set_filter(screen.filter.with_(search=""))
        await settle(pilot)
        assert screen.selection.every is None and cell(table, 0, "sel") == ""


@async_test
async def test_metrics_toggle_excludes_stale_golds(db: Path) -> None:
    with sqlite3.connect(db, isolation_level=None) as conn:  # gold 8线 of 8线 · 8线 · 8条线: bidaf said 8线
        flags.mark(conn, DS, "DEV_52_QUERY_3", "8线", reason="renamed")
        flags.mark(conn, DS, "DEV_4_QUERY_1", "足球运动员")  # the only gold: the item drops out
        excluded = slice_metrics_excluding_stale(conn, Filter(dataset=DS, run="bidaf-baseline"))
        rescored = rescore_excluding_stale(conn, "bidaf-baseline")
    assert excluded.metrics.em == pytest.approx(rescored.excluding_stale["em"])
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        status = screen.query_one(StatusLine)
        em_all = screen.metrics.em  # type: ignore[union-attr]
        assert "all golds" in str(status.render()) and f"EM {em_all:.1f}" in str(status.render())
        await pilot.press("m")
        await settle(pilot)
        text = str(status.render())
        assert "stale golds excluded" in text and "1 item dropped" in text
        assert (shown := screen.excluded.of(screen.generation)) is not None and shown.metrics.em == pytest.approx(excluded.metrics.em)
        assert f"EM {excluded.metrics.em:.1f}" in text and f"{excluded.metrics.em:.1f}" != f"{em_all:.1f}"
        # a filter change re-scores the new slice in the same mode
        screen.set_filter(screen.filter.with_(search="嘉兴南站"))
        await settle(pilot)
        with sqlite3.connect(db) as conn:
            part = slice_metrics_excluding_stale(conn, screen.filter)
        assert (shown := screen.excluded.of(screen.generation)) is not None and shown.metrics.em == pytest.approx(part.metrics.em)
        # the overview follows the same mode
        await pilot.press("escape")
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        ds = next(d for d in overview.datasets if d.name == DS)
        run = next(r for r in ds.runs if r.name == "bidaf-baseline")
        assert run.overall.em == pytest.approx(rescored.excluding_stale["em"])
        assert run.overall.items == rescored.excluding_stale["items"]
        assert "stale golds excluded" in str(overview.query_one("#slices-title", Static).render())
        assert any("2 stale excluded" in str(t.render()) for t in overview.query(".dataset-title").results(Static))
        await pilot.press("m")
        await settle(pilot)
        ds = next(d for d in overview.datasets if d.name == DS)
        run = next(r for r in ds.runs if r.name == "bidaf-baseline")
        assert run.overall.em == pytest.approx(rescored.all_golds["em"])
        assert "all golds" in str(overview.query_one("#slices-title", Static).render())


@async_test
async def test_busy_database_is_a_notification(db: Path) -> None:
    with sqlite3.connect(db, isolation_level=None) as conn:
        flags.mark(conn, DS, "DEV_4_QUERY_0", "巴西")
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_run(pilot, "bidaf-baseline")
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            await pilot.press("u")
            for _ in range(40):
                await pilot.pause(0.05)
                if any("busy" in n for n in notices(pilot)):
                    break
            assert any("database busy" in n and "retrying" in n for n in notices(pilot))
        finally:
            other.execute("ROLLBACK")
            other.close()
        await settle(pilot)
        assert stale_keys(db) == set()  # the undo went through once the lock was free
        assert any(n.startswith("Undone") for n in notices(pilot))


@async_test
async def test_annotator_name_palette_help_and_bindings(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(flags.AUTHOR_ENV)
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        titles = [t for t, _, _ in ActionsProvider(screen)._entries()]
        for wanted in ("Stale (s)", "Clear stale (S)", "Select (space)", "Select all", "Undo flag (u)",
                       "Redo flag (U)", "Excl. stale (m)"):
            assert any(t.startswith(wanted) for t in titles), (wanted, titles)
        for cls in (BrowserScreen, DetailScreen, OverviewScreen, StaleForm, ConfirmDialog, AuthorForm):
            for b in cls.BINDINGS:
                assert getattr(b, "description", ""), (cls, b)
        entries = StaleCommands(screen)._entries()
        assert [t for t, _, _ in entries] == ["Set annotator name…", "Release diff…"]
        entries[0][2]()
        await settle(pilot)
        form = app.screen
        assert isinstance(form, AuthorForm)
        form.query_one("#af-name", Input).value = "Ann Otator"
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        with sqlite3.connect(db) as conn:
            assert flags.author_for(conn) == "Ann Otator"
        await pilot.press("s")
        await settle(pilot)
        assert app.screen.query_one("#sf-author", Input).value == "Ann Otator"
        await pilot.press("escape", "space")
        await settle(pilot)
        assert [t for t, _, _ in StaleCommands(screen)._entries()] == ["Set annotator name…", "Release diff…", "Clear selection"]
        await pilot.press("question_mark")
        await settle(pilot)
        body = str(app.screen.query_one("#help-body Static", Static).render())
        for text in ("Mark a gold answer stale", "Undo your last flag or label action", "stale golds excluded",
                     "Set annotator name", "Select every item matching the filter"):
            assert text in body, text


@async_test
async def test_author_change_in_the_form_is_remembered(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(flags.AUTHOR_ENV)
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        await pilot.press("s")
        await settle(pilot)
        fill(app.screen, author="bob")  # type: ignore[arg-type]
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is screen
        assert [e.author for e in journal(db)] == ["bob"]
        with sqlite3.connect(db) as conn:
            assert flags.author_for(conn) == "bob"
        await pilot.press("u")  # undo acts for the annotator now named
        await settle(pilot)
        assert stale_keys(db) == set()
