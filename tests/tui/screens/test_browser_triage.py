"""Pilot tests of the item browser's triage parts: facet panel, saved slices, export, and
their keys. Each test drives a fresh loaded copy of sample_runs/ (`env`), so exports land in tmp.
The compare screen's tests are in test_compare.py."""

from __future__ import annotations

import polars as pl
from rich.cells import cell_len
from textual.widgets import DataTable, Input, Static

import tests.helpers
from qa_inspect.core import query
from qa_inspect.core.query import Filter, facet_tables, list_slices, load_slice, save_slice
from qa_inspect.tui.dialogs import (
    ConfirmDialog,
    ExportDialog,
    SaveSliceDialog,
    SlicesProvider,
    SlicesScreen,
    default_path,
    safe_stem,
)
from qa_inspect.tui.screens import BrowserScreen, OutcomeTable
from qa_inspect.tui.widgets import FacetList, FacetPanel, ItemTable
from qa_inspect.tui.widgets.facet_panel import choose, split_bar, toggle
from tests.helpers import SIZE, Env, async_test, open_compare, until
from tests.helpers import env_app as make_app
from tests.helpers import open_run_with_facets as open_run
from tests.helpers import settle_facets as settle

CMRC = "cmrc2018_dev_sample"


# ------------------------------------------------------------------------------------- facets


@async_test
async def test_facet_panel_counts_and_selection(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "bidaf-baseline")
        panel = browser.query_one(FacetPanel)
        assert not panel.shown
        await pilot.press("ctrl+f")
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
        await pilot.press("ctrl+f")
        assert panel.query_one(FacetList).has_focus
        await pilot.press("ctrl+f")
        assert not panel.shown and browser.query_one(ItemTable).has_focus


@async_test
async def test_facet_panel_follows_filter_changes_and_selects_fields(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, "glm-6b")
        await pilot.press("ctrl+f")
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


@async_test
async def test_an_unreadable_slice_is_shown_as_such_not_as_all_items(env: Env) -> None:
    """A slice whose stored JSON cannot be read keeps an empty filter; the dialog and the palette
    say why it cannot be used instead of describing that empty filter as every item."""
    env.conn.execute("INSERT INTO slices (name, filter, created_at) VALUES ('deep', ?, '2024-01-01')",
                     ('{"splits": ' + "[" * 5000 + "]" * 5000 + "}",))
    env.conn.commit()
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        provider = SlicesProvider(app.screen)
        await provider.startup()
        assert provider._entries()[1][1] == "invalid: slice 'deep': stored filter cannot be read (nested too deep)"
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(app.screen, SlicesScreen)
        detail = str(app.screen.query_one("#slices-detail", Static).render())
        assert "nested too deep" in detail and "all items" not in detail


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
        # a folder that is not there yet is created (the dialog says it will be)
        new = env.root / "new" / "folder" / "out.csv"
        app.screen.query_one(Input).value = str(new)
        await pilot.pause()
        assert "will be created" in str(app.screen.query_one("#export-msg", Static).render())
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is browser and pl.read_csv(new).height == browser.total
        # a failed export brings the dialog back with the typed path and the reason
        blocked = env.root / "afile"
        blocked.write_text("x", encoding="utf-8")
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one(Input).value = str(blocked / "out.csv")
        await pilot.press("enter")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ExportDialog) and dialog.query_one(Input).value == str(blocked / "out.csv")
        assert "Export failed" in str(dialog.query_one("#export-msg", Static).render())


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
        await pilot.press("ctrl+f")
        await settle(pilot)
        panel = app.screen.query_one(FacetPanel)
        assert panel.region.y > app.screen.query_one(ItemTable).region.y  # below the items at 80 columns
        facets = panel.query_one(FacetList)
        assert sum(c.get_render_width(facets) for c in facets.ordered_columns) <= facets.size.width


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
        await pilot.press("ctrl+f")
        await settle(pilot)
        assert used() <= table.size.width < SIZE[0] - 40  # laid out again for the narrower table
        await pilot.resize_terminal(170, 45)  # and for the wider one (a resize lays out after it settles)
        await until(pilot, lambda: table.size.width - 4 <= used() <= table.size.width)
        await pilot.resize_terminal(90, 30)  # narrow: the panel goes below, the table is full width
        await until(pilot, lambda: used() <= table.size.width and table.size.width >= 88)
