"""Pilot tests of the triage parts of the TUI (issue 6): compare screen, facet panel, saved slices,
export. Each test drives a fresh loaded copy of sample_runs/ (`env`), so exports land in tmp."""

from __future__ import annotations

import polars as pl
import pytest
from rich.cells import cell_len
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static

import tests.helpers
from qa_inspect.core import query
from qa_inspect.core.query import OUTCOMES, Filter, facet_tables, list_slices, load_slice, save_slice
from qa_inspect.core.report import diff_runs
from qa_inspect.tui.app import QAInspectApp
from qa_inspect.tui.dialogs import (
    ConfirmDialog,
    ExportDialog,
    SaveSliceDialog,
    SlicesProvider,
    SlicesScreen,
    default_path,
    safe_stem,
)
from qa_inspect.tui.screens import BrowserScreen, CompareScreen, DetailScreen, OutcomeTable, scope_of
from qa_inspect.tui.widgets import FacetList, FacetPanel, ItemTable
from qa_inspect.tui.widgets.facet_panel import choose, split_bar, toggle
from tests.helpers import SIZE, Env, app_for, async_test
from tests.helpers import settle_facets as settle

CMRC = "cmrc2018_dev_sample"


def make_app(env: Env) -> QAInspectApp:
    return app_for(env.db, env.runs)


async def open_run(pilot: Pilot[None], run: str) -> BrowserScreen:
    """`tests.helpers.open_run`, settled with the facet panel's debounce."""
    return await tests.helpers.open_run(pilot, run, settle)


async def open_compare(pilot: Pilot[None], run_a: str, pick_down: int) -> CompareScreen:
    """From run A's browser: c, then the picker's `pick_down`-th run (0 = first)."""
    await open_run(pilot, run_a)
    await pilot.press("c")
    await settle(pilot)
    await pilot.press(*(["down"] * pick_down), "enter")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, CompareScreen)
    return screen


# ------------------------------------------------------------------------------------ compare


@async_test
async def test_compare_screen_counts_equal_diff_runs(env: Env) -> None:
    expected = diff_runs(env.conn, "bidaf-baseline", "roberta-wwm-large", top=50)
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_compare(pilot, "bidaf-baseline", 1)  # bert, roberta
        assert (screen.run_a, screen.run_b) == ("bidaf-baseline", "roberta-wwm-large")
        assert screen.diff is not None and screen.loaded_generation == screen.generation
        assert screen.diff.outcomes == expected.outcomes
        assert screen.diff.common == expected.common
        table = screen.query_one(OutcomeTable)
        assert table.criteria == ["em", "threshold"]
        for row, o in enumerate(expected.outcomes):
            for col, outcome in enumerate(OUTCOMES):
                shown = table.get_cell_at(Coordinate(row, col)).plain
                assert shown.split()[0].replace(",", "") == str(o.count(outcome)), (o.criterion, outcome)
        slices = screen.query_one("#cmp-slices", DataTable)
        assert slices.row_count == len({(s.dimension, s.value) for s in expected.slices})
        changes = screen.query_one("#cmp-changes", DataTable)
        assert changes.row_count == len(expected.changes)
        title = str(screen.query_one("#cmp-title", Static).render())
        assert f"{expected.common:,} of {expected.items:,}" in title


@async_test
async def test_enter_on_fixed_opens_those_items_with_b_columns(env: Env) -> None:
    expected = diff_runs(env.conn, "bidaf-baseline", "roberta-wwm-large")
    fixed = expected.outcome("em").fixed
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        compare = await open_compare(pilot, "bidaf-baseline", 1)
        assert compare.query_one(OutcomeTable).has_focus
        await pilot.press("enter")  # the cursor starts on EM · fixed
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, BrowserScreen) and browser is not compare
        assert browser.filter.outcome == "fixed" and browser.filter.compare == "roberta-wwm-large"
        assert browser.total == fixed == query.count(env.conn, expected.cell_filter("fixed"))
        table = browser.query_one(ItemTable)
        keys = [c.key for c in table.cols]
        assert {"b_em", "b_main", "delta"} <= set(keys)
        assert all(r.em == 0 and r.compare_em == 1 for r in table.win_rows)
        # Δ is B − A in the browser too: B fixed it, so the shown Δ is never negative
        cells = [table.get_row_at(i)[keys.index("delta")].plain for i in range(len(table.win_rows))]
        assert cells and all(not c.startswith("-") for c in cells)
        label = table.ordered_columns[keys.index("delta")].label.plain
        assert label.startswith("Δ B−A")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is compare
        await pilot.press("right", "enter")  # EM · broken
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        assert app.screen.total == expected.outcome("em").broken


