"""Pilot tests of the compare screen: its counts equal `diff_runs`, every table opens what
it counts, scope and threshold, model text shown literally. Each test drives a fresh loaded copy
of sample_runs/ (`env`)."""

from __future__ import annotations

import pytest
from textual.coordinate import Coordinate
from textual.widgets import DataTable, Static

from qa_inspect.core import query
from qa_inspect.core.query import OUTCOMES, Filter
from qa_inspect.core.report import diff_runs
from qa_inspect.tui.screens import BrowserScreen, CompareScreen, DetailScreen, OutcomeTable, scope_of
from qa_inspect.tui.widgets import ItemTable
from tests.helpers import SIZE, Env, async_test, open_compare
from tests.helpers import env_app as make_app
from tests.helpers import open_run_with_facets as open_run
from tests.helpers import settle_facets as settle

CMRC = "cmrc2018_dev_sample"


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
        assert labels == ["F1-recall ≥ 50"]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        assert app.screen.total == expected.outcome("threshold").fixed
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("X")  # swap A and B: fixed ↔ broken
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
        await pilot.press("z")  # whole dataset
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
        # n / p walk the largest changes in the order they are listed, and stop at its end
        ids = [c.item_id for c in compare.change_refs]
        for k in (1, 2):
            await pilot.press("n")
            await settle(pilot)
            assert detail.detail.item_id == ids[k] and detail.position == k and detail.total == len(ids)
        await pilot.press("p")
        await settle(pilot)
        assert detail.detail.item_id == ids[1]


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
