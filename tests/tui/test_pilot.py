"""Pilot tests: drive the app on sample_runs/ with keys and assert state, not pixels (`db`, a fresh
copy of the loaded database per test, comes from tests/tui/conftest.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from textual.widgets import Select, Static

from qa_inspect.core import flags, query
from qa_inspect.core.query import Filter
from qa_inspect.tui.app import QAInspectApp
from qa_inspect.tui.commands import ActionsProvider
from qa_inspect.tui.dialogs import FilterScreen, HelpScreen
from qa_inspect.tui.screens import BrowserScreen, DetailScreen, OverviewScreen
from qa_inspect.tui.widgets import ItemTable
from tests.helpers import SIZE, app_for, async_test, open_run, settle, until


def count(db: Path, f: Filter) -> int:
    with sqlite3.connect(db) as conn:
        return query.count(conn, f)


@async_test
async def test_overview_then_enter_opens_browser(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)
        assert app.sub_title == "sample_runs"
        assert [ds.name for ds in app.screen.datasets] == ["cdqa_sample", "cmrc2018_dev_sample"]
        await pilot.press("down", "down", "down")  # past glm-6b, qwen → into the CMRC table
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        assert screen.filter.run == "bidaf-baseline"
        assert screen.total == 153
        assert screen.metrics is not None and screen.metrics.em == pytest.approx(39.2, abs=0.05)


@async_test
async def test_slice_row_opens_filtered_browser(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab", "tab")  # cdqa runs → cmrc runs → slices table
        focused = app.screen.focused
        assert focused is not None and focused.id == "slices"
        await pilot.press("down", "enter")  # first slice after "all items"
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        f = screen.filter
        assert f.run and (f.splits or f.tags or f.answer_types)
        assert screen.total == count(db, f)


@async_test
async def test_filters_update_count_and_metrics(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bert-base-chinese")
        all_items, em_all = screen.total, screen.metrics.em  # type: ignore[union-attr]
        await pilot.press("w")  # wrong only
        await settle(pilot)
        assert screen.filter.em == 0
        assert screen.total == count(db, Filter(run="bert-base-chinese", em=0)) < all_items  # type: ignore[operator]
        assert screen.metrics is not None and screen.metrics.em == 0.0 != em_all
        await pilot.press("slash")
        await pilot.press(*"嘉兴南站")
        await pilot.press("enter")
        await settle(pilot)
        assert screen.filter.search == "嘉兴南站"
        assert screen.total == count(db, Filter(run="bert-base-chinese", em=0, search="嘉兴南站")) >= 1
        table = screen.query_one(ItemTable)
        assert all("嘉兴南站" in r.question or "嘉兴南站" in (r.prediction or "") for r in table.win_rows)
        await pilot.press("x")
        await settle(pilot)
        assert screen.total == all_items


@async_test
async def test_open_item_and_walk_with_n_p(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        table = screen.query_one(ItemTable)
        rows = list(table.win_rows[:3])
        await pilot.press("enter")
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen)
        assert detail.detail is not None and detail.detail.question == rows[0].question
        assert detail.position == 0
        question = str(detail.query_one("#d-question", Static).render())
        assert rows[0].question in question
        await pilot.press("n")
        await settle(pilot)
        assert detail.detail.item_id == rows[1].item_id and detail.position == 1
        await pilot.press("n")
        await settle(pilot)
        assert detail.detail.item_id == rows[2].item_id
        await pilot.press("p")
        await settle(pilot)
        assert detail.detail.item_id == rows[1].item_id
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        assert table.current is not None and table.current.item_id == rows[1].item_id


@async_test
async def test_compare_adds_columns_and_disagree_filter(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        table = screen.query_one(ItemTable)
        assert "delta" not in [c.key for c in table.cols]
        await pilot.press("C")  # B columns only (c opens the compare screen)
        await settle(pilot)
        await pilot.press("down", "down", "enter")  # (no comparison), bert, roberta
        await settle(pilot)
        assert screen.filter.compare == "roberta-wwm-large"
        keys = [c.key for c in table.cols]
        assert {"b_em", "b_main", "delta"} <= set(keys)
        assert screen.compare_metrics is not None and screen.compare_metrics.em is not None
        assert table.win_rows[0].compare_f1 is not None
        await pilot.press("d")
        await settle(pilot)
        f = Filter(run="bidaf-baseline", compare="roberta-wwm-large", only_disagree=True, dataset="cmrc2018_dev_sample")
        assert screen.filter.only_disagree and screen.total == count(db, f) < 153


@async_test
async def test_sort_by_header_click_and_key(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        table = screen.query_one(ItemTable)
        table.post_message(ItemTable.Sort("f1"))
        await settle(pilot)
        assert screen.filter.sort == "f1" and not screen.filter.descending
        values = [r.f1 for r in table.win_rows if r.f1 is not None]
        assert values == sorted(values)
        table.post_message(ItemTable.Sort("f1"))
        await settle(pilot)
        assert screen.filter.descending
        await pilot.press("o")  # the sort picker, on the current column
        await settle(pilot)
        await pilot.press("up", "enter")  # the column before F1: EM
        await settle(pilot)
        assert screen.filter.sort == "em" and not screen.filter.descending


@async_test
async def test_filter_dialog_applies(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "glm-6b")
        await pilot.press("f")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, FilterScreen)
        dialog.query_one("#f-refused", Select).value = 2  # refused
        await settle(pilot)
        assert dialog.draft().refused is True
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is screen and screen.filter.refused is True
        assert screen.total == count(db, Filter(run="glm-6b", refused=True)) > 0


@async_test
async def test_model_text_is_shown_literally(db: Path) -> None:
    nasty = "[bold red]x[/] \x1b[2J\x07end"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE predictions SET text = ? WHERE id = (SELECT p.id FROM predictions p JOIN runs r"
            " ON r.id = p.run_id JOIN items i ON i.id = p.item_id WHERE r.name = 'bidaf-baseline'"
            " AND i.key = 'DEV_4_QUERY_0')",
            (nasty,),
        )
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        table = screen.query_one(ItemTable)
        cell = table.get_row_at(0)[[c.key for c in table.cols].index("prediction")]
        assert cell.plain.startswith("[bold red]x[/] ␛[2J␇")
        await pilot.press("enter")
        await settle(pilot)
        text = str(app.screen.query_one("#d-answers", Static).render())
        assert "[bold red]x[/] ␛[2J␇end" in text
        assert "\x1b" not in text


@async_test
async def test_help_and_palette_reach_every_action(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        body = str(app.screen.query_one("#help-body Static", Static).render())
        for section in ("Item browser", "Runs overview", "Item detail", "Everywhere"):
            assert section in body
        assert body.index("Item browser") < body.index("Runs overview")
        await pilot.press("escape")
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await settle(pilot)
        titles = [t for t, _, _ in ActionsProvider(screen)._entries()]
        described = [b for b in BrowserScreen.BINDINGS if getattr(b, "description", "")]
        assert len(titles) >= len(described) + 2  # + help, quit
        for b in described:
            assert any(t.startswith(b.description) for t in titles), b  # type: ignore[union-attr]


@async_test
async def test_worker_error_becomes_notification(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_: object, **__: object) -> int:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(query, "metrics_ab", boom)
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_run(pilot, "bidaf-baseline")
        assert any("disk on fire" in str(n.message) for n in app._notifications)


@async_test
async def test_small_terminal(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "qwen-7b-chat")
        table = screen.query_one(ItemTable)
        assert sum(table.widths) + 2 * len(table.widths) <= 80
        assert "f1_recall" in [c.key for c in table.cols] and "em" not in [c.key for c in table.cols]


@async_test
async def test_empty_database_says_what_to_do(tmp_path: Path) -> None:
    app = QAInspectApp(db_path=tmp_path / "empty.db", runs_dir=Path("runs"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)
        text = str(app.screen.query_one("#overview-empty", Static).render())
        assert "No datasets loaded" in text
        await pilot.press("q")


@async_test
async def test_n_past_the_browser_window_walks_in_sql(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        f = Filter(run="bidaf-baseline", em=0, sort="f1", descending=True)
        with sqlite3.connect(db) as conn:
            ids = [r.item_id for r in query.page(conn, f, 0, 4)]
        app.push_screen(DetailScreen(f, ids[0], nav=ids[:2], nav_start=0))
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen) and detail.position == 0
        for k in (1, 2, 3):  # 1 from the window, 2 and 3 from SQL
            await pilot.press("n")
            await settle(pilot)
            assert detail.detail is not None and detail.detail.item_id == ids[k] and detail.position == k
        await pilot.press("p", "p", "p")
        await settle(pilot)
        assert detail.detail.item_id == ids[0]
        await pilot.press("p")
        await settle(pilot)
        assert detail.detail.item_id == ids[0]  # first item: stays, says so


@async_test
async def test_mouse_header_click_sorts_and_double_click_opens(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        table = screen.query_one(ItemTable)
        keys = [c.key for c in table.cols]
        k = keys.index("f1")
        x = sum(w + 2 for w in table.widths[:k]) + 2
        await pilot.click(ItemTable, offset=(x, 0))
        await settle(pilot)
        assert screen.filter.sort == "f1"
        await pilot.click(ItemTable, offset=(3, 3))  # highlight the third row
        await pilot.click(ItemTable, offset=(3, 3))  # and open it
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        assert app.screen.detail is not None and app.screen.detail.item_id == table.win_rows[2].item_id


@async_test
async def test_theme_switch_recolours_tables(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "qa-inspect"
        screen = await open_run(pilot, "bidaf-baseline")
        table = screen.query_one(ItemTable)
        app.theme = "textual-light"
        await settle(pilot)
        assert table.palette["good"] == app.current_theme.success
        assert table.win_rows  # rows rebuilt, not lost


@async_test
async def test_stale_gold_shows_in_table_and_detail(db: Path) -> None:
    with sqlite3.connect(db, isolation_level=None) as conn:
        flags.append(conn, "mark", "cmrc2018_dev_sample", "DEV_52_QUERY_1", "近5.6万平方米",
                     author="alice", reason="station extended", proposed="约6万平方米")
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        screen.set_filter(screen.filter.with_(stale=True))
        await settle(pilot)
        table = screen.query_one(ItemTable)
        assert screen.total == 1 and table.win_rows[0].key == "DEV_52_QUERY_1" and table.win_rows[0].stale
        assert table.get_row_at(0)[[c.key for c in table.cols].index("stale")].plain == "stale"
        await pilot.press("enter")
        await settle(pilot)
        text = str(app.screen.query_one("#d-answers", Static).render())
        assert "⚑ stale" in text and "alice" in text and "station extended" in text and "约6万平方米" in text


@async_test
async def test_keymap_rebinds_keys_by_binding_id(db: Path) -> None:
    """Binding ids are what a keymap names: `browser.toggle-errors` moves from w to W, and the
    shared stale keys move on every screen that has them."""
    app = app_for(db)
    app.set_keymap({"browser.toggle-errors": "W", "stale.undo": "ctrl+z"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        await pilot.press("w")
        await settle(pilot)
        assert screen.filter.em is None  # w is free now
        await pilot.press("W")
        await settle(pilot)
        assert screen.filter.em == 0
        keys = {active.binding.id: key for key, active in app.active_bindings.items()}
        assert keys["stale.undo"] == "ctrl+z" and keys["browser.toggle-errors"] == "W"


def slowed(monkeypatch: pytest.MonkeyPatch, name: str, seconds: float = 0.15) -> None:
    """`core.query.<name>` made slow, so keys arrive faster than the answers they start."""
    import time

    real = getattr(query, name)

    def slow(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        time.sleep(seconds)
        return real(*args, **kwargs)

    monkeypatch.setattr(query, name, slow)


@async_test
async def test_n_typed_faster_than_items_load_moves_that_many_items(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        f = Filter(run="bidaf-baseline")
        with sqlite3.connect(db) as conn:
            ids = [r.item_id for r in query.page(conn, f, 0, 8)]
        app.push_screen(DetailScreen(f, ids[0], nav=ids[:1], nav_start=0))
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen)
        slowed(monkeypatch, "neighbour")
        await pilot.press("n", "n", "n", "n")  # every step walks in SQL, each slower than a key
        await settle(pilot)
        assert detail.detail is not None and detail.detail.item_id == ids[4] and detail.position == 4
        await pilot.press("n", "p", "n", "n")
        await settle(pilot)
        assert detail.detail.item_id == ids[6] and detail.position == 6


@async_test
async def test_page_down_typed_faster_than_windows_load_moves_that_many_pages(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qa_inspect.tui.screens import item_windows as windows_module
    from qa_inspect.tui.widgets import item_table

    monkeypatch.setattr(item_table, "WINDOW", 12)
    monkeypatch.setattr(windows_module, "WINDOW", 12)
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        table = screen.query_one(ItemTable)
        page = table._page()
        slowed(monkeypatch, "page")
        await pilot.press("pagedown", "pagedown", "pagedown")
        await settle(pilot)
        assert table.absolute_cursor == min(3 * page, table.win_total - 1)
        await pilot.press("pageup", "down", "down")
        await settle(pilot)
        assert table.absolute_cursor == min(3 * page, table.win_total - 1) - page + 2
        assert table.current is not None and table.current.item_id == query.page(
            sqlite3.connect(db), screen.filter, table.absolute_cursor, 1)[0].item_id


def mark_first_gold(db: Path, question: str) -> None:
    """Flag the first gold of the item asking `question` stale, as another process would."""
    conn = sqlite3.connect(db)
    try:
        ref = flags.resolve_item(conn, question)
        gold = conn.execute("SELECT g.text FROM golds g JOIN items i ON i.id = g.item_id WHERE i.key = ?"
                            " ORDER BY g.idx LIMIT 1", (ref.key,)).fetchone()[0]
        flags.mark(conn, ref.dataset, ref.key, gold)
    finally:
        conn.close()


@async_test
async def test_undo_redo_and_metrics_mode_keys_work_on_every_screen(db: Path) -> None:
    from qa_inspect.tui.screens import CompareScreen

    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        mark_first_gold(db, screen.query_one(ItemTable).current.question)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        for screen_kind in ("detail", "compare"):
            if screen_kind == "compare":
                app.push_screen(CompareScreen("bidaf-baseline", "bert-base-chinese"))
                await settle(pilot)
                assert isinstance(app.screen, CompareScreen)
            before = app.exclude_stale
            await pilot.press("m")
            assert app.exclude_stale is not before, screen_kind
            await pilot.press("u")  # undoes the mark (the author's last action), then redoes it
            await settle(pilot)
            with sqlite3.connect(db) as conn:
                assert flags.current_flags(conn) == [], screen_kind
            await pilot.press("U")
            await settle(pilot)
            with sqlite3.connect(db) as conn:
                assert len(flags.current_flags(conn)) == 1, screen_kind


@async_test
async def test_facet_counts_follow_a_flag_written_in_the_browser(db: Path) -> None:
    from qa_inspect.tui.widgets import FacetPanel
    from tests.helpers import open_run_with_facets, settle_facets

    app = app_for(db)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = await open_run_with_facets(pilot, "bidaf-baseline")
        panel = screen.query_one(FacetPanel)
        await pilot.press("ctrl+f")
        await settle_facets(pilot)
        screen.query_one(ItemTable).focus()
        counted = panel.generation
        assert panel.shown and counted > 0
        mark_first_gold(db, screen.query_one(ItemTable).current.question)
        await pilot.press("u")  # a flag write in the browser (undo of that mark)
        await settle_facets(pilot)
        assert panel.generation > counted and not panel._dirty


@async_test
async def test_the_footer_names_what_m_does_now(db: Path) -> None:
    from textual.widgets import Footer

    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)

        def footer() -> str:
            return " ".join(str(k.render()) for k in app.screen.query_one(Footer).query("FooterKey"))

        assert "Excl. stale" in footer() and "All golds" not in footer()
        await pilot.press("m")
        await settle(pilot)
        assert app.exclude_stale and "All golds" in footer() and "Excl. stale" not in footer()
        await pilot.press("m")
        await settle(pilot)
        assert not app.exclude_stale and "Excl. stale" in footer()


@async_test
async def test_an_empty_result_says_so_and_how_to_leave_it(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        line = screen.query_one("#items-empty", Static)
        assert not line.display
        screen.set_filter(screen.filter.with_(search="这个问题一定不存在的文字"))
        await settle(pilot)
        assert screen.total == 0 and line.display and "No items match this filter" in str(line.render())
        await pilot.press("x")
        await settle(pilot)
        assert screen.total and not line.display


@async_test
async def test_facet_rows_keep_their_order_when_counts_change(db: Path) -> None:
    from qa_inspect.tui.widgets import FacetPanel
    from tests.helpers import settle_facets

    app = app_for(db)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "glm-6b", settle_facets)
        await pilot.press("ctrl+f")
        await settle_facets(pilot)
        panel = screen.query_one(FacetPanel)
        before = {t.name: [str(r.value) for r in t.rows] for t in panel.tables}
        assert before["answer_type"][:2] == ["person", "work"]
        screen.set_filter(screen.filter.with_(refused=False))  # answered only: work now outnumbers person
        await settle_facets(pilot)
        assert panel.shown_filter == screen.filter
        for t in panel.tables:
            now = [str(r.value) for r in t.rows]
            old = [v for v in before.get(t.name, []) if v in now]
            assert now[: len(old)] == old, t.name


@async_test
async def test_preferences_survive_a_restart(db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[keymap]\n"browser.toggle-errors" = "W"\n', encoding="utf-8")
    monkeypatch.setenv("QA_INSPECT_CONFIG", str(config))
    app = QAInspectApp(db_path=db, runs_dir=Path("runs"), remember=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.theme = "nord"
        await pilot.press("m")  # stale golds excluded
        screen = await open_run(pilot, "bidaf-baseline")
        await pilot.press("W")  # wrong only, by the user's keymap
        await settle(pilot)
        screen.set_filter(screen.filter.with_(sort="f1", descending=True))
        await settle(pilot)
        kept = screen.filter
        assert kept.em == 0
    app = QAInspectApp(db_path=db, runs_dir=Path("runs"), remember=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, BrowserScreen))  # the restored filter opens it
        assert app.theme == "nord" and app.exclude_stale
        assert isinstance(app.screen, BrowserScreen) and app.screen.filter == kept
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)


@async_test
async def test_a_theme_chosen_just_before_quitting_is_kept(db: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QA_INSPECT_CONFIG", str(tmp_path / "config.toml"))
    app = QAInspectApp(db_path=db, runs_dir=Path("runs"), remember=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.theme = "nord"  # and quit at once: its save worker may not have run
    app = QAInspectApp(db_path=db, runs_dir=Path("runs"), remember=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.theme == "nord", timeout=10)


@async_test
async def test_y_copies_a_piece_of_the_item_and_E_opens_its_evidence(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from qa_inspect.tui import text as text_module
    from qa_inspect.tui.dialogs import RunPicker

    monkeypatch.setattr(text_module, "CLIPBOARD_COMMANDS", ())  # OSC 52 only: no system command in tests
    app = app_for(db)
    copied: list[str] = []
    opened: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    monkeypatch.setattr(app, "open_url", lambda url, **_: opened.append(url))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "qwen-7b-chat")
        row = screen.query_one(ItemTable).current
        await pilot.press("enter")
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, RunPicker)
        await pilot.press("down", "enter")  # id, then question
        await settle(pilot)
        assert copied == [row.question] and app.screen is detail
        await pilot.press("E")
        await settle(pilot)
        url = detail.detail.meta.get("evidence_url")
        assert url and opened == [url]  # the sample's CDQA items carry their evidence URL


def test_the_result_bar_thumb_covers_the_whole_result() -> None:
    from qa_inspect.tui.widgets.result_bar import thumb

    assert thumb(30, 3219, 0, 30) == (0, 1)
    assert thumb(30, 3219, 3219 - 30, 30) == (29, 1)  # the last rows: the thumb at the bottom
    assert thumb(30, 60, 15, 30) == (8, 15)
    assert thumb(30, 20, 0, 20) == (0, 30)


@async_test
async def test_the_result_bar_follows_the_cursor_past_the_window(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from qa_inspect.tui.screens import item_windows as windows_module
    from qa_inspect.tui.widgets import ResultBar
    from qa_inspect.tui.widgets import item_table

    monkeypatch.setattr(item_table, "WINDOW", 12)
    monkeypatch.setattr(windows_module, "WINDOW", 12)
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        bar = screen.query_one(ResultBar)
        assert bar.place[0] == screen.total and bar.place[1] == 0
        await pilot.press("end")
        await settle(pilot)
        total, first, shown = bar.place
        assert total == screen.total and first + shown >= total - 1  # the last rows, not the window's


@async_test
async def test_ctrl_b_in_the_help_shows_the_binding_ids_a_keymap_names(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        text = help_screen.query_one("#help-text", Static)
        assert "overview.compare" not in str(text.render())
        await pilot.press("ctrl+b")
        assert "overview.compare" in str(text.render()) and "stale.undo" in str(text.render())
        await pilot.press("ctrl+b")
        assert "overview.compare" not in str(text.render())


@async_test
async def test_a_wide_terminal_splits_the_browser_and_the_item_follows_the_cursor(db: Path) -> None:
    from qa_inspect.tui.widgets import ItemPreview

    app = app_for(db)
    async with app.run_test(size=(180, 45)) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        await pilot.pause(0.3)
        await settle(pilot)
        preview = screen.query_one(ItemPreview)
        table = screen.query_one(ItemTable)
        assert preview.display and preview.detail is not None and preview.detail.item_id == table.current.item_id
        await pilot.press("down", "down")
        await pilot.pause(0.3)
        await settle(pilot)
        assert preview.detail.item_id == table.current.item_id
        assert table.current.question in str(preview.query_one(Static).render())
        await pilot.press("backslash")  # off
        await settle(pilot)
        assert not preview.display
        await pilot.press("backslash", "ctrl+f")  # on again, but the facet panel takes its place
        await settle(pilot)
        assert not preview.display
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:  # 120 columns: no split
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        assert not screen.query_one(ItemPreview).display


@async_test
async def test_k_hides_and_orders_columns_and_they_stay_for_the_dataset(db: Path) -> None:
    from qa_inspect.tui.dialogs import ColumnsDialog

    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, "bidaf-baseline")
        table = screen.query_one(ItemTable)
        def shown(t: ItemTable) -> list[str]:
            return [c.key for c in t.cols if c.key != "sel"]  # the selection mark is not a column one picks

        assert shown(table)[:4] == ["key", "question", "prediction", "best_gold"]
        await pilot.press("k")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ColumnsDialog)
        await pilot.press("space")  # hide the first listed column (question)
        await pilot.press("down", "ctrl+up")  # prediction moves before question
        await pilot.press("enter")
        await settle(pilot)
        after = shown(table)
        assert "question" not in after and after[:3] == ["key", "prediction", "best_gold"]
        # another run of the same dataset keeps the layout
        await pilot.press("escape")
        await settle(pilot)
        screen = await open_run(pilot, "bert-base-chinese")
        assert shown(screen.query_one(ItemTable))[:3] == ["key", "prediction", "best_gold"]


@async_test
async def test_the_app_fills_a_search_index_a_big_load_left_pending(db: Path) -> None:
    from qa_inspect.core.store import pending_rows

    with sqlite3.connect(db) as conn:  # as a big load leaves it: nothing indexed yet
        conn.execute("DELETE FROM items_fts")
        conn.execute("INSERT INTO predictions_fts (predictions_fts) VALUES ('delete-all')")
        conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES ('search_index:items', '0')")
        conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES ('search_index:predictions', '0')")
        assert pending_rows(conn) > 0
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert any("Search index ready" in str(n.message) for n in app._notifications)
    with sqlite3.connect(db) as conn:
        assert pending_rows(conn) == 0
        assert conn.execute("SELECT COUNT(*) FROM items_fts").fetchone()[0] == conn.execute(
            "SELECT COUNT(*) FROM items").fetchone()[0]