@async_test
async def test_cdqa_compare_from_overview_uses_f1_recall_threshold(env: Env) -> None:
    expected = diff_runs(env.conn, "glm-6b", "qwen-7b-chat")
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")  # overview, glm-6b highlighted; one other run: no picker
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        assert screen.diff is not None and [o.criterion for o in screen.diff.outcomes] == ["threshold"]
        assert screen.diff.outcomes == expected.outcomes
        labels = [r.label.plain for r in screen.query_one(OutcomeTable).rows.values() if r.label is not None]
        assert labels == ["F1-recall ≥ 0.5"]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        assert app.screen.total == expected.outcome("threshold").fixed
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("x")  # swap A and B: fixed ↔ broken
        await settle(pilot)
        assert (screen.run_a, screen.run_b) == ("qwen-7b-chat", "glm-6b")
        o = screen.diff.outcome("threshold")
        assert (o.fixed, o.broken) == (expected.outcome("threshold").broken, expected.outcome("threshold").fixed)
        await pilot.press("t")  # threshold picker: 0.1 … 1, on 0.5
        await settle(pilot)
        await pilot.press("down", "down", "enter")  # 0.7
        await settle(pilot)
        assert screen.threshold == pytest.approx(0.7)
        assert screen.diff.outcomes == diff_runs(env.conn, "qwen-7b-chat", "glm-6b", threshold=0.7).outcomes


