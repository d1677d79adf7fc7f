"""Pilot tests of the browser's columns: registry columns chosen with `k` show their values (a
labelled row its labels), `F` (Shift+F) gives a frequency table equal to a SQL GROUP BY and enter
keeps a value, `|` filters by an expression (errors kept in place) as the equivalent facets do."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core import query
from qa_inspect.core.query import ColumnLayout, Filter
from qa_inspect.tui.dialogs import ColumnsDialog, ExpressionDialog, FrequencyDialog
from qa_inspect.tui.screens import BrowserScreen
from qa_inspect.tui.widgets import ItemTable, describe
from textual.widgets import DataTable, Input, SelectionList

from tests.columns_data import LABELLED, RUN, load_columns
from tests.helpers import SIZE, app_for, async_test, open_run, settle, until

DATASET = "cmrc2018_dev_sample"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load_columns(tmp_path_factory.mktemp("browser-columns"))


def cell(table: ItemTable, key: str, column: str) -> str:
    row = [r.key for r in table.win_rows].index(key)
    col = [c.key for c in table.cols].index(column)
    return table.get_cell_at((row, col)).plain  # type: ignore[arg-type]


@async_test
async def test_k_offers_every_column_and_a_labelled_row_shows_its_labels(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, RUN)
        await pilot.press("k")
        await until(pilot, lambda: isinstance(app.screen, ColumnsDialog))
        box = app.screen.query_one(SelectionList)
        offered = [box.get_option_at_index(i).value for i in range(box.option_count)]
        assert {"label", "error_category", "relation", "question_type", "judge:gpt-judge",
                "answer:bidaf-baseline", "score:bidaf-baseline"} <= set(offered)
        assert "label" not in box.selected  # off until ticked
        box.select("label")
        box.select("error_category")
        await pilot.pause()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, BrowserScreen) and "label" in
                    [c.key for c in screen.query_one(ItemTable).cols] and bool(screen.query_one(ItemTable).win_rows)
                    and "label" in screen.query_one(ItemTable).win_rows[0].extra)
        table = screen.query_one(ItemTable)
        for key, labels in LABELLED.items():
            assert cell(table, key, "label") == ", ".join(sorted(labels))
        other = next(r.key for r in table.win_rows if r.key not in LABELLED)
        assert cell(table, other, "label") == "—"
        with sqlite3.connect(db) as conn:
            stored = conn.execute("SELECT p.error_category FROM predictions p JOIN items i ON i.id = p.item_id"
                                  " JOIN runs r ON r.id = p.run_id WHERE r.name = ? AND i.key = ?",
                                  (RUN, other)).fetchone()[0]
        assert cell(table, other, "error_category") == stored
        assert app.column_layouts[DATASET].order  # kept per dataset


@async_test
async def test_header_sort_on_a_registry_column(db: Path) -> None:
    app = app_for(db)
    app.column_layouts[DATASET] = ColumnLayout(order=("key", "label"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, RUN)
        screen.post_message(ItemTable.Sort("label"))  # a header click
        await until(pilot, lambda: screen.filter.sort == "label")
        screen.set_filter(screen.filter.with_(descending=True))
        await until(pilot, lambda: screen.window_generation == screen.generation)
        keys = [r.key for r in screen.query_one(ItemTable).win_rows[:2]]
        assert keys == ["DEV_4_QUERY_1", "DEV_4_QUERY_0"]  # "format, paraphrase", then "format"


@async_test
async def test_shift_f_on_the_prediction_column_counts_as_group_by_and_enter_keeps_a_value(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, RUN)
        screen.set_filter(screen.filter.with_(sort="prediction"))
        await settle(pilot)
        await pilot.press("F")  # Shift+F, as in VisiData
        await until(pilot, lambda: isinstance(app.screen, FrequencyDialog) and app.screen.table is not None)
        dialog = app.screen
        assert isinstance(dialog, FrequencyDialog) and dialog.column == "prediction"
        with sqlite3.connect(db) as conn:
            expected = dict(conn.execute(
                "SELECT p.text, COUNT(*) FROM items i JOIN runs r ON r.name = ? AND r.dataset_id = i.dataset_id"
                " LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = r.id GROUP BY p.text", (RUN,)).fetchall())
        assert dialog.table is not None
        assert {r.value: r.count for r in dialog.table.rows} == expected
        assert dialog.query_one(DataTable).row_count == len(expected)
        await pilot.press("right")  # the next column's table
        await until(pilot, lambda: dialog.table is not None and dialog.table.column != "prediction")
        await pilot.press("left")
        await until(pilot, lambda: dialog.table is not None and dialog.table.column == "prediction")
        top = dialog.table.rows[0]
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, BrowserScreen) and screen.total is not None
                    and screen.count_generation == screen.generation)
        assert screen.filter.expression.startswith("prediction = ")
        assert screen.total == top.count


@async_test
async def test_an_expression_of_three_clauses_gives_the_facets_rows(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, RUN)
        await pilot.press("vertical_line")
        await until(pilot, lambda: isinstance(app.screen, ExpressionDialog))
        dialog = app.screen
        box = dialog.query_one(Input)
        box.value = 'f1 <= 0.5 and qword = "what" and categry = "boundary-long"'
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog and isinstance(dialog, ExpressionDialog)  # kept open with the error
        assert dialog.error is not None and dialog.error.column == "categry"
        assert box.cursor_position == dialog.error.position
        box.value = ('f1 <= 0.5 and qword = "what" and category in ("boundary-long",'
                     ' "wrong-span-same-sentence")')
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, BrowserScreen) and screen.total is not None
                    and screen.count_generation == screen.generation)
        facets = Filter(run=RUN, dataset=screen.filter.dataset, f1_max=0.5, facets=(
            ("qword", "what"), ("error_category", "boundary-long"), ("error_category", "wrong-span-same-sentence")))
        with sqlite3.connect(db) as conn:
            expected = [r.key for r in query.page(conn, facets, 0, 1000)]
        shown = [r.key for r in screen.query_one(ItemTable).win_rows]
        assert shown == expected and expected
        assert ("where", screen.filter.expression) in describe(screen.filter)  # the chip