@async_test
async def test_compare_browse_all_adds_b_columns_and_keeps_the_filter(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        await pilot.press("w")  # wrong only: a filter on A's scores
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("enter")  # bert-base-chinese
        await settle(pilot)
        compare = app.screen
        assert isinstance(compare, CompareScreen)
        assert compare.scope is None  # EM = 0 judges run A: the outcome table splits by it instead
        await pilot.press("b")
        await settle(pilot)
        assert app.screen is browser
        f = browser.filter
        assert (f.run, f.compare, f.em) == ("bidaf-baseline", "bert-base-chinese", 0)
        assert "delta" in [c.key for c in browser.query_one(ItemTable).cols]
        assert browser.total == query.count(env.conn, f)


@async_test
async def test_compare_within_the_browser_filter(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        browser.set_filter(browser.filter.with_(search="什么"))
        await settle(pilot)
        await pilot.press("c", "down", "enter")
        await settle(pilot)
        compare = app.screen
        assert isinstance(compare, CompareScreen) and compare.diff is not None
        within = Filter(dataset=CMRC, run="bidaf-baseline", search="什么")
        expected = diff_runs(env.conn, "bidaf-baseline", "roberta-wwm-large", within=within)
        assert compare.diff.outcomes == expected.outcomes and compare.diff.common < 147
        assert "scope" in str(compare.query_one("#cmp-title", Static).render())
        cell = compare.cell_filter("em", "both_wrong")
        assert query.count(env.conn, cell) == expected.outcome("em").both_wrong
        await pilot.press("a")  # whole dataset
        await settle(pilot)
        assert compare.diff.common == 147


def test_scope_keeps_item_conditions_only() -> None:
    f = Filter(dataset="d", run="a", compare="b", splits=("dev",), em=0, f1_max=0.5, search="x",
               facets=(("qword", "谁"), ("pred_len", "0")), outcome="fixed", sort="f1")
    scope, dropped = scope_of(f)
    assert dropped and scope == Filter(dataset="d", splits=("dev",), search="x", facets=(("qword", "谁"),))
    assert scope_of(Filter(dataset="d", run="a")) == (None, False)


@async_test
async def test_change_row_opens_the_item(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        compare = await open_compare(pilot, "bidaf-baseline", 1)
        first = compare.change_refs[0]
        compare.query_one("#cmp-changes", DataTable).focus()
        await pilot.press("enter")
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen)
        assert detail.detail is not None and detail.detail.item_id == first.item_id


# ------------------------------------------------------------------------------------- facets


@async_test
async def test_facet_panel_counts_and_selection(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        panel = browser.query_one(FacetPanel)
        assert not panel.shown
        await pilot.press("F")
        await settle(pilot)
        assert panel.shown and panel.query_one(FacetList).has_focus
        expected = facet_tables(env.conn, browser.filter)
        assert [(t.name, [(r.value, r.items, r.errors) for r in t.rows]) for t in panel.tables] == [
            (t.name, [(r.value, r.items, r.errors) for r in t.rows]) for t in expected
        ]
        facets = panel.query_one(FacetList)
        qword = [i for i, (name, row) in enumerate(facets.refs) if name == "qword" and row is not None]
        first, second = facets.refs[qword[0]][1], facets.refs[qword[1]][1]
        assert first is not None and second is not None
        facets.move_cursor(row=qword[0])
        await pilot.press("enter")
        await settle(pilot)
        assert browser.filter.facets == (("qword", str(first.value)),)
        assert browser.total == first.items
        assert panel.loaded_generation == panel.generation and panel.shown_filter == browser.filter
        # the selected facet keeps its other values (counted without its own selection): add one
        facets.move_cursor(row=next(i for i, (n, r) in enumerate(facets.refs) if r is not None and r.value == second.value))
        await pilot.press("space")
        await settle(pilot)
        assert set(browser.filter.facets) == {("qword", str(first.value)), ("qword", str(second.value))}
        assert browser.total == first.items + second.items
        await pilot.press("space")  # again: removed
        await settle(pilot)
        assert browser.filter.facets == (("qword", str(first.value)),)
        await pilot.press("backspace")  # clears the facet under the cursor
        await settle(pilot)
        assert browser.filter.facets == () and browser.total == 153
        await pilot.press("escape")  # back to the items, the panel stays
        assert browser.query_one(ItemTable).has_focus and panel.shown
        await pilot.press("F")
        assert panel.query_one(FacetList).has_focus
        await pilot.press("F")
        assert not panel.shown and browser.query_one(ItemTable).has_focus


@async_test
async def test_facet_panel_follows_filter_changes_and_selects_fields(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "glm-6b")
        await pilot.press("F")
        await settle(pilot)
        panel = browser.query_one(FacetPanel)
        before = panel.generation
        await pilot.press("escape", "w")  # to the items, wrong only
        await settle(pilot)
        assert panel.generation > before and panel.shown_filter == browser.filter
        assert panel.totals == (browser.total, browser.total)  # every item shown is wrong
        facets = panel.query_one(FacetList)
        row = next(i for i, (n, r) in enumerate(facets.refs) if n == "refused" and r is not None and r.value == 1)
        refs = facets.refs[row][1]
        assert refs is not None
        facets.focus()
        facets.move_cursor(row=row)
        await pilot.press("enter")
        await settle(pilot)
        assert browser.filter.refused is True and browser.total == refs.items
        tag = next(i for i, (n, r) in enumerate(facets.refs) if n == "tag" and r is not None)
        facets.move_cursor(row=tag)
        await pilot.press("enter")
        await settle(pilot)
        tag_row = facets.refs[facets.cursor_row][1]
        assert tag_row is not None and browser.filter.tags == (tag_row.value,)
        assert browser.total == query.count(env.conn, Filter(run="glm-6b", refused=True, tags=(tag_row.value,),
                                                             f1_max=0.999999))
        await pilot.press("enter")  # the only selected value again: clears the facet
        await settle(pilot)
        assert browser.filter.tags == ()


def test_toggle_and_choose() -> None:
    f = Filter(run="r", tags=("a",))
    assert toggle(f, "tag", "b") == f.with_(tags=("a", "b"))
    assert toggle(f.with_(tags=("a", "b")), "tag", "a") == f.with_(tags=("b",))
    assert choose(f, "tag", "a") == f.with_(tags=())
    assert choose(f, "tag", "b") == f.with_(tags=("b",))
    assert toggle(f, "qword", "谁") == f.with_(facets=(("qword", "谁"),))
    assert toggle(f.with_(facets=(("qword", "谁"),)), "qword", "谁") == f
    assert toggle(f, "refused", 1) == f.with_(refused=True)
    assert toggle(f.with_(refused=True), "refused", 1) == f
    assert toggle(f, "tag", None) is None


def test_split_bar_widths() -> None:
    for items, errors in ((0, 0), (5, 0), (5, 5), (7, 3), (10, 4)):
        bar = split_bar(items, errors, 10, 12, "blue", "red")
        assert cell_len(bar.plain) == 12
    assert split_bar(10, 0, 10, 4, "blue", "red").plain == "████"
    assert split_bar(0, 0, 10, 4, "blue", "red").plain == "    "


# ------------------------------------------------------------------------------------- slices


@async_test
async def test_ctrl_s_saves_and_the_list_reopens_it(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        await pilot.press("w")
        await settle(pilot)
        saved_filter, total = browser.filter, browser.total
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, SaveSliceDialog)
        await pilot.press(*"bidaf wrong", "enter")
        await settle(pilot)
        assert app.screen is browser and browser.slice_name == "bidaf wrong"
        assert load_slice(env.conn, "bidaf wrong") == saved_filter
        # a second save under the same name asks first; yes replaces
        await pilot.press("x")  # clear the filter
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen.query_one(Input).value == "bidaf wrong"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, SaveSliceDialog)
        assert load_slice(env.conn, "bidaf wrong") == saved_filter
        await pilot.press("escape")
        await settle(pilot)
        # ctrl+o lists the slices; enter opens one in a new browser
        await pilot.press("ctrl+o")
        await settle(pilot)
        slices = app.screen
        assert isinstance(slices, SlicesScreen) and [s.name for s in slices.slices] == ["bidaf wrong"]
        await pilot.press("enter")
        await settle(pilot)
        reopened = app.screen
        assert isinstance(reopened, BrowserScreen) and reopened is not browser
        assert reopened.filter == saved_filter and reopened.total == total
        assert reopened.slice_name == "bidaf wrong"


@async_test
async def test_slices_list_deletes_and_palette_lists(env: Env) -> None:
    save_slice(env.conn, "dev errors", Filter(dataset=CMRC, run="bert-base-chinese", em=0))
    save_slice(env.conn, "glm refusals", Filter(dataset="cdqa_sample", run="glm-6b", refused=True))
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        provider = SlicesProvider(app.screen)
        await provider.startup()
        titles = [t for t, _, _ in provider._entries()]
        assert titles == ["Open saved slice …", "Open saved slice dev errors", "Open saved slice glm refusals"]
        helps = [h for _, h, _ in provider._entries()]
        assert "em=0" in helps[1] and "refused=True" in helps[2]
        provider._entries()[2][2]()  # the palette entry opens the slice
        await tests.helpers.until(pilot, lambda: isinstance(app.screen, BrowserScreen) and app.screen.total is not None)
        assert isinstance(app.screen, BrowserScreen) and app.screen.filter.refused is True
        assert app.screen.total == query.count(env.conn, Filter(run="glm-6b", refused=True))
        await pilot.press("ctrl+o")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert [s.name for s in list_slices(env.conn)] == ["glm refusals"]
        assert [s.name for s in app.screen.slices] == ["glm refusals"]  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------- export


@async_test
async def test_e_exports_a_csv_polars_reads_back(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        await pilot.press("w")
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        path = env.runs / ".qa-inspect" / "exports" / "bidaf-baseline.csv"
        assert dialog.query_one(Input).value == str(path)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is browser
        frame = pl.read_csv(path)
        assert frame.height == browser.total and frame.height > 0
        assert set(frame["em"].to_list()) <= {0, None}  # wrong, or no prediction (counts 0)
        assert any(str(path) in str(n.message) and f"{browser.total}" in str(n.message) for n in app._notifications)
        # the next default does not replace it; another extension picks another format
        await pilot.press("e")
        await settle(pilot)
        box = app.screen.query_one(Input)
        assert box.value.endswith("bidaf-baseline-2.csv")
        box.value = str(env.root / "out.jsonl")
        await pilot.press("enter")
        await settle(pilot)
        assert pl.read_ndjson(env.root / "out.jsonl").height == browser.total
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one(Input).value = str(env.root / "out.txt")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ExportDialog)  # unknown extension: the dialog stays and says why
        assert "Unknown extension" in str(app.screen.query_one("#export-msg", Static).render())


def test_default_export_names(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert safe_stem("a/b c:d") == "a-b-c-d"
    assert safe_stem("..") == "items"
    assert default_path(tmp_path, "x") == tmp_path / "x.csv"
    (tmp_path / "x.csv").write_text("")
    assert default_path(tmp_path, "x") == tmp_path / "x-2.csv"


# --------------------------------------------------------------------------------- help, keys


@async_test
async def test_help_lists_the_triage_keys(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_compare(pilot, "bidaf-baseline", 1)
        await pilot.press("question_mark")
        await settle(pilot)
        body = str(app.screen.query_one("#help-body Static", Static).render())
        for text in ("Compare runs", "Facet panel", "Saved slices", "Only wrong answers", "Export the item list", "Save the current filter",
                     "Saved slices: open or delete one", "Swap runs A and B"):
            assert text in body, text
        assert body.index("Compare runs") < body.index("Runs overview")  # the screen you came from first


@async_test
async def test_small_terminal_compare_and_facets(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        compare = await open_compare(pilot, "bidaf-baseline", 1)
        table = compare.query_one(OutcomeTable)
        assert table.region.right <= 80 and table.region.bottom < 24
        changes = compare.query_one("#cmp-changes", DataTable)
        assert changes.size.height >= 3
        assert sum(c.get_render_width(changes) for c in changes.ordered_columns) <= changes.size.width
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        panel = app.screen.query_one(FacetPanel)
        assert panel.region.y > app.screen.query_one(ItemTable).region.y  # below the items at 80 columns
        facets = panel.query_one(FacetList)
        assert sum(c.get_render_width(facets) for c in facets.ordered_columns) <= facets.size.width


@async_test
async def test_compare_shows_model_text_literally_and_c_uses_the_chosen_b(env: Env) -> None:
    nasty = "[bold red]x[/] \x1b[2J\x07end"
    env.conn.execute(
        "UPDATE predictions SET text = ? WHERE run_id = (SELECT id FROM runs WHERE name = 'roberta-wwm-large')"
        " AND item_id = (SELECT id FROM items WHERE key = 'DEV_4_QUERY_1')",
        (nasty,),
    )
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        browser.set_filter(browser.filter.with_(compare="roberta-wwm-large"))
        await settle(pilot)
        await pilot.press("c")  # B is chosen already: no picker
        await settle(pilot)
        compare = app.screen
        assert isinstance(compare, CompareScreen) and compare.run_b == "roberta-wwm-large"
        changes = compare.query_one("#cmp-changes", DataTable)
        keys = [c.key for c in compare.change_refs]
        assert "DEV_4_QUERY_1" in keys
        row = changes.get_row_at(keys.index("DEV_4_QUERY_1"))
        shown = [cell.plain for cell in row]
        assert any(s.startswith("[bold red]x[/] ␛[2J␇") for s in shown), shown
        assert not any("\x1b" in s for s in shown)


@async_test
async def test_item_columns_follow_the_panel_and_the_terminal(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bert-base-chinese")
        table = browser.query_one(ItemTable)

        def used() -> int:
            return sum(c.get_render_width(table) for c in table.ordered_columns)

        full = used()
        assert full <= table.size.width
        await pilot.press("F")
        await settle(pilot)
        assert used() <= table.size.width < SIZE[0] - 40  # laid out again for the narrower table
        await pilot.resize_terminal(170, 45)
        await settle(pilot)
        assert table.size.width - 4 <= used() <= table.size.width  # and for the wider one
        await pilot.resize_terminal(90, 30)  # narrow: the panel goes below, the table is full width
        await settle(pilot)
        assert used() <= table.size.width and table.size.width >= 88
